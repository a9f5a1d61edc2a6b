"""The log view: the core's events rendered as lines that scroll by and are never redrawn.

Finished content (markdown blocks, one line per tool call, diffs, memo summaries) is printed
once. At most one *live line* shows what is in progress (the text being streamed, a call
running, `coder › edit-file app/greet.py`); it is rewritten in place with `\\r` + erase-line,
cut to width-1 so it never wraps, and erased before anything finished is printed. Nothing
else moves the cursor: no spinners, no boxes, no cursor-up, so scrollback stays clean in every
terminal.

Live-line updates are throttled (30 per second); a skipped update is drawn by a timer on the
running event loop, so the line is never left stale.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from zen.base import events as ev
from zen.base.terminal_safe import terminal_safe
from zen.ui.format import (
    call_line,
    call_parts,
    diff_excerpt,
    fold,
    is_nested,
    output_tail,
    preview_key,
    progress_line,
)
from zen.ui.markdown_stream import LIVE_CHARS, BlockSplitter, render_block, tail_of
from zen.ui.term import Caps

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

NESTING_TOOLS = ("send-to-coder", "spawn-agents")
"""Calls whose agents' activity is printed indented under them."""
DIFF_LINES = 6
OUTPUT_LINES = 5
"""Lines of a command's output shown (dimmed) under its log line; `/show` prints it all."""
TODO_LINES = 12
KEPT_OUTPUTS = 50
"""Tool outputs `/show N` can still reach."""
REASONING_LINES = 3
REPORT_LINES = 3
THINKING = "thinking: "
ERASE = "\r\x1b[2K"


class LiveLine:
    """The one line that may change. Owned by a key, so a finished call clears only its own."""

    def __init__(
        self,
        console: Console,
        caps: Caps,
        interval: float = 1 / 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.caps = caps
        self.interval = interval
        self.clock = clock
        self.key: object = None
        self.text: str | Callable[[], str] = ""
        self.tail = False
        """Keep the end of the text when it is too long (streamed text), not the start."""
        self.paused = False
        self._shown = 0
        """Cells on screen now (0: the cursor is at the start of an empty line)."""
        self._drawn_at = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def set(self, key: object, text: str | Callable[[], str], *, tail: bool = False) -> None:
        """Show `text` (or what the callable returns when the line is actually drawn: live
        updates are throttled, so the tail of a long stream is only computed when shown)."""
        self.key, self.text, self.tail = key, text, tail
        if not self.caps.live or self.paused:
            return
        if self.clock() - self._drawn_at >= self.interval:
            self.draw()
        elif self._timer is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._timer = loop.call_later(self.interval, self.draw)

    def drop(self, key: object = None) -> None:
        """Forget the live text (only if `key` owns it, when given) and erase it."""
        if key is None or key == self.key:
            self.key, self.text = None, ""
            self.erase()

    def draw(self) -> None:
        self._cancel_timer()
        if not self.caps.live or self.paused:
            return
        self._drawn_at = self.clock()
        width = max(10, self.console.width) - 1
        text = fit_line(
            self.text if isinstance(self.text, str) else self.text(), width, tail=self.tail
        )
        out = self.console.file
        if self.caps.vt:
            styled = f"\x1b[2m{text}\x1b[0m" if self.caps.styled and text else text
            out.write(ERASE + styled)
        else:
            out.write("\r" + text + " " * max(0, self._shown - cell_len(text)))
        self._shown = cell_len(text)
        out.flush()

    def erase(self) -> None:
        """Leave the cursor at the start of an empty line (before printing finished text)."""
        self._cancel_timer()
        if not self._shown:
            return
        out = self.console.file
        out.write(ERASE if self.caps.vt else "\r" + " " * self._shown + "\r")
        out.flush()
        self._shown = 0

    def redraw_soon(self) -> None:
        """Bring the live text back after something finished was printed over it, unless a
        newer update replaces it first (parallel agents: one finished, another still runs)."""
        if not self.text or self.paused or not self.caps.live or self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        self._timer = loop.call_later(self.interval, self.draw)

    def pause(self) -> None:
        self.erase()
        self.paused = True

    def resume(self) -> None:
        self.paused = False
        if self.text:
            self.draw()

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class LogRenderer:
    """An `Emit`: give it every event of a run, then `end_run()` and `status()`."""

    def __init__(
        self,
        console: Console,
        caps: Caps,
        *,
        interval: float = 1 / 30,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.console = console
        self.caps = caps
        self.live = LiveLine(console, caps, interval, clock)
        self._text: dict[str, BlockSplitter] = {}
        self._nested_text: dict[str, list[str]] = {}
        self._reasoning: dict[str, list[str]] = {}
        self._args: dict[tuple[str, str], tuple[str, str, int]] = {}
        """call id -> (agent, tool, argument characters so far)"""
        self._last = "none"
        """What was printed last in this run: none | text | tool."""
        self._printed: dict[str, list[str]] = {}
        """Blocks printed by each agent's current turn (a retry may repeat them)."""
        self._replay: dict[str, int] = {}
        """How many of `_printed[agent]` the current attempt has matched (after a retry)."""
        self.outputs: list[tuple[str, str]] = []
        """(call line, full output) of the latest tool calls, for `/show`."""
        self.previewed: set[str] = set()
        """Calls whose diff the approval question already showed in full (not shown twice)."""

    # -- the Emit -------------------------------------------------------------------------

    def __call__(self, event: ev.Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(self, event)

    def _turn_started(self, e: ev.TurnStarted) -> None:
        self._printed.pop(e.agent, None)
        self._replay.pop(e.agent, None)
        self.live.set(("turn", e.agent), f"{e.agent} › waiting for the model")

    def _reasoning_delta(self, e: ev.ReasoningDelta) -> None:
        parts = self._reasoning.setdefault(e.agent, [])
        parts.append(e.text)
        self.live.set(("turn", e.agent), lambda: f"{e.agent} › thinking: {_tail(parts)}", tail=True)

    def _text_delta(self, e: ev.TextDelta) -> None:
        # the hot path: one call per streamed chunk (30,000 for a 20,000-word answer)
        agent = e.agent
        if self._reasoning:
            self._end_reasoning(agent)
        splitter = self._text.get(agent)
        if splitter is None:
            if is_nested(agent):
                parts = self._nested_text.setdefault(agent, [])
                parts.append(e.text)
                self.live.set(("turn", agent), lambda: f"{agent} › {_tail(parts)}", tail=True)
                return
            splitter = self._text[agent] = BlockSplitter()
        for block in splitter.feed(e.text):
            self._block(agent, block)
        self.live.set(("turn", agent), splitter.tail_text, tail=True)

    def _call_started(self, e: ev.ToolCallStarted) -> None:
        self._end_reasoning(e.agent)
        self._end_text(e.agent)
        self._args[(e.agent, e.call_id)] = (e.agent, e.name, 0)
        self.live.set(("call", e.agent, e.call_id), progress_line(e.agent, e.name))

    def _args_delta(self, e: ev.ToolCallArgsDelta) -> None:
        agent, name, size = self._args.get((e.agent, e.call_id), (e.agent, e.name, 0))
        size += len(e.delta)
        self._args[(e.agent, e.call_id)] = (agent, name, size)
        self.live.set(
            ("call", e.agent, e.call_id), f"{progress_line(agent, name)} · {size:,} chars"
        )

    def _call_running(self, e: ev.ToolCallRunning) -> None:
        self._end_text(e.agent)
        self._args.pop((e.agent, e.call_id), None)
        if e.name in NESTING_TOOLS:
            self.live.drop(("call", e.agent, e.call_id))
            indent = "    " if is_nested(e.agent) else ""
            arg = fit_line(e.detail, 200)
            self._line(
                self._styled(
                    (indent, ""),
                    ("› ", "magenta"),
                    (e.name, "bold"),
                    (f" {arg}" if arg else "", ""),
                ),
                kind="tool",
            )
            return
        self.live.set(("call", e.agent, e.call_id), progress_line(e.agent, e.name, e.detail))

    def _call_finished(self, e: ev.ToolCallFinished) -> None:
        self.live.drop(("call", e.agent, e.call_id))
        if e.name == "memo" and e.ok and e.args.get("action") == "write":
            return  # its MemoWritten line says it, once
        if e.name == "todo" and e.ok and e.args.get("action") != "list":
            self._todo_block(e)
            return
        detail = "" if e.name in NESTING_TOOLS else e.detail
        indent, marker, name, arg, outcome = call_parts(e.agent, e.name, detail, e.ok, e.summary)
        self._line(
            self._styled(
                (indent, ""),
                (marker, "green" if e.ok else "red"),
                (f" {name}", "bold"),
                (f" {arg}" if arg else "", ""),
                (f" — {outcome}" if outcome else "", "dim" if e.ok else "red"),
            ),
            kind="tool",
        )
        if e.name not in NESTING_TOOLS and e.output:
            self.outputs.append((call_line(e.agent, e.name, detail, e.ok, e.summary), e.output))
            del self.outputs[:-KEPT_OUTPUTS]
        shown = preview_key(e.agent, e.name, e.args) in self.previewed
        self.previewed.discard(preview_key(e.agent, e.name, e.args))
        if e.diff and e.ok and not shown:
            for line in diff_excerpt(e.diff, DIFF_LINES):
                style = {"+": "green", "-": "red"}.get(line[:1], "dim")
                self._line(self._styled((indent + "  ", ""), (line, style)), kind="tool")
        elif e.name not in NESTING_TOOLS and (e.name == "bash" or not e.ok):
            width = max(20, self.console.width - len(indent) - 3)
            excerpt, more = output_tail(e.output, OUTPUT_LINES)
            excerpt = [ln for ln in excerpt if ln.removeprefix("Error: ").strip() != e.summary]
            for line in excerpt:
                self._line(
                    self._styled((indent + "  ", ""), (fit_line(line, width), "dim")), kind="tool"
                )
            if more:
                self._line(
                    self._styled(
                        (indent + "  ", ""), (f"… {more} more lines above (/show)", "dim italic")
                    ),
                    kind="tool",
                )

    def _todo_block(self, e: ev.ToolCallFinished) -> None:
        """The plan changed: drawn whole, compact, the step in progress highlighted."""
        indent = "    " if is_nested(e.agent) else ""
        self._line(self._styled((indent, ""), ("todo ", "cyan"), (e.summary, "dim")), kind="tool")
        width = max(20, self.console.width - len(indent) - 3)
        for line in e.output.splitlines()[:TODO_LINES]:
            style = "bold" if line.startswith("[~]") else ("dim" if line.startswith("[x]") else "")
            self._line(
                self._styled((indent + "  ", ""), (fit_line(line, width), style)), kind="tool"
            )

    def _memo(self, e: ev.MemoWritten) -> None:
        indent = "    " if is_nested(e.agent) else ""
        self._line(
            self._styled(
                (indent, ""), ("memo ", "cyan"), (e.key, "bold cyan"), (f" — {e.summary}", "dim")
            ),
            kind="tool",
        )

    def _retrying(self, e: ev.Retrying) -> None:
        """The stream restarts from scratch. What it half-showed (the live line) is dropped;
        blocks it already printed cannot be taken back, so the new attempt's identical blocks
        are skipped instead of printed twice."""
        self._text.pop(e.agent, None)
        self._nested_text.pop(e.agent, None)
        self._reasoning.pop(e.agent, None)
        self._replay[e.agent] = 0  # compare the new attempt from the turn's first block
        self.live.drop(("turn", e.agent))  # only this agent's: a parallel one keeps its line
        self._line(
            self._styled(
                (f"↻ retrying in {e.delay:.1f}s (attempt {e.attempt}): {e.reason}", "yellow")
            ),
            kind="tool",
        )

    def _waiting(self, e: ev.Waiting) -> None:
        """A slow model or a retry pause: the live line says on what and for how long."""
        what = "retry" if e.what == "retry" else e.what
        verb = "retrying in" if e.what == "retry" else f"waiting for {what}:"
        left = (
            f"{max(0.0, e.limit - e.elapsed):.0f}s"
            if e.what == "retry"
            else (f"{e.elapsed:.0f}s (gives up at {e.limit:g}s)")
        )
        self.live.set(("turn", e.agent), f"{e.agent} › {verb} {left}")

    def _turn_ended(self, e: ev.TurnEnded) -> None:
        self._end_reasoning(e.agent)
        self._end_text(e.agent)
        self.live.drop(("turn", e.agent))
        parts = self._nested_text.pop(e.agent, None)
        if parts and not e.tool_calls:
            width = max(20, self.console.width - 8)
            for line in fold("".join(parts), width, REPORT_LINES):
                self._line(self._styled(("      " + line, "dim")), kind="tool")

    def _compacting(self, e: ev.Compacting) -> None:
        self.live.set(
            ("compact", e.agent), f"{e.agent} › compacting: writing the task's state into the memo"
        )

    def _compacted(self, e: ev.Compacted) -> None:
        self.live.drop(("compact", e.agent))
        indent = "    " if is_nested(e.agent) else ""
        self._line(self._styled((indent, ""), (e.line, "cyan")), kind="tool")

    def _notice(self, e: ev.Notice) -> None:
        style = {"warning": "yellow", "error": "red"}.get(e.level, "dim")
        self._line(self._styled((e.text, style)), kind="tool")

    def _error(self, e: ev.Error) -> None:
        self.error(e.message)

    _handlers: dict[type, Callable[[LogRenderer, Any], None]] = {
        ev.TurnStarted: _turn_started,
        ev.ReasoningDelta: _reasoning_delta,
        ev.TextDelta: _text_delta,
        ev.ToolCallStarted: _call_started,
        ev.ToolCallArgsDelta: _args_delta,
        ev.ToolCallRunning: _call_running,
        ev.ToolCallFinished: _call_finished,
        ev.MemoWritten: _memo,
        ev.Retrying: _retrying,
        ev.Waiting: _waiting,
        ev.TurnEnded: _turn_ended,
        ev.Notice: _notice,
        ev.Compacting: _compacting,
        ev.Compacted: _compacted,
        ev.Error: _error,
    }

    # -- what the shell calls -------------------------------------------------------------

    def end_run(self) -> None:
        """The run is over (done, failed or cancelled): print what was still open."""
        for agent in list(self._reasoning):
            self._end_reasoning(agent)
        for agent in list(self._text):
            self._end_text(agent)
        self._nested_text.clear()
        self._args.clear()
        self._printed.clear()
        self._replay.clear()
        self.previewed.clear()
        self.live.drop()
        self._last = "none"

    def status(self, text: str) -> None:
        """The line after a run (tokens, time), and a blank line before the next prompt."""
        self.live.drop()
        self.console.print(self._styled((text, "dim")))
        self.console.print()

    def info(self, text: str, style: str = "") -> None:
        """A line from the shell itself (commands, notes)."""
        self._line(self._styled((text, style)), kind="none")

    def error(self, text: str) -> None:
        self._line(self._styled((f"error: {text}", "red")), kind="tool")

    def print(self, renderable: Any) -> None:
        self._line(renderable, kind="none")

    def styled(self, *parts: tuple[str, str]) -> Text:
        return self._styled(*parts)

    # -- printing finished content --------------------------------------------------------

    def _block(self, agent: str, block: str) -> None:
        """One finished markdown block of an answer."""
        printed = self._printed.setdefault(agent, [])
        matched = self._replay.get(agent)
        if matched is not None:
            if matched < len(printed) and printed[matched] == block:
                self._replay[agent] = matched + 1  # on screen already, from a failed attempt
                return
            # the new attempt says something else: from here on its blocks are the turn's
            del printed[matched:]
            self._replay.pop(agent)
        printed.append(block)
        block = terminal_safe(block)
        self.live.erase()
        if self._last != "none":
            self.console.print()
        if self.caps.styled or self.caps.live:  # NO_COLOR keeps the layout
            render_block(self.console, block)
        else:
            self.console.print(block.rstrip("\n"), soft_wrap=True)
        self._last = "text"

    def _line(self, renderable: Any, kind: str) -> None:
        self.live.erase()
        if kind == "tool" and self._last == "text":
            self.console.print()
        self.console.print(renderable, soft_wrap=not self.caps.styled)
        if kind != "none":
            self._last = kind
        self.live.redraw_soon()

    def _styled(self, *parts: tuple[str, str]) -> Text:
        from rich.text import Text

        text = Text()
        for chunk, style in parts:
            text.append(terminal_safe(chunk), style=style if self.caps.styled and style else None)
        return text

    def _end_text(self, agent: str) -> None:
        splitter = self._text.pop(agent, None)
        if splitter is not None:
            for block in splitter.finish():
                self._block(agent, block)
            self.live.drop(("turn", agent))

    def _end_reasoning(self, agent: str) -> None:
        parts = self._reasoning.pop(agent, None)
        if not parts:
            return
        self.live.drop(("turn", agent))
        nested = is_nested(agent)
        indent = "      " if nested else ""
        width = max(20, self.console.width - len(indent) - len(THINKING) - 1)
        lines = fold("".join(parts), width, 1 if nested else REASONING_LINES)
        for n, line in enumerate(lines):
            lead = THINKING if n == 0 else " " * len(THINKING)
            self._line(self._styled((indent + lead + line, "dim italic")), kind="tool")


def _tail(parts: list[str], size: int = LIVE_CHARS) -> str:
    """The end of a growing text, on one line."""
    return " ".join(tail_of(parts, size).split())


def cell_len(text: str) -> int:
    if text.isascii():
        return len(text)
    from rich.cells import cell_len as rich_cell_len

    return rich_cell_len(text)


def fit_line(text: str, cells: int, *, tail: bool = False) -> str:
    """One terminal line of at most `cells` cells: controls shown as placeholders, line breaks
    and tabs as spaces, cut with `…`."""
    text = terminal_safe(text).replace("\n", " ").replace("\t", " ")
    if cell_len(text) <= cells:
        return text
    if text.isascii():
        return "…" + text[-(cells - 1) :] if tail else text[: cells - 1] + "…"
    from rich.cells import get_character_cell_size

    out: list[str] = []
    used = 1
    for ch in reversed(text) if tail else text:
        size = get_character_cell_size(ch)
        if used + size > cells:
            break
        out.append(ch)
        used += size
    return "…" + "".join(reversed(out)) if tail else "".join(out) + "…"

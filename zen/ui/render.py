"""The log view: the core's events rendered as lines that scroll by and are never redrawn.

Finished content (markdown blocks, one line per tool call, diffs, memo summaries) is printed
once. At most one *live line* shows what is in progress (the text being streamed, a call
running, `coder › edit-file app/greet.py`): `live_line.py`. Nothing else moves the cursor: no
spinners, no boxes, no cursor-up, so scrollback stays clean in every terminal.

This module renders the answers (streamed text, reasoning, retries, compaction, notices) and
prints every finished line; the tool calls' lines are `tool_calls.py`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from zen.base import events as ev
from zen.base.terminal_safe import terminal_safe
from zen.ui.format import fold, is_nested, tokens
from zen.ui.live_line import LiveLine
from zen.ui.markdown_stream import LIVE_CHARS, BlockSplitter, render_block, tail_of
from zen.ui.term import Caps
from zen.ui.tool_calls import ToolCalls

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

REASONING_LINES = 3
LONG_ANSWER = 5.0
"""Seconds of streaming after which the live line also says how much arrived: an answer that
runs on to its output cap repeats itself and would look stuck."""
REPORT_LINES = 3
THINKING = "thinking: "


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
        self.clock = clock
        self._streamed: dict[str, tuple[float, int]] = {}
        """Per agent: when its turn began, characters of answer received since."""
        self._text: dict[str, BlockSplitter] = {}
        self._nested_text: dict[str, list[str]] = {}
        self._reasoning: dict[str, list[str]] = {}
        self._last = "none"
        """What was printed last in this run: none | text | tool."""
        self._printed: dict[str, list[str]] = {}
        """Blocks printed by each agent's current turn (a retry may repeat them)."""
        self._replay: dict[str, int] = {}
        """How many of `_printed[agent]` the current attempt has matched (after a retry)."""
        self.tools = ToolCalls(self)
        """The tool calls' lines, and their outputs for `/show`."""
        self._after: list[ev.Notice] = []
        """Advice shown once the run's answer is on screen (`Notice.after_answer`)."""

    # -- the Emit -------------------------------------------------------------------------

    def __call__(self, event: ev.Event) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:
            handler(self, event)
            return
        tool = ToolCalls.handlers.get(type(event))
        if tool is not None:
            tool(self.tools, event)

    def _turn_started(self, e: ev.TurnStarted) -> None:
        self._streamed[e.agent] = (self.clock(), 0)
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
            self.end_reasoning(agent)
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
        began, got = self._streamed.get(agent, (self.clock(), 0))
        self._streamed[agent] = (began, got + len(e.text))
        self.live.set(("turn", agent), lambda: self._so_far(agent, splitter.tail_text()), tail=True)

    def _so_far(self, agent: str, tail: str) -> str:
        """The live line of a streaming answer: its tail, and past `LONG_ANSWER` how much
        arrived (tokens by zen's estimate, 4 characters each) and for how long."""
        began, got = self._streamed.get(agent, (0.0, 0))
        took = self.clock() - began
        if took < LONG_ANSWER:
            return tail
        return f"{tail} · {tokens(got // 4)} tokens, {took:.0f}s"

    def _retrying(self, e: ev.Retrying) -> None:
        """The stream restarts from scratch. What it half-showed (the live line) is dropped;
        blocks it already printed cannot be taken back, so the new attempt's identical blocks
        are skipped instead of printed twice."""
        self._text.pop(e.agent, None)
        self._nested_text.pop(e.agent, None)
        self._reasoning.pop(e.agent, None)
        self._replay[e.agent] = 0  # compare the new attempt from the turn's first block
        self.live.drop(("turn", e.agent))  # only this agent's: a parallel one keeps its line
        self.line(
            self.styled(
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
        self.end_reasoning(e.agent)
        self.end_text(e.agent)
        self.live.drop(("turn", e.agent))
        parts = self._nested_text.pop(e.agent, None)
        if parts and not e.tool_calls:
            width = max(20, self.console.width - 8)
            for line in fold("".join(parts), width, REPORT_LINES):
                self.line(self.styled(("      " + line, "dim")), kind="tool")

    def _compacting(self, e: ev.Compacting) -> None:
        self.live.set(
            ("compact", e.agent), f"{e.agent} › compacting: writing the task's state into the memo"
        )

    def _compacted(self, e: ev.Compacted) -> None:
        self.live.drop(("compact", e.agent))
        indent = "    " if is_nested(e.agent) else ""
        self.line(self.styled((indent, ""), (e.line, "cyan")), kind="tool")

    def _notice(self, e: ev.Notice) -> None:
        if e.after_answer:
            self._after.append(e)
            return
        style = {"warning": "yellow", "error": "red"}.get(e.level, "dim")
        self.line(self.styled((e.text, style)), kind="tool")

    def _error(self, e: ev.Error) -> None:
        self.error(e.message)

    _handlers: dict[type, Callable[[LogRenderer, Any], None]] = {
        ev.TurnStarted: _turn_started,
        ev.ReasoningDelta: _reasoning_delta,
        ev.TextDelta: _text_delta,
        ev.Retrying: _retrying,
        ev.Waiting: _waiting,
        ev.TurnEnded: _turn_ended,
        ev.Notice: _notice,
        ev.Triaged: _notice,
        ev.Compacting: _compacting,
        ev.Compacted: _compacted,
        ev.Error: _error,
    }

    # -- what the shell calls -------------------------------------------------------------

    def end_run(self) -> None:
        """The run is over (done, failed or cancelled): print what was still open."""
        for agent in list(self._reasoning):
            self.end_reasoning(agent)
        for agent in list(self._text):
            self.end_text(agent)
        self._nested_text.clear()
        self.tools.end_run()
        after, self._after = self._after, []
        for notice in after:
            self._notice(replace(notice, after_answer=False))
        self._printed.clear()
        self._replay.clear()
        self.live.drop()
        self._last = "none"

    def status(self, text: str) -> None:
        """The line after a run (tokens, time), and a blank line before the next prompt."""
        self.live.drop()
        self.console.print(self.styled((text, "dim")))
        self.console.print()

    def info(self, text: str, style: str = "") -> None:
        """A line from the shell itself (commands, notes)."""
        self.line(self.styled((text, style)), kind="none")

    def error(self, text: str) -> None:
        self.line(self.styled((f"error: {text}", "red")), kind="tool")

    def print(self, renderable: Any) -> None:
        self.line(renderable, kind="none")

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

    def line(self, renderable: Any, kind: str) -> None:
        """A finished line, printed above the live line; `kind` (none | tool) spaces it."""
        self.live.erase()
        if kind == "tool" and self._last == "text":
            self.console.print()
        self.console.print(renderable, soft_wrap=not self.caps.styled)
        if kind != "none":
            self._last = kind
        self.live.redraw_soon()

    def styled(self, *parts: tuple[str, str]) -> Text:
        from rich.text import Text

        text = Text()
        for chunk, style in parts:
            text.append(terminal_safe(chunk), style=style if self.caps.styled and style else None)
        return text

    def end_text(self, agent: str) -> None:
        """Print what is left of `agent`'s streamed answer."""
        splitter = self._text.pop(agent, None)
        if splitter is not None:
            for block in splitter.finish():
                self._block(agent, block)
            self.live.drop(("turn", agent))

    def end_reasoning(self, agent: str) -> None:
        """Fold `agent`'s streamed reasoning into a few dim lines."""
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
            self.line(self.styled((indent + lead + line, "dim italic")), kind="tool")


def _tail(parts: list[str], size: int = LIVE_CHARS) -> str:
    """The end of a growing text, on one line."""
    return " ".join(tail_of(parts, size).split())

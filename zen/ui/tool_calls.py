"""Tool calls in the log view: the live line while one runs, one line when it ends.

Under that line: a few lines of its diff, or of a command's (or a failed call's) output, the
plan when `todo` changed it. The whole outputs are kept for `/show`. Calls that start agents
(`send-to-coder`, `spawn-agents`) get their line when they start, and those agents' activity
is printed indented under it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from zen.base import events as ev
from zen.tools.catalog import described
from zen.ui.cells import fit_line
from zen.ui.format import (
    call_line,
    call_parts,
    diff_excerpt,
    is_nested,
    output_tail,
    preview_key,
    progress_line,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from zen.ui.live_line import LiveLine

DIFF_LINES = 6
OUTPUT_LINES = 5
"""Lines of a command's output shown (dimmed) under its log line; `/show` prints it all."""
TODO_LINES = 12
KEPT_OUTPUTS = 50
"""Tool outputs `/show N` can still reach."""


def nests(tool: str) -> bool:
    """Its calls start agents, whose activity is printed indented under them."""
    described_as = described(tool)
    return described_as is not None and described_as.nests


class Log(Protocol):
    """What tool-call lines need from the log they go into (zen/ui/render.py's LogRenderer)."""

    console: Console
    live: LiveLine

    def line(self, renderable: Any, kind: str) -> None: ...

    def styled(self, *parts: tuple[str, str]) -> Text: ...

    def end_text(self, agent: str) -> None: ...

    def end_reasoning(self, agent: str) -> None: ...


class ToolCalls:
    """The tool-call events of a run, rendered into `log`."""

    def __init__(self, log: Log) -> None:
        self.log = log
        self._args: dict[tuple[str, str], tuple[str, str, int]] = {}
        """call id -> (agent, tool, argument characters so far)"""
        self.outputs: list[tuple[str, str]] = []
        """(call line, full output) of the latest tool calls, for `/show`."""
        self.previewed: set[str] = set()
        """Calls whose diff the approval question already showed in full (not shown twice)."""

    def started(self, e: ev.ToolCallStarted) -> None:
        self.log.end_reasoning(e.agent)
        self.log.end_text(e.agent)
        self._args[(e.agent, e.call_id)] = (e.agent, e.name, 0)
        self.log.live.set(("call", e.agent, e.call_id), progress_line(e.agent, e.name))

    def args_delta(self, e: ev.ToolCallArgsDelta) -> None:
        agent, name, size = self._args.get((e.agent, e.call_id), (e.agent, e.name, 0))
        size += len(e.delta)
        self._args[(e.agent, e.call_id)] = (agent, name, size)
        self.log.live.set(
            ("call", e.agent, e.call_id), f"{progress_line(agent, name)} · {size:,} chars"
        )

    def running(self, e: ev.ToolCallRunning) -> None:
        self.log.end_text(e.agent)
        self._args.pop((e.agent, e.call_id), None)
        if nests(e.name):
            self.log.live.drop(("call", e.agent, e.call_id))
            indent = "    " if is_nested(e.agent) else ""
            arg = fit_line(e.detail, 200)
            self.log.line(
                self.log.styled(
                    (indent, ""),
                    ("› ", "magenta"),
                    (e.name, "bold"),
                    (f" {arg}" if arg else "", ""),
                ),
                kind="tool",
            )
            return
        self.log.live.set(("call", e.agent, e.call_id), progress_line(e.agent, e.name, e.detail))

    def finished(self, e: ev.ToolCallFinished) -> None:
        self.log.live.drop(("call", e.agent, e.call_id))
        if e.name == "memo" and e.ok and e.args.get("action") == "write":
            return  # its MemoWritten line says it, once
        if e.name == "todo" and e.ok and e.args.get("action") != "list":
            self._todo_block(e)
            return
        nested = nests(e.name)
        detail = "" if nested else e.detail
        indent, marker, name, arg, outcome = call_parts(e.agent, e.name, detail, e.ok, e.summary)
        self.log.line(
            self.log.styled(
                (indent, ""),
                (marker, "green" if e.ok else "red"),
                (f" {name}", "bold"),
                (f" {arg}" if arg else "", ""),
                (f" — {outcome}" if outcome else "", "dim" if e.ok else "red"),
            ),
            kind="tool",
        )
        if not nested and e.output:
            self.outputs.append((call_line(e.agent, e.name, detail, e.ok, e.summary), e.output))
            del self.outputs[:-KEPT_OUTPUTS]
        shown = preview_key(e.agent, e.name, e.args) in self.previewed
        self.previewed.discard(preview_key(e.agent, e.name, e.args))
        if e.diff and e.ok and not shown:
            for line in diff_excerpt(e.diff, DIFF_LINES):
                style = {"+": "green", "-": "red"}.get(line[:1], "dim")
                self.log.line(self.log.styled((indent + "  ", ""), (line, style)), kind="tool")
        elif not nested and (e.name == "bash" or not e.ok):
            width = max(20, self.log.console.width - len(indent) - 3)
            excerpt, more = output_tail(e.output, OUTPUT_LINES)
            excerpt = [ln for ln in excerpt if not _restates(ln, e.summary)]
            for line in excerpt:
                self.log.line(
                    self.log.styled((indent + "  ", ""), (fit_line(line, width), "dim")),
                    kind="tool",
                )
            if more:
                self.log.line(
                    self.log.styled(
                        (indent + "  ", ""), (f"… {more} more lines above (/show)", "dim italic")
                    ),
                    kind="tool",
                )

    def _todo_block(self, e: ev.ToolCallFinished) -> None:
        """The plan changed: drawn whole, compact, the step in progress highlighted."""
        indent = "    " if is_nested(e.agent) else ""
        self.log.line(
            self.log.styled((indent, ""), ("todo ", "cyan"), (e.summary, "dim")), kind="tool"
        )
        width = max(20, self.log.console.width - len(indent) - 3)
        for line in e.output.splitlines()[:TODO_LINES]:
            style = "bold" if line.startswith("[~]") else ("dim" if line.startswith("[x]") else "")
            self.log.line(
                self.log.styled((indent + "  ", ""), (fit_line(line, width), style)), kind="tool"
            )

    def memo(self, e: ev.MemoWritten) -> None:
        indent = "    " if is_nested(e.agent) else ""
        self.log.line(
            self.log.styled(
                (indent, ""), ("memo ", "cyan"), (e.key, "bold cyan"), (f" — {e.summary}", "dim")
            ),
            kind="tool",
        )

    def end_run(self) -> None:
        self._args.clear()
        self.previewed.clear()

    handlers: dict[type, Callable[[ToolCalls, Any], None]] = {
        ev.ToolCallStarted: started,
        ev.ToolCallArgsDelta: args_delta,
        ev.ToolCallRunning: running,
        ev.ToolCallFinished: finished,
        ev.MemoWritten: memo,
    }


def _restates(line: str, summary: str) -> bool:
    """An output line that only says again what the finished line says: an error's message,
    or the feedback of a declined call (`declined: why`, which the model reads as "The user
    declined this bash call: why")."""
    said = line.removeprefix("Error: ").strip()
    reason = summary.removeprefix("declined: ")
    return said == summary or (reason != summary and said.endswith(f" call: {reason}"))

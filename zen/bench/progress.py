"""Progress on stderr in the shell's log style: a line per finished run, printed once, and one
live line (`[3/26] add-test · single · 41s`) redrawn in place while a run goes. No live line
when stderr is not a terminal: plain lines only."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any, TextIO

from zen.base.terminal_safe import terminal_safe
from zen.ui.format import tokens as short_tokens
from zen.ui.live_line import LiveLine
from zen.ui.term import detect, make_console


class Progress:
    def __init__(self, total: int, err: TextIO | None = None) -> None:
        self.err = err or sys.stderr
        caps = detect(self.err)
        self.live = LiveLine(make_console(caps, file=self.err), caps)
        self.total = total
        self.done = 0
        self._what = ""
        self._started = time.monotonic()
        self._ticker: asyncio.Task[None] | None = None

    def say(self, line: str) -> None:
        """A finished line, above the live one."""
        self.live.erase()
        print(terminal_safe(line), file=self.err, flush=True)
        self.live.redraw_soon()

    def start(self, task: str, mode: str) -> None:
        self._what = f"{task} · {mode}"
        self._started = time.monotonic()
        self.live.set("run", self._text)
        if self._ticker is None and self.live.caps.live:
            self._ticker = asyncio.ensure_future(self._tick())

    def finish(self, row: dict[str, Any]) -> None:
        self.done += 1
        self.live.drop("run")
        self.say(finished_line(row))

    def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            self._ticker = None
        self.live.drop()

    def _text(self) -> str:
        seconds = time.monotonic() - self._started
        return f"[{self.done + 1}/{self.total}] {self._what} · {seconds:.0f}s"

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self.live.set("run", self._text)


def finished_line(row: dict[str, Any]) -> str:
    """`✓ one-line-edit · single — 3 turns, 2.1k tokens, 14s`."""
    spent = sum(row["total_tokens"].values())
    facts = [
        f"{row['turns']} turn{'' if row['turns'] == 1 else 's'}",
        f"{short_tokens(spent)} tokens",
        f"{row['seconds']:.0f}s",
    ]
    if row["check"] == "error":
        marker, facts = "!", [f"check error: {row['check_output']}", *facts]
    elif row["solved"]:
        marker = "✓"
    else:
        marker = "✗"
        if row["ended"] != "answer":
            facts.insert(0, row["ended"] + (f" ({row['error']})" if row["error"] else ""))
    return f"{marker} {row['task']} · {row['mode']} — {', '.join(facts)}"

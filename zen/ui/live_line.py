"""The log view's one live line: what is in progress, rewritten in place, never wrapped.

It is rewritten with `\\r` + erase-line (or spaces where the console has no VT sequences), cut
to width-1 so it never wraps, and erased before anything finished is printed. Updates are
throttled (30 per second); a skipped update is drawn by a timer on the running event loop, so
the line is never left stale.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from zen.ui.cells import cell_len, fit_line
from zen.ui.term import Caps

if TYPE_CHECKING:
    from rich.console import Console

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

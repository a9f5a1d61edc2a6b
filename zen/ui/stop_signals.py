"""SIGTERM and SIGHUP (POSIX), Ctrl-Break and the console closing (Windows) end zen the way
Ctrl-C does.

`timeout 3 zen -p ...`, a closed terminal, `docker stop` or systemd send SIGTERM or SIGHUP,
whose default action kills zen on the spot: the bash tool's process tree and the MCP servers
were left running under PID 1. Instead, the first such signal cancels the run like Ctrl-C (the
bash tool kills its tree, every open tool call gets its result, MCP servers are stopped on the
way out) and zen exits with 128 + the signal's number (143, 129). Later signals are ignored
while that cleanup runs; it is bounded by the tools' own deadlines.

A signal that zen was started with ignored stays ignored: `nohup zen -p ... &` must survive
the terminal closing (Python keeps an inherited SIG_IGN for SIGINT the same way).

Windows has no such signals: a console control handler (SetConsoleCtrlHandler) gets
Ctrl-Break, the window closing, logoff and shutdown, on a thread of its own. Windows ends the
process as soon as the handler returns from the last three, so the handler waits (at most
`CLOSE_GRACE`, under the ~5 s Windows allows) until zen has cleaned up. Ctrl-C is left to
Python's own handler.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from collections.abc import Callable
from typing import Any

from zen.base import exits

NAMES = ("SIGTERM", "SIGHUP")
CTRL_BREAK_EVENT = 1
CONSOLE_EVENTS = {
    CTRL_BREAK_EVENT: ("Ctrl-Break", exits.BREAK),
    2: ("the console window closing", exits.HANGUP),  # CTRL_CLOSE_EVENT
    5: ("logoff", exits.TERMINATED),  # CTRL_LOGOFF_EVENT
    6: ("shutdown", exits.TERMINATED),  # CTRL_SHUTDOWN_EVENT
}
"""Windows console control events: what the stop message calls them and the exit code."""
CLOSE_GRACE = 4.5
"""Seconds the close/logoff/shutdown handler holds Windows back while zen cleans up."""

_callbacks: list[Any] = []
"""Console handlers ever registered: a handler thread may still run one after removal."""


class StopSignals:
    """Install with a callback that cancels the run; `received` says which signal came."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.name = ""
        """What stopped zen, for its last message (`SIGTERM`, `Ctrl-Break`)."""
        self._code = exits.INTERRUPTED
        self._installed: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._console: Any = None
        self._cleaned = threading.Event()

    def install(self, on_stop: Callable[[], object]) -> None:
        loop = asyncio.get_running_loop()
        self._loop = loop
        for name in NAMES:
            signum = getattr(signal, name, None)
            if signum is None or signal.getsignal(signum) == signal.SIG_IGN:
                continue
            try:
                loop.add_signal_handler(signum, self._handle, int(signum), on_stop)
            except (NotImplementedError, RuntimeError, ValueError):  # Windows, not main thread
                continue
            self._installed.append(int(signum))
        if sys.platform == "win32":
            self._install_console_handler(loop, on_stop)

    def remove(self) -> None:
        self._cleaned.set()  # a waiting close handler may now let Windows end the process
        if self._console is not None:
            kernel32, callback = self._console
            kernel32.SetConsoleCtrlHandler(callback, False)
            self._console = None
        if self._loop is None or self._loop.is_closed():
            return
        for signum in self._installed:
            self._loop.remove_signal_handler(signum)
        self._installed.clear()

    def _handle(self, signum: int, on_stop: Callable[[], object]) -> None:
        if self.received is not None:
            return
        self.received = signum
        self.name = signal.Signals(signum).name
        self._code = exits.for_signal(signum)
        on_stop()

    def console_event(
        self, event: int, loop: asyncio.AbstractEventLoop, on_stop: Callable[[], None]
    ) -> bool:
        """The console control handler (a Windows thread calls it): True when handled."""
        if event not in CONSOLE_EVENTS:
            return False  # Ctrl-C: Python's own handler raises KeyboardInterrupt
        if self.received is None:
            self.received = event
            self.name, self._code = CONSOLE_EVENTS[event]
            try:
                loop.call_soon_threadsafe(on_stop)
            except RuntimeError:  # the loop is closed: zen is on its way out already
                pass
        if event != CTRL_BREAK_EVENT:
            self._cleaned.wait(CLOSE_GRACE)
        return True

    def _install_console_handler(
        self, loop: asyncio.AbstractEventLoop, on_stop: Callable[[], None]
    ) -> None:
        try:
            import ctypes
            from ctypes import wintypes

            kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
            routine = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.DWORD)  # type: ignore[attr-defined]
            callback = routine(lambda event: self.console_event(int(event), loop, on_stop))
            _callbacks.append(callback)
            if kernel32.SetConsoleCtrlHandler(callback, True):
                self._console = (kernel32, callback)
        except (OSError, AttributeError):  # no console API: nothing to handle
            pass

    @property
    def exit_code(self) -> int:
        return self._code if self.received is not None else exits.INTERRUPTED

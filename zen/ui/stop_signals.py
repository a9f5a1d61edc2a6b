"""SIGTERM and SIGHUP end zen the way Ctrl-C does.

`timeout 3 zen -p ...`, a closed terminal, `docker stop` or systemd send SIGTERM or SIGHUP,
whose default action kills zen on the spot: the bash tool's process tree and the MCP servers
were left running under PID 1. Instead, the first such signal cancels the run like Ctrl-C (the
bash tool kills its tree, every open tool call gets its result, MCP servers are stopped on the
way out) and zen exits with 128 + the signal's number (143, 129). Later signals are ignored
while that cleanup runs; it is bounded by the tools' own deadlines.

A signal that zen was started with ignored stays ignored: `nohup zen -p ... &` must survive
the terminal closing (Python keeps an inherited SIG_IGN for SIGINT the same way).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable

from zen import exits

NAMES = ("SIGTERM", "SIGHUP")


class StopSignals:
    """Install with a callback that cancels the run; `received` says which signal came."""

    def __init__(self) -> None:
        self.received: int | None = None
        self._installed: list[int] = []
        self._loop: asyncio.AbstractEventLoop | None = None

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

    def remove(self) -> None:
        if self._loop is None or self._loop.is_closed():
            return
        for signum in self._installed:
            self._loop.remove_signal_handler(signum)
        self._installed.clear()

    def _handle(self, signum: int, on_stop: Callable[[], object]) -> None:
        if self.received is not None:
            return
        self.received = signum
        on_stop()

    @property
    def name(self) -> str:
        return signal.Signals(self.received).name if self.received else ""

    @property
    def exit_code(self) -> int:
        return exits.for_signal(self.received) if self.received else exits.INTERRUPTED

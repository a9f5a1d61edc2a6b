"""Ending a command and everything it started, on every platform.

The bash and git tools start each command in its own session (POSIX) or process group
(Windows), so a timeout or a cancelled call can end the whole tree, not just the shell.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess


def kill_tree(proc: asyncio.subprocess.Process) -> None:
    """Kill the process and everything it started, even after the leader itself has exited
    (a background job may still run). Synchronous, so a cancellation cannot interrupt it."""
    if os.name == "nt":
        subprocess.run(
            ["taskkill", "/T", "/F", "/PID", str(proc.pid)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    else:
        import signal

        # The session's process group outlives its leader while any member lives.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()

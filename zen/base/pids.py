"""Is a process still running? Asked without touching it, on every OS.

`os.kill(pid, 0)` is the POSIX idiom, but on Windows `os.kill` with any signal other than
CTRL_C_EVENT / CTRL_BREAK_EVENT calls TerminateProcess: asking would kill the other zen. Windows
asks the process handle for its exit code instead.
"""

from __future__ import annotations

import os
import sys

_STILL_ACTIVE = 259
_QUERY_LIMITED_INFORMATION = 0x1000
_ACCESS_DENIED = 5


def pid_alive(pid: int) -> bool:
    """True while `pid` runs (or exists but belongs to someone we may not ask)."""
    if pid <= 0:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":
        return _alive_win32(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: exists, owned by someone else
        return True
    return True


if sys.platform == "win32":  # checkers read the Windows-only API only there

    def _alive_win32(pid: int) -> bool:
        import _winapi

        try:
            handle = _winapi.OpenProcess(_QUERY_LIMITED_INFORMATION, False, pid)
        except OSError as exc:
            return getattr(exc, "winerror", None) == _ACCESS_DENIED
        try:
            return bool(_winapi.GetExitCodeProcess(handle) == _STILL_ACTIVE)
        except OSError:
            return True
        finally:
            _winapi.CloseHandle(handle)

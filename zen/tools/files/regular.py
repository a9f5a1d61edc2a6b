"""The file a file tool works on (`Target`), the error it reports (`FileError`), and opening
it safely: only regular files, checked so a FIFO, a device or a swapped-in symlink can neither
block a tool nor redirect it, with Windows' brief sharing violations waited out.

Expected failures raise `FileError`; each tool turns it into `ToolResult.error` at its edge, so
the helpers stay plain functions and the messages stay in one place.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class FileError(Exception):
    """An expected failure whose message the model reads and acts on."""


@dataclass(frozen=True)
class Target:
    """A confined file: its real path, and the path as the user and model see it."""

    path: Path
    shown: str


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def regular_stat(t: Target) -> os.stat_result:
    """The file's stat, if it is a regular file; checked without opening it.

    Opening a FIFO for reading blocks until a writer comes, and reading /dev/zero never ends:
    file tools only touch regular files. `t.path` is already resolved, so a symlink inside the
    workspace that points at a device is judged by what it points at.
    """
    try:
        st = os.stat(t.path)
    except FileNotFoundError:
        raise FileError(f"{t.shown} does not exist") from None
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise FileError(f"{t.shown} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise FileError(
            f"{t.shown} is {kind_of(st.st_mode)}, not a regular file; file tools only read and "
            "write regular files"
        )
    return st


def open_regular(t: Target, flags: int = os.O_RDONLY) -> int:
    """An fd on the regular file `t`, opened so a file swapped for a FIFO or a symlink since
    the check can neither block nor redirect it (O_NONBLOCK, O_NOFOLLOW, then fstat)."""
    extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= extra | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = retry_busy(os.open, t.path, flags)
    except OSError as exc:
        reason = IN_USE if busy(exc) else exc.strerror or exc
        raise FileError(f"cannot open {t.shown}: {reason}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FileError(f"{t.shown} is {kind_of(st.st_mode)}, not a regular file")
    if extra & getattr(os, "O_NONBLOCK", 0):
        os.set_blocking(fd, True)
    return fd


BUSY_WAITS = (0.05, 0.1, 0.2, 0.3, 0.4)
"""Seconds between tries while another program holds a file (about 1 s in all)."""
IN_USE = (
    "another program has it open (a sharing violation: an editor, antivirus or the indexer); "
    "close it or try again in a moment"
)
_BUSY_WINERRORS = (5, 32, 33)
"""ERROR_ACCESS_DENIED (a file pending delete), ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION."""


def busy(exc: OSError) -> bool:
    """A Windows file held by someone else for now: antivirus and indexers let go quickly."""
    return getattr(exc, "winerror", None) in _BUSY_WINERRORS


def retry_busy(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, tried again for about a second while the file is busy (Windows only:
    elsewhere `winerror` is never set). Called off the event loop: it sleeps."""
    import time

    for delay in BUSY_WAITS:
        try:
            return fn(*args)
        except PermissionError as exc:
            if not busy(exc):
                raise
            time.sleep(delay)
    return fn(*args)

"""Reading a file's content and making text of it: size-limited reads, binary and UTF-8
checks, newline styles, line counts, and the worker thread blocking reads run in.

An edit refuses what is not UTF-8 text (it could corrupt it); display and diffs decode loosely.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, TypeVar

import anyio.to_thread

from zen.tools.files.regular import FileError, Target, open_regular, regular_stat

BINARY_PROBE = 8192
"""Bytes checked for a NUL: what git and grep look at to call a file binary."""
T = TypeVar("T")


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_PROBE]


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Run blocking file work in a worker thread the caller can walk away from.

    A read that blocks anyway (a network file system that stopped answering) must not freeze
    the event loop, or Ctrl-C and every deadline with it; on cancellation the thread is
    abandoned and its result dropped.
    """
    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


def read_existing(t: Target, limit: int | None = None, why: str = "") -> bytes:
    """The bytes of an existing regular file; above `limit` bytes a FileError ending in `why`.

    The size is checked before reading and the read stops at `limit`, so a file that grows
    meanwhile costs no more memory than the limit.
    """
    st = regular_stat(t)
    if limit is not None and st.st_size > limit:
        raise FileError(f"{t.shown} is {_mb(st.st_size)}, above the {_mb(limit)} limit{why}")
    fd = open_regular(t)
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None
    if limit is not None and len(data) > limit:
        raise FileError(f"{t.shown} is above the {_mb(limit)} limit{why}")
    return data


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def decode_strict(data: bytes, shown: str) -> str:
    """UTF-8 text for an edit; anything else is refused rather than silently corrupted."""
    if is_binary(data):
        raise FileError(f"{shown} is a binary file; edit-file only changes text files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileError(
            f"{shown} is not UTF-8 text; edit-file will not change it (that could corrupt it)"
        ) from None


def decode_loose(data: bytes) -> str:
    """Text for display and diffs, where a replacement character is harmless."""
    return data.decode("utf-8", errors="replace")


def newline_of(text: str) -> str:
    """The file's newline style: CRLF when most of its line ends are CRLF, else LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def with_newlines(text: str, newline: str) -> str:
    """`text` with every line end written as `newline`."""
    text = text.replace("\r\n", "\n")
    return text.replace("\n", newline) if newline != "\n" else text


def count_lines(text: str) -> int:
    """Lines as `wc -l` counts them, plus a last line without a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)

"""One line of `grep`'s output, and the pure-Python search of one file that finds them.

Both backends (ripgrep's JSON, this search) produce `Line`s for the same collector; `Stop` is
how the collector says it is full.
"""

from __future__ import annotations

import os
import re
import stat
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from zen.tools.files.text import BINARY_PROBE

RG_LINE_LIMIT = 2**22
"""Bytes of one line (a ripgrep JSON line, a searched file's line); a match in a longer line is
skipped rather than held."""


@dataclass(frozen=True)
class Line:
    path: Path
    number: int
    text: str
    is_match: bool


class Stop(Exception):
    """Raised by the collector when the cap is reached."""


READ_CHUNK = 1 << 16
_OPEN_FLAGS = (
    getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
"""Never wait on a FIFO, never leak the fd to a child, never translate line ends (Windows)."""


def search_file(path: Path, regex: re.Pattern[str], context: int) -> Iterator[Line]:
    """Matches in one file, streamed: memory stays at one line plus `context` lines, and a
    file swapped for a FIFO since the walk is neither waited on nor read."""
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except OSError:
        return
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        if _OPEN_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        head = f.read(BINARY_PROBE)
        if b"\0" in head:
            return  # binary, as ripgrep decides
        f.seek(0)
        before: deque[tuple[int, str]] = deque(maxlen=context)
        after = 0
        last_shown = 0
        for number, raw in enumerate(_bounded_lines(f), 1):
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8", "replace")
            text = text.removesuffix("\n").removesuffix("\r")  # `$` matches CRLF lines too
            if regex.search(text):
                for n, held in before:
                    if n > last_shown:
                        yield Line(path, n, held, False)
                before.clear()
                yield Line(path, number, text, True)
                last_shown, after = number, context
            elif after:
                yield Line(path, number, text, False)
                last_shown, after = number, after - 1
            elif context:
                before.append((number, text))


def _bounded_lines(f: BinaryIO) -> Iterator[bytes]:
    """Lines of at most RG_LINE_LIMIT bytes; the rest of a longer line is skipped."""
    while line := f.readline(RG_LINE_LIMIT):
        if not line.endswith(b"\n"):
            while rest := f.readline(READ_CHUNK):
                if rest.endswith(b"\n"):
                    break
        yield line

"""A file the text protocol cannot attach, named so the model knows it is there and can look.

A model without tools sees only what comes with the task. A named data file too large to
attach used to be one name in a list, and a small model answered questions about it with a
guess. Now it gets the file's size, its number of lines (counted up to `COUNT_BYTES`: a
1.5B model asked for a CSV's rows still guessed when it had to run `wc -l` itself) and first
lines (at most `PEEK_LINES` lines, `PEEK_BYTES` bytes), and the prompt's ```bash example shows
how to read more. A binary file is named with
its size only. Reads are confined like a read-file call (`target`), and bounded.
"""

from __future__ import annotations

import os
from typing import BinaryIO

from zen.agent.protocols.block_files import FILE_LIMIT
from zen.tools.base import ToolContext
from zen.tools.files.regular import FileError, open_regular, regular_stat
from zen.tools.files.targets import target
from zen.tools.files.text import is_binary

PEEK_LINES = 10
PEEK_BYTES = 1_000
"""Bytes of a file's start shown, at most (a long first line is cut)."""
COUNT_BYTES = 8_000_000
"""Bytes read to count a file's lines, at most; past it the count says "more than"."""
PEEKED = 4
"""Files peeked into per message; more are only named."""
LOOK = "a ```bash block can read more of it (head, grep, wc)"


def peeks(ctx: ToolContext, names: list[str]) -> list[str]:
    """One note per file: size and first lines, or size alone (binary), or just its name (one
    past `PEEKED`, or one that cannot be read). Runs in a worker thread: it reads."""
    notes = [peek(ctx, name) for name in names[:PEEKED]]
    rest = names[PEEKED:]
    if rest:
        notes.append(f"(not shown, too large: {', '.join(rest)})")
    return notes


def peek(ctx: ToolContext, name: str) -> str:
    try:
        t = target(ctx, name)
        size = regular_stat(t).st_size
        fd = open_regular(t)
        with os.fdopen(fd, "rb") as f:
            head = f.read(PEEK_BYTES)
            if not is_binary(head):
                f.seek(0)
                counted = _count_lines(f)
    except (FileError, OSError):
        return f"(not shown: {name})"
    if is_binary(head):
        return f"{t.shown} ({size:,} bytes) is binary: not shown."
    text = head.decode("utf-8", "replace")
    lines = text.splitlines()[:PEEK_LINES]
    if len(head) == PEEK_BYTES and len(lines) < PEEK_LINES and lines:
        lines[-1] += " …"  # cut inside a line
    body = "\n".join(lines)
    fence = "`" * max(3, _longest_run(body) + 1)
    why = "is too large to show" if size > FILE_LIMIT else "is not UTF-8 text"
    return (
        f"{t.shown} {why} ({size:,} bytes, {counted} lines); its first {len(lines)} lines "
        f"({LOOK}):\n{fence}\n{body}\n{fence}"
    )


def _count_lines(f: BinaryIO) -> str:
    """`1,238`, or `more than 95,000` when the file goes on past `COUNT_BYTES`; a last line
    without a newline counts, as an editor counts it."""
    count = read = 0
    last = b"\n"
    while read < COUNT_BYTES:
        chunk = f.read(min(1 << 20, COUNT_BYTES - read))
        if not chunk:
            break
        count += chunk.count(b"\n")
        read += len(chunk)
        last = chunk[-1:]
    else:
        if f.read(1):
            return f"more than {count:,}"
    unended = int(last != b"\n")
    return f"{count + unended:,}"


def _longest_run(text: str) -> int:
    """The longest run of backticks in `text`: the fence must be longer."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return longest

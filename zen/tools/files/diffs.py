"""The diff a file tool shows for a change: git-style unified text with its `+N -M` counts,
computed on the changed window only, so editing a few lines of a large file stays cheap.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Diff:
    text: str
    added: int
    removed: int

    @property
    def stat(self) -> str:
        return f"+{self.added} -{self.removed}"


def unified_diff(before: str, after: str, shown: str, context: int = 3) -> Diff:
    """A git-style diff of two texts, newline style ignored, with its `+N -M` counts.

    Only the part that differs (plus context) is split into lines and given to difflib: an
    edit of a 10 MB file changes a few lines, and splitting it all would cost most of the
    edit's time and memory.
    """
    a, b = before.replace("\r\n", "\n"), after.replace("\r\n", "\n")
    start, a_end, b_end = _changed_window(a, b, context)
    lines = list(
        difflib.unified_diff(
            _split(a[start:a_end]),
            _split(b[start:b_end]),
            f"a/{shown}",
            f"b/{shown}",
            n=context,
        )
    )
    offset = a.count("\n", 0, start)
    if offset:
        lines[2:] = [_shift(line, offset) if line.startswith("@@") else line for line in lines[2:]]
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return Diff(text, added, removed)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_CHUNK = 1 << 15


def _shift(header: str, by: int) -> str:
    m = _HUNK.match(header)
    if not m:
        return header
    old, new = int(m[1]) + by, int(m[3]) + by
    return f"@@ -{old}{m[2] or ''} +{new}{m[4] or ''} @@" + header[m.end() :]


def _changed_window(a: str, b: str, context: int) -> tuple[int, int, int]:
    """(start, end in a, end in b): whole lines around where a and b differ, with `context`
    equal lines either side; what lies outside is equal in both."""
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix : prefix + _CHUNK] == b[prefix : prefix + _CHUNK]:
        prefix += _CHUNK
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    prefix = min(prefix, limit)
    room = limit - prefix  # the common suffix may not overlap the common prefix
    suffix = 0
    while suffix + _CHUNK <= room and (
        a[len(a) - suffix - _CHUNK : len(a) - suffix]
        == b[len(b) - suffix - _CHUNK : len(b) - suffix]
    ):
        suffix += _CHUNK
    while suffix < room and a[len(a) - suffix - 1] == b[len(b) - suffix - 1]:
        suffix += 1
    start = a.rfind("\n", 0, prefix) + 1
    for _ in range(context):
        if start == 0:
            break
        start = a.rfind("\n", 0, start - 1) + 1
    end = len(a) - suffix
    for _ in range(context + 1):
        nl = a.find("\n", end)
        if nl < 0:
            end = len(a)
            break
        end = nl + 1
    cut = len(a) - end
    return start, end, len(b) - cut


def _split(text: str) -> list[str]:
    """Lines with their `\\n`, split on `\\n` only (str.splitlines also splits on \\f, \\x1c…)."""
    parts = text.replace("\r\n", "\n").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines

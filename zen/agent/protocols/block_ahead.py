"""What lies ahead of each line of a model's answer, found in one pass.

The edit-block parser asks, at every fence, where it closes and whether a SEARCH marker follows.
Scanning the rest of the answer at every fence made an answer of unclosed fences quadratic
(79 KB took 40 s, 1 MB hours, and neither a deadline nor Ctrl-C fired meanwhile); here each
question is a binary search over lines found once.
"""

from __future__ import annotations

import re
from bisect import bisect_left


class Ahead:
    """The lines of `lines` matching each of `marks`, and those that can close a fence."""

    def __init__(self, lines: list[str], marks: dict[str, re.Pattern[str]], sign: str) -> None:
        """`sign`: what every line a mark matches holds (a cheap test first)."""
        self._marked: dict[str, list[int]] = {name: [] for name in marks}
        self._fences: dict[str, list[int]] = {"`": [], "~": []}
        """Lines that are only a fence's character, by character, and their lengths."""
        self._sizes: dict[str, list[int]] = {"`": [], "~": []}
        for i, line in enumerate(lines):
            if sign in line:
                for name, mark in marks.items():
                    if mark.match(line):
                        self._marked[name].append(i)
            elif "`" in line or "~" in line:
                bare = line.strip()
                if bare[0] in "`~" and not bare.strip(bare[0]):
                    self._fences[bare[0]].append(i)
                    self._sizes[bare[0]].append(len(bare))
        self._longer = {c: _next_larger(sizes) for c, sizes in self._sizes.items()}

    def next(self, mark: str, start: int) -> int | None:
        """The first line from `start` matching the mark named `mark`."""
        at = self._marked[mark]
        k = bisect_left(at, start)
        return at[k] if k < len(at) else None

    def closing(self, start: int, fence: str) -> int | None:
        """The first line from `start` closing a fence opened with `fence`: the same character,
        at least as many. The walk skips to ever longer lines, all shorter than `fence`, so it
        takes fewer steps than `fence` has characters."""
        at, sizes, longer = self._fences[fence[0]], self._sizes[fence[0]], self._longer[fence[0]]
        k = bisect_left(at, start)
        while k < len(at) and sizes[k] < len(fence):
            k = longer[k]
        return at[k] if k < len(at) else None


def _next_larger(sizes: list[int]) -> list[int]:
    """For each item, the index of the next larger one (len(sizes) when none is)."""
    found = [len(sizes)] * len(sizes)
    stack: list[int] = []
    for k in range(len(sizes) - 1, -1, -1):
        while stack and sizes[stack[-1]] <= sizes[k]:
            stack.pop()
        found[k] = stack[-1] if stack else len(sizes)
        stack.append(k)
    return found

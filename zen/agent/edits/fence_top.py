"""A stray divider at the top of a whole file: models mixing the two answer formats write
`=======` (the SEARCH/REPLACE divider) before the new file. It is dropped, unless it may be
the file's own: the file (or the rest of the block) holds such a line, as an .rst title's
overline and underline do."""

from __future__ import annotations

import re

DIVIDER = re.compile(r"^\s*={5,9}\s*$")
"""The SEARCH/REPLACE divider line (the edit-block parser splits blocks on it)."""


def without_stray_divider(content: str, original: str | None) -> str:
    """`content` without the divider lines opening it, when they cannot be the file's own;
    `original`: the file's text now (None: a new file)."""
    lines = content.split("\n")
    top = 0
    while top < len(lines) and DIVIDER.match(lines[top]):
        top += 1
    if top == 0 or top == len(lines):
        return content
    if any(DIVIDER.match(line) for line in lines[top:]):
        return content  # an overline with its underline: the file's own
    if original is not None and any(DIVIDER.match(x) for x in original.splitlines()):
        return content
    return "\n".join(lines[top:])

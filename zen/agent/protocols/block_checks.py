"""Whether a whole-file block is the whole file: a model that writes `# ... rest unchanged`
or sends one function as "the file" would delete code if the block were written as it is."""

from __future__ import annotations

import re

_OMISSION = re.compile(
    r"\s*(?:(?:#|//|/\*|<!--|--|;|\*)\s*)?(?:(?:\.\.\.|…)\s*)?(?:\(\s*)?"
    r"(?:rest of|the rest|existing|remaining|other|previous|unchanged)\b.*"
    r"\b(?:code|file|functions?|methods?|lines?|unchanged|same|here)\b",
    re.I,
)
_DOTS = re.compile(r"\s*(?:(?:#|//|/\*|<!--|--|;)\s*)?(?:\.\.\.|…)\s*(?:(?:\*/|-->)\s*)?$")
"""No two space matchers in a row: a line of 200 spaces took 20 s, trying every way of
splitting the spaces between them."""
_DEFINITION = re.compile(r"^(?:async\s+def|def|class|function|func|fn)\s+([A-Za-z_]\w*)", re.M)


def omissions(old: str, new: str) -> list[str]:
    """Lines of a whole-file block that stand for code left out (`# ... rest unchanged`), and
    that the file does not already hold: writing them would delete that code."""
    have = {line.strip() for line in old.splitlines()}
    return [
        line.strip()
        for line in new.splitlines()
        if (_OMISSION.match(line) or _DOTS.match(line)) and line.strip() not in have
    ]


def lost_definitions(old: str, new: str) -> list[str]:
    """Top-level functions and classes of the file that a whole-file block no longer names at
    all: a model that sends one function as "the file" would delete the others."""
    kept = set(re.findall(r"[A-Za-z_]\w*", new))
    return [name for name in dict.fromkeys(_DEFINITION.findall(old)) if name not in kept]

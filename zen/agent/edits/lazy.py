"""Lazy placeholders: a line that stands for code the model left out (`# ... rest of code`,
`// existing code here`). Written as it is, it deletes that code, so such a line is never
written unless the original already holds it. `...` and `pass` alone are code (a stub, a
Protocol's body), never placeholders: only comments, or a line opening with `...`, count.

Every pattern is anchored and has no two space matchers in a row: a line of 200 spaces once
took 20 s, trying every way of splitting them."""

from __future__ import annotations

import re

_COMMENT = r"(?:#|//|/\*|<!--|--|;|\{/\*)"
_PHRASE = re.compile(
    r"\s*(?:" + _COMMENT + r"\s*(?:(?:\.\.\.|…)\s*)?|(?:\.\.\.|…)\s*)(?:\(\s*|\[\s*)?"
    r"(?:(?:rest of|the rest|existing|remaining|other|previous|unchanged)\b.*"
    r"\b(?:code|file|class|functions?|methods?|lines?|unchanged|implementation)\b"
    r"|same as (?:before|above|the original)|rest (?:is )?unchanged)",
    re.I,
)
"""A comment (or a line opening with `...`) in the words models use for code left out."""
_DOTS = re.compile(r"\s*" + _COMMENT + r"\s*(?:\.\.\.|…)\s*(?:(?:\*/|-->|\*/\})\s*)?")
"""A comment holding only `...`."""


def is_placeholder(line: str) -> bool:
    """`line` stands for code left out."""
    return bool(_PHRASE.match(line) or _DOTS.fullmatch(line))


def placeholders(original: str, new: str) -> list[str]:
    """The lines of `new` that stand for code left out and that `original` does not already
    hold: writing `new` would delete what they stand for."""
    have = {line.strip() for line in original.splitlines()}
    return [
        line.strip()
        for line in new.splitlines()
        if line.strip() not in have and is_placeholder(line)
    ]


def refusal(shown: str, found: list[str]) -> str:
    """What the model reads when its block holds a placeholder."""
    return (
        f"Error: the block for {shown} stands for code it leaves out ({found[0]!r}); zen writes "
        "what you send, so that code would be deleted. Write the code itself (or send only "
        "the functions you change, or SEARCH/REPLACE blocks); `...` and `pass` are code"
    )

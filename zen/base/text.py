"""Text helpers: `clip`, the one way zen shortens a text, and `encodable`, the one way it
makes a text UTF-8 can carry."""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")


def clip(text: str, limit: int) -> str:
    """`text` itself when it has at most `limit` characters, else its start and `…`,
    `limit` characters in all. (Terminal lines, measured in cells, are `ui.cells.fit_line`'s.)"""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def encodable(text: str) -> str:
    """`text` without lone surrogates, which no UTF-8 (a JSON request, a terminal) can carry:
    each becomes U+FFFD. Those of undecodable bytes in a file name (surrogateescape) are
    decoded as the bytes they were, so one bad byte is one U+FFFD."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a surrogate that came from elsewhere (`\ud83d` in JSON)
        return _SURROGATE.sub(REPLACEMENT, text)


def encodable_in(value: Any) -> Any:
    """`value` (parsed JSON) with `encodable` applied to every string in it, keys too."""
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, list):
        return [encodable_in(v) for v in value]
    if isinstance(value, dict):
        return {encodable_in(k): encodable_in(v) for k, v in value.items()}
    return value

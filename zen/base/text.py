"""`clip`: the one way zen shortens a text to a number of characters."""

from __future__ import annotations


def clip(text: str, limit: int) -> str:
    """`text` itself when it has at most `limit` characters, else its start and `…`,
    `limit` characters in all. (Terminal lines, measured in cells, are `ui.cells.fit_line`'s.)"""
    return text if len(text) <= limit else text[: limit - 1] + "…"

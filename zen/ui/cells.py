"""How wide text is on a terminal, in cells, and cutting it to one line of a given width.

East Asian characters take two cells and combining marks none, so `len` is wrong as soon as
the text is not ASCII; rich's cell tables are imported only for such text.
"""

from __future__ import annotations

from zen.base.terminal_safe import terminal_safe


def cell_len(text: str) -> int:
    if text.isascii():
        return len(text)
    from rich.cells import cell_len as rich_cell_len

    return rich_cell_len(text)


def fit_line(text: str, cells: int, *, tail: bool = False) -> str:
    """One terminal line of at most `cells` cells: controls shown as placeholders, line breaks
    and tabs as spaces, cut with `…`."""
    text = terminal_safe(text).replace("\n", " ").replace("\t", " ")
    if cell_len(text) <= cells:
        return text
    if text.isascii():
        return "…" + text[-(cells - 1) :] if tail else text[: cells - 1] + "…"
    from rich.cells import get_character_cell_size

    out: list[str] = []
    used = 1
    for ch in reversed(text) if tail else text:
        size = get_character_cell_size(ch)
        if used + size > cells:
            break
        out.append(ch)
        used += size
    return "…" + "".join(reversed(out)) if tail else "".join(out) + "…"

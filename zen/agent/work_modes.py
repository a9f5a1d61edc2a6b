"""Work modes: a few lines of prompt that set how the agent works (seed 003).

`bug-fix`, `develop`, `explain` and `optimize` ship as markdown in `prompts/modes/`; a file of
the same name in `~/.zen/modes/` overrides one, and any other file there adds a mode. `explain`
is read-only: the agents it applies to lose every tool that writes or runs commands.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zen.base.paths import zen_home
from zen.settings.prompts import data_dir

if TYPE_CHECKING:
    from zen.tools.base import Tool

READ_ONLY = {"explain"}
"""Modes that take away every tool that writes (`Tool.writes`)."""


def available() -> list[str]:
    """Every mode: the shipped ones and the user's own."""
    names = {p.stem for p in (data_dir("prompts") / "modes").glob("*.md")}
    user = zen_home() / "modes"
    if user.is_dir():
        names |= {p.stem for p in user.glob("*.md")}
    return sorted(names)


def mode_prompt(name: str) -> str:
    """The mode's text: the user's file if there is one, else the shipped one."""
    for folder in (zen_home() / "modes", data_dir("prompts") / "modes"):
        path = folder / f"{name}.md"
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace").strip()
    raise ValueError(f"unknown work mode {name!r}; known: {', '.join(available())}")


def tools_for(name: str | None, tools: list[Tool]) -> list[Tool]:
    """The tools an agent holds in work mode `name`."""
    return [t for t in tools if not t.writes] if name in READ_ONLY else tools

"""Assemble a system prompt from the markdown layers in `prompts/`.

Layers, in order: the role's prompt (and its collaboration-mode variant), planning (when the
agent keeps todos), environment facts, git facts, the project's own instructions (`ZEN.md` or
`AGENTS.md`), then any extra files the config lists. The prompt is built once per agent and
never changes during a run, so providers' prefix caches keep hitting.
"""

from __future__ import annotations

import datetime
import platform
from dataclasses import dataclass
from pathlib import Path

from zen.prompts import load_prompt, render

PROJECT_FILES = ("ZEN.md", "AGENTS.md")


@dataclass(frozen=True)
class PromptFacts:
    """What every role's prompt states about the world; gathered once per session."""

    workspace: Path
    shell: str
    project: str = ""
    git: str = ""

    def environment(self) -> str:
        return render(
            load_prompt("environment"),
            os=f"{platform.system()} {platform.release()}",
            shell=self.shell,
            workspace=str(self.workspace),
            date=datetime.date.today().isoformat(),
        )


def project_instructions(workspace: Path, extra_files: list[str]) -> str:
    """`ZEN.md` (or else `AGENTS.md`) at the workspace root, then the configured extra files."""
    parts = []
    for name in PROJECT_FILES:
        path = workspace / name
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").strip()
            parts.append(render(load_prompt("project"), source=name, text=text))
            break
    for extra in extra_files:
        path = (workspace / Path(extra).expanduser()).resolve()
        if path.is_file():
            text = path.read_text(encoding="utf-8", errors="replace").strip()
            parts.append(render(load_prompt("project"), source=extra, text=text))
    return "\n\n".join(parts)


def system_prompt(
    role: str, facts: PromptFacts, *, variant: str = "", planning: bool = False
) -> str:
    layers = [load_prompt(role)]
    if variant:
        layers.append(load_prompt(f"{role}-{variant}"))
    if planning:
        layers.append(load_prompt("planning"))
    layers.append(facts.environment())
    if facts.git:
        layers.append(facts.git)
    if facts.project:
        layers.append(facts.project)
    return "\n\n".join(layers)

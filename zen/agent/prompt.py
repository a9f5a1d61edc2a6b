"""Assemble a system prompt from the markdown layers in `prompts/`, and the run's facts.

The system prompt holds only what is the same in every run of a role: its prompt (and its
collaboration-mode variant), the top agent's layer (work mode, skills), planning (when the
agent keeps todos). The facts of this run go in the agent's first message instead (see
`zen.base.preamble`), most stable first: the environment, the project's own instructions
(`ZEN.md`, else `AGENTS.md`, else `CLAUDE.md`, then any extra files the config lists), then
the git facts. Chat templates render the tool schemas after the system prompt, so a server's
prefix cache reuses system prompt and tools across runs, workspaces and days.

Those files come from the repository, so they are read like the file tools read: only when
they resolve (symlinks included) inside the workspace or an allowed root, only regular files,
and at most INSTRUCTIONS_LIMIT bytes each. A committed `AGENTS.md -> ~/.ssh/id_rsa` is refused.

Both are built once per agent and never change during a run, so providers' prefix caches
keep hitting.
"""

from __future__ import annotations

import datetime
import os
import platform
from dataclasses import dataclass, field
from pathlib import Path

from zen.base.paths import expand_user
from zen.base.warn import Warn
from zen.settings.prompts import load_prompt, render
from zen.tools.workspace import PathError, Workspace

PROJECT_FILES = ("ZEN.md", "AGENTS.md", "CLAUDE.md")
INSTRUCTIONS_LIMIT = 64 * 1024


@dataclass(frozen=True)
class PromptFacts:
    """What every role's prompt states about the world; gathered once per session."""

    workspace: Path
    shell: str
    project: str = ""
    git: str = ""
    os: str = field(default_factory=lambda: f"{platform.system()} {platform.release()}")
    date: str = field(default_factory=lambda: datetime.date.today().isoformat())

    def environment(self) -> str:
        return render(
            load_prompt("environment"),
            os=self.os,
            shell=self.shell,
            workspace=str(self.workspace),
            date=self.date,
        )

    def context(self, notes: str = "") -> str:
        """What an agent's first message starts with: this run's facts, most stable first
        (`notes`: the project notes offered to a new session)."""
        return "\n\n".join(filter(None, [self.environment(), self.project, self.git, notes]))


def project_instructions(
    workspace: Workspace,
    extra_files: list[str],
    warn: Warn = lambda _: None,
    *,
    confined: bool = True,
) -> str:
    """`ZEN.md` (else `AGENTS.md`, else `CLAUDE.md`) at the workspace root, then the
    configured extra files. `confined=False` (files the user's own config lists) lets an extra
    file lie anywhere; the project's instruction file is always confined."""
    parts = []
    for name in PROJECT_FILES:
        if not os.path.lexists(workspace.root / name):
            continue
        text = _read_instructions(workspace, name, warn, confined=True)
        if text is not None:
            parts.append(render(load_prompt("project"), source=name, text=text))
        break
    for extra in extra_files:
        text = _read_instructions(workspace, extra, warn, confined=confined)
        if text is not None:
            parts.append(render(load_prompt("project"), source=extra, text=text))
    return "\n\n".join(parts)


def _read_instructions(
    workspace: Workspace, name: str, warn: Warn, *, confined: bool
) -> str | None:
    """The file's text, or None with a warning saying why it was left out."""
    try:
        if confined:
            path = workspace.resolve(name)
        else:
            path = (workspace.root / expand_user(name)).resolve()
    except PathError as exc:
        warn(f"instructions {name} not used: {exc}")
        return None
    if not path.is_file():  # a folder, FIFO or device; a missing extra file says nothing
        if path.exists():
            warn(f"instructions {name} not used: not a regular file")
        return None
    try:
        with path.open("rb") as handle:
            data = handle.read(INSTRUCTIONS_LIMIT + 1)
    except OSError as exc:
        warn(f"instructions {name} not used: {exc.strerror}")
        return None
    if len(data) > INSTRUCTIONS_LIMIT:
        warn(
            f"instructions {name} is over {INSTRUCTIONS_LIMIT // 1024} KB; only the first "
            f"{INSTRUCTIONS_LIMIT // 1024} KB are used"
        )
        data = data[:INSTRUCTIONS_LIMIT]
    return data.decode("utf-8", errors="replace").strip()


def system_prompt(
    role: str,
    *,
    variant: str = "",
    planning: bool = False,
    top: str = "",
) -> str:
    """`top`: what only the agent the user talks to gets (its work mode, the skills list)."""
    layers = [load_prompt(role)]
    if variant:
        layers.append(load_prompt(f"{role}-{variant}"))
    if top:
        layers.append(top)
    if planning:
        layers.append(load_prompt("planning"))
    return "\n\n".join(layers)

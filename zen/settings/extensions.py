"""The user's own skills and commands: markdown files with a little YAML front matter.

- Skills (the Agent Skills format): `<dir>/<name>/SKILL.md` with `name` and `description`
  in its front matter, plus any files beside it. Only names and descriptions reach the system
  prompt; the body is loaded when the model asks (the `skill` tool) or the user types
  `/<name>`.
- Commands: `<dir>/<name>.md` becomes `/<name> [args]`; `$ARGUMENTS` in the body is replaced
  by what follows the name; front matter may give a `description`, a `model` and a `mode`.

User folders (`~/.zen/skills`, `~/.zen/commands`) always count; the project's (`.zen/...` and
Claude Code's `.claude/...`) only in a trusted workspace, since they steer the model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.base.bom import decode_text
from zen.base.paths import zen_home
from zen.settings.prompts import load_prompt, render

FILE_LIMIT = 256 * 1024
"""Bytes of one skill or command file read at most."""
COUNT_LIMIT = 200
"""Skills or commands read from one folder at most."""
NAME = re.compile(r"^[A-Za-z][\w-]{0,63}$")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)


@dataclass(frozen=True)
class Extension:
    """One skill or command."""

    name: str
    description: str
    body: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.path.parent


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """(front matter, body); no or unreadable front matter gives ({}, the whole text)."""
    match = _FRONT.match(text)
    if not match:
        return {}, text
    import yaml

    try:
        meta = yaml.safe_load(match[1])
    except yaml.YAMLError:
        return {}, text
    return (meta if isinstance(meta, dict) else {}), text[match.end() :]


def _read(path: Path) -> str | None:
    try:
        if not path.is_file():
            return None
        with path.open("rb") as handle:
            return decode_text(handle.read(FILE_LIMIT), "replace")
    except OSError:
        return None


def _folders(kind: str, workspace: Path, trusted: bool) -> list[Path]:
    """Where `kind` ("skills" or "commands") live, lowest priority first: a later folder's
    entry replaces an earlier one of the same name."""
    folders = [zen_home() / kind]
    if trusted:
        folders += [workspace / ".claude" / kind, workspace / ".zen" / kind]
    return folders


def load_skills(workspace: Path, trusted: bool) -> list[Extension]:
    found: dict[str, Extension] = {}
    for folder in _folders("skills", workspace, trusted):
        if not folder.is_dir():
            continue
        for skill_md in sorted(folder.glob("*/SKILL.md"))[:COUNT_LIMIT]:
            text = _read(skill_md)
            if text is None:
                continue
            meta, body = split_front_matter(text)
            name = str(meta.get("name") or skill_md.parent.name).strip()
            description = " ".join(str(meta.get("description") or "").split())
            if NAME.match(name) and description:
                found[name] = Extension(name, description[:300], body.strip(), skill_md, meta)
    return sorted(found.values(), key=lambda e: e.name)


def load_commands(workspace: Path, trusted: bool) -> list[Extension]:
    found: dict[str, Extension] = {}
    for folder in _folders("commands", workspace, trusted):
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.md"))[:COUNT_LIMIT]:
            text = _read(path)
            if text is None or not NAME.match(path.stem):
                continue
            meta, body = split_front_matter(text)
            description = " ".join(str(meta.get("description") or "").split())
            found[path.stem.lower()] = Extension(
                path.stem.lower(), description[:120], body.strip(), path, meta
            )
    return sorted(found.values(), key=lambda e: e.name)


def expand_command(command: Extension, arguments: str) -> str:
    """The command's body with `$ARGUMENTS` filled in (appended when the body has none)."""
    if "$ARGUMENTS" in command.body:
        return command.body.replace("$ARGUMENTS", arguments)
    return f"{command.body}\n\n{arguments}".strip() if arguments else command.body


def skills_index(skills: list[Extension]) -> str:
    """The system prompt's skills layer: one line per skill, nothing of the bodies."""
    if not skills:
        return ""
    lines = "\n".join(f"- {s.name}: {s.description}" for s in skills)
    return render(load_prompt("skills"), skills=lines)

"""Which workspace files a model on edit blocks sees, and showing them to it.

A model without tools cannot read: the files it needs come with the task. Those are the files
the task names (a path, or a file name found in the workspace), else the few files a cheap
search ranks first (the task's words, rarer words weigh more), and the files those import.
Everything is bounded: files walked, bytes read per file, characters shown in all, since
small models hold 4-32k tokens. Paths come from untrusted text, so each is resolved inside
the workspace like a file tool's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zen.agent.protocols.block_imports import imported
from zen.agent.protocols.block_search import searched
from zen.stores.read_tracker import stamp
from zen.tools.base import ToolContext
from zen.tools.files.regular import FileError
from zen.tools.files.targets import target
from zen.tools.files.text import decode_strict, is_binary, read_existing
from zen.tools.ignore import GitIgnore
from zen.tools.workspace import PathError, Workspace

FILES_BUDGET = 24_000
"""Characters of files shown with one message, at most (~6k tokens)."""
FILE_LIMIT = 16_000
"""Bytes of one file shown whole, at most; a larger file is named, not shown."""
WALK_LIMIT = 2_000
"""Files looked at, at most, to find a file name or rank files by the task's words."""
_TOKEN = re.compile(r"[\w@./\\-]+")
_ATTACHED = re.compile(r'<file path="([^"\n]*)">')
_CODE_SPAN = re.compile(r"`([^`\n]{1,300})`")
_MODULE = re.compile(r"(?<![\w./-])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?![\w/-])")


@dataclass(frozen=True)
class Seen:
    """A file as the model was shown it."""

    path: Path
    shown: str
    text: str
    stamp: tuple[int, int] | None
    """(mtime, size) taken before the text was read (for the read tracker)."""


def relevant(task: str, workspace: Workspace, skip: set[Path]) -> tuple[list[Path], list[str]]:
    """The files to show with `task` (named first, else searched), and the names of relevant
    files too large to show. Runs in a worker thread: it walks and reads."""
    files = _walk(workspace)
    named = _named(task, workspace, files)
    chosen = named or searched(task, files)
    chosen += imported(chosen, workspace, {path for path, _ in files})
    paths = [p for p in dict.fromkeys(chosen) if p not in skip]
    fits: list[Path] = []
    too_big: list[Path] = []
    for path in paths:
        try:
            size = path.stat().st_size
        except OSError:
            continue
        (fits if size <= FILE_LIMIT else too_big).append(path)
    return fits, [workspace.show(p) for p in too_big]


def named_files(task: str, workspace: Workspace) -> list[Path]:
    """The files `task` names (dual mode's triage). Runs in a worker thread: it walks."""
    return _named(task, workspace, _walk(workspace))


def attached_paths(text: str, workspace: Workspace) -> set[Path]:
    """Files already attached to a message (`@file` in the shell): shown, not again."""
    found = set()
    for name in _ATTACHED.findall(text):
        try:
            found.add(workspace.resolve(name))
        except PathError:
            continue
    return found


def attached_names(messages: list[dict[str, Any]]) -> set[str]:
    """The files a conversation's messages still hold as attachments (by shown path)."""
    return {
        name
        for m in messages
        if isinstance(m.get("content"), str)
        for name in _ATTACHED.findall(m["content"])
    }


def read_seen(ctx: ToolContext, path: Path) -> Seen | None:
    """The file's text as the model will see it, or None when it is not shown (binary,
    not UTF-8, too large, gone). Read as read-file reads: confined, regular files only."""
    try:
        t = target(ctx, str(path))
        before = stamp(t.path)
        data = read_existing(t, FILE_LIMIT)
        if is_binary(data):
            return None
        return Seen(t.path, t.shown, decode_strict(data, t.shown), before)
    except FileError:
        return None


def render(seen: list[Seen], too_big: list[str], notes: list[str] | None = None) -> str:
    """Files as the shell attaches an `@file` (compaction knows the form), within the budget;
    `notes` on files not attached (`block_peek`) after them."""
    parts: list[str] = []
    used = 0
    for s in seen:
        if used + len(s.text) > FILES_BUDGET:
            too_big = [*too_big, s.shown]
            continue
        used += len(s.text)
        body = s.text[:-1] if s.text.endswith("\n") else s.text
        parts.append(f'<file path="{s.shown}">\n{body}\n</file>')
    if too_big:
        parts.append(f"(not shown, too large: {', '.join(too_big)})")
    return "\n\n".join([*parts, *(notes or [])])


def _walk(workspace: Workspace) -> list[tuple[Path, str]]:
    files = []
    for path, rel in GitIgnore().walk(workspace.root):
        files.append((path, rel))
        if len(files) >= WALK_LIMIT:
            break
    return files


def _named(task: str, workspace: Workspace, files: list[tuple[Path, str]]) -> list[Path]:
    """Files the task names: a path from the workspace root, a file name found in it, or a
    Python module in a code span (`python -m unittest test_paging`)."""
    by_name: dict[str, list[Path]] = {}
    for path, rel in files:
        by_name.setdefault(rel.rsplit("/", 1)[-1], []).append(path)
    found: list[Path] = []
    for token in _TOKEN.findall(task) + _modules(task):
        word = token.lstrip("@").strip(".,;:!?)(]['\"`")
        if not word or ("." not in word and "/" not in word):
            continue
        try:
            path = workspace.resolve(word)
        except PathError:
            continue  # outside the workspace, a NUL: never shown
        if path.is_file():
            found.append(path)
        elif "/" not in word and len(by_name.get(word, [])) == 1:
            found.extend(by_name[word])
    return found


def _modules(task: str) -> list[str]:
    """The file names of the dotted Python names in the task's code spans: `test_paging` is
    test_paging.py, `app.db` is app/db.py (kept only if such a file exists)."""
    return [
        name.replace(".", "/") + ".py"
        for span in _CODE_SPAN.findall(task)
        for name in _MODULE.findall(span)
    ]

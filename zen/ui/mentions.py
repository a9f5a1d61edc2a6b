"""`@path` mentions: completing them at the prompt, attaching the files they name.

A mention is untrusted text naming a path: it is resolved inside the workspace (symlinks too),
and anything that is not a readable text file there stays in the message as typed, with a
note saying why.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prompt_toolkit.completion import Completer, Completion

from zen.base.terminal_safe import terminal_safe
from zen.tools.workspace import OutsideWorkspace, PathError, Workspace

if TYPE_CHECKING:
    from prompt_toolkit.document import Document

MENTION = re.compile(r"(?:(?<=\s)|^)@(\S+)")
TRAILING_PUNCTUATION = ".,;:!?)]}'\""
ATTACH_LIMIT = 100_000
"""Characters of one @file attached to a message, at most."""
COMPLETIONS = 200
"""Completions offered for one `@path`, at most."""


class ShellCompleter(Completer):
    """`/com…` → slash commands (and /collab's modes); `…@pa…` → paths in the workspace."""

    def __init__(
        self, workspace: Workspace | None, user: list[tuple[str, str]] | None = None
    ) -> None:
        self.workspace = workspace
        """None until the session is open (the prompt comes first): no path completions."""
        self.user = user or []
        """(name, summary) of the user's own commands and skills."""

    def get_completions(self, document: Document, complete_event: Any) -> Iterator[Completion]:
        # after the prompt: not at import
        from zen.ui.commands.dispatch import listing
        from zen.ui.commands.modes import COLLABORATIONS

        before = document.text_before_cursor
        if before.startswith("/") and " " not in before:
            rows = [(c.name, c.summary) for c in listing()] + self.user
            for name, summary in rows:
                if f"/{name}".startswith(before.lower()):
                    yield Completion(f"/{name}", -len(before), display_meta=summary)
            return
        if before.startswith("/collab ") and " " not in before[8:]:
            word = before[8:]
            for mode in COLLABORATIONS:
                if mode.startswith(word):
                    yield Completion(mode, -len(word))
            return
        word = document.get_word_before_cursor(WORD=True)
        if word.startswith("@") and self.workspace is not None:
            for path, is_dir in path_candidates(self.workspace, word[1:]):
                shown = path + ("/" if is_dir else "")
                yield Completion("@" + shown, -len(word), display=terminal_safe(shown))


def path_candidates(workspace: Workspace, partial: str) -> Iterable[tuple[str, bool]]:
    """Entries of the workspace folder `partial` points into whose names start like it
    (on Windows `src\\` as well as `src/`, names in any case, as its file system does)."""
    windows = os.name == "nt"
    cut = max(partial.rfind("/"), partial.rfind("\\") if windows else -1)
    folder, prefix = partial[: max(cut, 0)], partial[cut + 1 :]
    sep = partial[cut] if cut >= 0 else "/"
    try:
        base = workspace.resolve(folder or ".")
        entries = sorted(os.scandir(base), key=lambda e: e.name)
    except (PathError, OSError):
        return []
    found = []
    for entry in entries:
        name = entry.name.lower() if windows else entry.name
        if not name.startswith(prefix.lower() if windows else prefix):
            continue
        if entry.name.startswith(".") and not prefix.startswith("."):
            continue
        try:
            is_dir = entry.is_dir()
        except OSError:
            continue
        found.append((f"{folder}{sep}{entry.name}" if folder else entry.name, is_dir))
        if len(found) >= COMPLETIONS:
            break
    return found


def mentioned_files(line: str, workspace: Workspace, note: Any) -> list[tuple[Path, str, str]]:
    """(path, shown path, text) of each `@path` in `line` that is a text file inside the workspace.

    Anything else (missing, outside the workspace, a folder, binary) stays in the message as
    typed, and `note(text, style)` tells the user why it was not attached.
    """
    found: list[tuple[Path, str, str]] = []
    seen: set[Path] = set()
    for match in MENTION.finditer(line):
        raw = match.group(1).rstrip(TRAILING_PUNCTUATION) or match.group(1)
        target = _mention_target(workspace, match.group(1))
        if isinstance(target, str):
            note(f"@{raw}: {target}, not attached", "yellow")
            continue
        if target in seen:
            continue
        try:
            with open(target, "rb") as f:  # a huge file costs what is attached, no more
                data = f.read(ATTACH_LIMIT * 4 + 1)
                size = os.fstat(f.fileno()).st_size
        except OSError as e:
            note(f"@{raw}: cannot be read ({e.strerror}), not attached", "yellow")
            continue
        if b"\0" in data[:8192]:
            note(f"@{raw}: a binary file, not attached", "yellow")
            continue
        text = data.decode("utf-8", errors="replace")
        if len(text) > ATTACH_LIMIT or size > len(data):
            text = text[:ATTACH_LIMIT] + f"\n[cut: the file has {size:,} bytes]"
        seen.add(target)
        shown = workspace.show(target)
        found.append((target, shown, text))
        count = len(text.splitlines())
        note(f"attached {shown} ({count} line{'' if count == 1 else 's'})", "dim")
    return found


def _mention_target(workspace: Workspace, raw: str) -> Path | str:
    """The file `@raw` names (trailing punctuation forgiven), or why there is none."""
    reason = "no such file"
    for candidate in dict.fromkeys((raw, raw.rstrip(TRAILING_PUNCTUATION))):
        if not candidate:
            continue
        try:
            path = workspace.resolve(candidate)
        except OutsideWorkspace:
            reason = "outside the workspace"
            continue
        except PathError:  # a symlink loop, a NUL byte
            reason = "not a usable path"
            continue
        if path.is_file():
            return path
        if path.is_dir():
            reason = "a folder (mention the files in it)"
    return reason

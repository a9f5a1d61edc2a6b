"""What a rewind would do, worked out before anything is touched, and what it must not do.

Snapshots leave some files out (ignored, too large, inside a nested repository). bash may
have changed them and a rewind cannot bring them back: `out_of_reach` names those changed
since the target checkpoint (by modification time), with why, so the user hears it before
the rewind starts. `in_the_way` finds the paths a rewind would write over something it never
recorded (a folder holding unrecorded files, a file where a folder must go, a file too large
to record): git's checkout would delete it, so such paths are conflicts, always left alone.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from zen.checkpoints import scope
from zen.checkpoints.shadow import Change

WALK_LIMIT = 20_000
"""Files looked at, at most, for what a rewind cannot restore: ignored folders can be huge."""
NAMED = 3
"""Unrecorded files named per path in the way; the count says the rest."""


@dataclass(frozen=True)
class Checkpoint:
    id: str
    tree: str
    time: float
    kind: str
    run: str = ""
    """The user message (run) it belongs to: `/undo` goes back to its run's first one."""
    label: str = ""
    """That message's first line, to recognise it in a list."""
    session: str = ""
    """The session whose run took it (`zen diff` shows one session's changes); empty for
    checkpoints taken outside a saved session or by an older zen."""

    def when(self) -> str:
        return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.time))


@dataclass
class Plan:
    """What rewinding to `target` would do, worked out before anything is touched."""

    target: Checkpoint
    current: Checkpoint
    changes: list[Change]
    tree: str = ""
    """The target's tree with the files zen's tools adopted later (see `adopted.py`)."""
    conflicts: list[str] = field(default_factory=list)
    """Paths someone other than zen changed since zen last recorded them, and `blocked`."""
    blocked: dict[str, str] = field(default_factory=dict)
    """Paths the rewind would write over files it never recorded: why. Always left alone."""
    out_of_reach: list[str] = field(default_factory=list)
    """Files changed since the target that no snapshot holds, each with why."""
    stats: dict[str, tuple[int, int] | None] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        return [c.path for c in self.changes]

    def left_alone(self, path: str) -> bool:
        """A blocked path, or one under a blocked folder (its recorded files stay too)."""
        return any(path == p or path.startswith(p + "/") for p in self.blocked)

    def summary_lines(self) -> list[str]:
        """One line per file: what the rewind does to it, with line counts."""
        verbs = {"A": "restore", "D": "delete", "M": "revert", "T": "revert"}
        lines = []
        for change in self.changes:
            if change.path in self.blocked:
                lines.append(f"leave {change.path} alone  ! {self.blocked[change.path]}")
                continue
            if self.left_alone(change.path):
                continue
            numbers = self.stats.get(change.path)
            counts = " (binary)" if numbers is None else f" (+{numbers[0]} -{numbers[1]})"
            flag = "  ! changed outside zen" if change.path in self.conflicts else ""
            lines.append(f"{verbs.get(change.status, 'revert')} {change.path}{counts}{flag}")
        return lines


def in_the_way(root: Path, changes: list[Change]) -> dict[str, str]:
    """Paths the rewind would write where something it never recorded is: why, per path."""
    deleting = {c.path for c in changes if c.status == "D"}
    found: dict[str, str] = {}
    for change in changes:
        if change.status in ("A", "M", "T"):
            why = _obstacle(root, change, deleting)
            if why:
                found[change.path] = why
    return found


def _obstacle(root: Path, change: Change, deleting: set[str]) -> str:
    parts = change.path.split("/")
    for end in range(1, len(parts)):
        prefix = "/".join(parts[:end])
        kind = _kind(root / prefix)
        if kind is None or prefix in deleting:
            return ""  # nothing there (or a recorded file going first): nothing below it
        if kind != "dir":
            return f"{prefix} is in the way and was never recorded"
    if change.status != "A":
        return ""  # the present file is recorded
    kind = _kind(root / change.path)
    if kind is None:
        return ""
    if kind != "dir":
        return "the file there now was never recorded"
    budget = [WALK_LIMIT]
    strangers = [f for f in _walk(root, change.path + "/", budget) if f not in deleting]
    if budget[0] < 0:
        return f"a folder of more than {WALK_LIMIT:,} files is there"
    if not strangers:
        return ""
    more = len(strangers) - NAMED
    named = ", ".join(strangers[:NAMED]) + (f" and {more} more" if more > 0 else "")
    return f"a folder is there holding files zen never recorded: {named}"


def changed_since(
    root: Path, candidates: dict[str, str], since: float, own: tuple[str, ...]
) -> list[str]:
    """Of `candidates` (path or `folder/` → why it is not recorded), the files modified after
    `since`, as "path (why)" lines; at most WALK_LIMIT files are looked at."""
    budget = [WALK_LIMIT]
    lines = []
    for path, why in sorted(candidates.items()):
        for rel in _walk(root, path, budget):
            if scope.inside(rel, own):
                continue
            try:
                if os.lstat(root / rel).st_mtime > since:
                    lines.append(f"{rel} ({why})")
            except OSError:
                continue
    if budget[0] < 0:
        lines.append(f"… maybe more: zen stopped looking after {WALK_LIMIT:,} files")
    return lines


def _walk(root: Path, path: str, budget: list[int]) -> Iterator[str]:
    """`path` itself, or the files and links under the folder `path/` (never into a `.git`,
    links not followed), while `budget` lasts."""
    if not path.endswith("/"):
        yield path
        return
    for top, dirs, names in os.walk(root / path):
        linked = [d for d in dirs if os.path.islink(os.path.join(top, d))]
        dirs[:] = sorted(d for d in dirs if d != ".git" and d not in linked)
        for name in sorted([*names, *linked]):
            if budget[0] <= 0:
                budget[0] = -1  # more were there: not all looked at
                return
            budget[0] -= 1
            yield Path(top, name).relative_to(root).as_posix()


def _kind(path: Path) -> str | None:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return "dir" if stat.S_ISDIR(mode) else "other"

"""What zen changed in one session, read from its checkpoints: `/diff` and `zen diff`.

A run's own changes lie between its first checkpoint (`before`) and its last. What changed
between one run's last checkpoint and the next run's first happened while zen was not running
a turn, so someone else made it (the rule rewind's conflicts follow, store.py): those changes
are sections of their own, never mixed into zen's. After the last run, the workspace now is
compared with its last checkpoint the same way. Nothing here prints: front-ends render the
sections (zen/ui/diff_view.py), and no file byte reaches a terminal without `terminal_safe`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zen.checkpoints.copies import CopyRepo
from zen.checkpoints.safe_git import CheckpointError

if TYPE_CHECKING:
    from zen.checkpoints.plan import Checkpoint
    from zen.checkpoints.shadow import ShadowRepo
    from zen.checkpoints.store import CheckpointStore

RUN_KINDS = frozenset({"before", "after", "coder"})
"""Checkpoints a run takes; `rewind` and `restored` are rewinds, shown as such."""
BINARY_PROBE = 8000
"""Bytes looked at for a NUL, as git does, to call a file binary."""


@dataclass(frozen=True)
class FileDiff:
    path: str
    lines: list[str]
    """A unified diff, without line ends; empty for a binary file."""
    binary: bool = False


@dataclass
class Section:
    """One stretch of the session: a run's changes (`by_zen`) or what others changed."""

    by_zen: bool
    title: str
    files: list[FileDiff] = field(default_factory=list)


def session_runs(store: CheckpointStore, session: str, runs: list[str]) -> list[list[Checkpoint]]:
    """The checkpoints of each run of `session` (or among `runs`), runs in order."""
    grouped: dict[str, list[Checkpoint]] = {}
    for c in store.checkpoints():
        if c.run and c.kind in RUN_KINDS and ((session and c.session == session) or c.run in runs):
            grouped.setdefault(c.run, []).append(c)
    return list(grouped.values())


def latest_session(store: CheckpointStore) -> str:
    """The session of the workspace's last checkpoint that names one ("" when none does)."""
    return next((c.session for c in reversed(store.checkpoints()) if c.session), "")


async def session_sections(store: CheckpointStore, runs: list[list[Checkpoint]]) -> list[Section]:
    """zen's changes run by run, with what others changed between and since, in order."""
    sections: list[Section] = []
    previous: Checkpoint | None = None
    for number, group in enumerate(runs, 1):
        start, end = group[0], group[-1]
        if previous is not None:
            rewound = any(
                c.kind in ("rewind", "restored") and previous.time <= c.time <= start.time
                for c in store.checkpoints()
            )
            title = f"changed outside zen before message {number}" + (
                " (includes a rewind)" if rewound else ""
            )
            await _add(sections, store, previous.tree, start.tree, Section(False, title))
        label = f" “{start.label}”" if start.label else ""
        title = f"zen, message {number}{label}"
        await _add(sections, store, start.tree, end.tree, Section(True, title))
        previous = end
    if previous is not None:
        now = await store.repo.snapshot()
        title = "changed outside zen since its last message"
        await _add(sections, store, previous.tree, now, Section(False, title))
    return sections


async def _add(
    sections: list[Section], store: CheckpointStore, old: str, new: str, section: Section
) -> None:
    section.files = await file_diffs(store.repo, old, new)
    if section.files:
        sections.append(section)


async def file_diffs(repo: ShadowRepo | CopyRepo, old: str, new: str) -> list[FileDiff]:
    found = []
    for change in await repo.changes(old, new):
        before = None if change.status == "A" else await _blob(repo, old, change.path)
        after = None if change.status == "D" else await _blob(repo, new, change.path)
        found.append(unified(change.path, before, after))
    return found


async def _blob(repo: ShadowRepo | CopyRepo, tree: str, path: str) -> bytes | None:
    """A file's bytes in a snapshot; b"\\0" (binary) when they cannot be read."""
    if isinstance(repo, CopyRepo):
        return repo.blob(tree, path)
    try:
        return await repo.git("cat-file", "blob", f"{tree}:{path}")
    except (CheckpointError, OSError):
        return b"\0"  # a submodule, a vanished object: named, not shown


def unified(path: str, before: bytes | None, after: bytes | None) -> FileDiff:
    """`before`/`after` None: the file did not exist."""
    if any(b"\0" in data[:BINARY_PROBE] for data in (before, after) if data is not None):
        return FileDiff(path, [], binary=True)
    old, new = _lines(before), _lines(after)
    lines = list(
        difflib.unified_diff(
            old,
            new,
            "/dev/null" if before is None else f"a/{path}",
            "/dev/null" if after is None else f"b/{path}",
            lineterm="",
        )
    )
    return FileDiff(path, lines)


def _lines(data: bytes | None) -> list[str]:
    return [] if data is None else data.decode("utf-8", "replace").splitlines()

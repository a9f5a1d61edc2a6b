"""What differs between two snapshot trees: paths with their status, and lines per path.

Renames are off (a rename is a delete and an add, which is what a restore needs), text
conversion and external diff drivers too (`shadow.py` says why none can run).
"""

from __future__ import annotations

from dataclasses import dataclass

from zen.checkpoints.adopted import Git


@dataclass(frozen=True)
class Change:
    """One path that differs between two snapshots (git's raw diff, without renames)."""

    path: str
    status: str
    """A added, D deleted, M modified, T type changed (file <-> symlink)."""
    old_mode: str
    new_mode: str


async def changes(git: Git, old: str, new: str) -> list[Change]:
    """What differs between two trees, path by path."""
    if old == new:
        return []
    out = await git("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new)
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    found: list[Change] = []
    for meta, path in zip(parts[0::2], parts[1::2], strict=False):
        fields = meta.lstrip(":").split()
        if len(fields) >= 5:
            found.append(Change(path, fields[4][:1], fields[0], fields[1]))
    return found


async def numstat(git: Git, old: str, new: str) -> dict[str, tuple[int, int] | None]:
    """Lines added and removed per path; None for a binary file."""
    if old == new:
        return {}
    out = await git(
        "diff-tree",
        "-r",
        "-z",
        "--no-renames",
        "--numstat",
        "--no-textconv",
        "--no-ext-diff",
        old,
        new,
    )
    stats: dict[str, tuple[int, int] | None] = {}
    for record in out.decode("utf-8", "surrogateescape").split("\0"):
        fields = record.split("\t", 2)
        if len(fields) == 3:
            added, removed, path = fields
            stats[path] = None if added == "-" else (int(added), int(removed))
    return stats

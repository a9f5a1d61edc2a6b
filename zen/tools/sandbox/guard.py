"""The workspace's configuration, kept as it was across a sandboxed command.

What configures zen, git or the shell inside the workspace runs later outside the sandbox
(`.git/hooks`, `.git/config`, `.zen/`, `.mcp.json`, `.claude/`, `.envrc`, shell rc files), so a
command must not plant or change it. A read-only bind protects what exists; a path that does
not exist yet has nothing to bind (binding a stand-in would create it in the user's folder),
and a renamed parent (`mv .git x && mkdir .git`) slips past a bind. So the guard also records
these paths' bytes before the command and, after it, puts back whatever differs, deleting
what appeared: check after and undo. Background processes cannot act later: the sandbox's
PID namespace ends them with the command.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Sequence
from pathlib import Path

PROTECTED = (
    ".git/hooks",
    ".git/config",
    ".zen",
    ".mcp.json",
    ".claude",
    ".envrc",
    ".bashrc",
    ".bash_profile",
    ".profile",
    ".zshrc",
    ".zshenv",
)
MAX_BYTES = 4_000_000
MAX_ENTRIES = 5_000
"""Bytes and entries recorded at most; past them a path's changes are refused by the bind
alone (a home used as workspace has its `~/.zen` hidden, and skipped: `record`'s `skip`)."""

Snapshot = dict[str, "tuple[int, bytes]"]
"""Relative path → (mode, bytes; a symlink's target); a missing key: the path did not exist."""


def existing(root: Path) -> list[Path]:
    """The protected paths that exist now (to bind read-only), never through a symlink."""
    return [root / rel for rel in PROTECTED if _exists(root / rel)]


def record(root: Path, skip: Sequence[Path] = ()) -> Snapshot:
    """The protected paths' contents, as far as the limits go; `skip`: paths the command
    cannot see anyway (hidden secrets)."""
    snap: Snapshot = {}
    budget = [MAX_BYTES, MAX_ENTRIES]
    for rel in PROTECTED:
        if root / rel not in skip:
            _record(root, Path(rel), snap, budget)
    return snap


def restore(root: Path, before: Snapshot, skip: Sequence[Path] = ()) -> list[str]:
    """Undo every change to the protected paths since `before`; what was undone."""
    after = record(root, skip)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    for rel in changed:
        _unlink_parents(root, Path(rel))
        _remove(root / rel)
    for rel in sorted(changed):
        if rel in before:
            _unlink_parents(root, Path(rel))
            _put(root, rel, before)
    return [rel for rel in changed if not any(rel.startswith(c + "/") for c in changed)]


def _record(root: Path, rel: Path, snap: Snapshot, budget: list[int]) -> None:
    if _linked_parent(root, rel) is not None:
        return  # through a symlink (`.git` swapped for one): not the workspace's, never read
    path = root / rel
    budget[1] -= 1
    if budget[1] < 0:
        return
    try:
        info = path.lstat()
    except OSError:
        return
    key = rel.as_posix()
    try:
        if stat.S_ISDIR(info.st_mode):
            snap[key] = (info.st_mode, b"")
            for child in sorted(os.listdir(path)):
                _record(root, rel / child, snap, budget)
        elif stat.S_ISLNK(info.st_mode):
            snap[key] = (info.st_mode, os.fsencode(os.readlink(path)))
        elif stat.S_ISREG(info.st_mode) and info.st_size <= budget[0]:
            budget[0] -= info.st_size
            snap[key] = (info.st_mode, path.read_bytes())
    except OSError:  # unreadable: the read-only bind alone protects it
        pass


def _remove(path: Path) -> None:
    try:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    except FileNotFoundError:
        pass


def _put(root: Path, rel: str, before: Snapshot) -> None:
    path = root / rel
    mode, data = before[rel]
    path.parent.mkdir(parents=True, exist_ok=True)
    if stat.S_ISDIR(mode):
        path.mkdir(exist_ok=True)
    elif stat.S_ISLNK(mode):
        os.symlink(os.fsdecode(data), path)
    else:
        path.write_bytes(data)
    if not stat.S_ISLNK(mode):
        path.chmod(stat.S_IMODE(mode))


def _linked_parent(root: Path, rel: Path) -> Path | None:
    """The first folder on the way from `root` to `rel` that is a symlink or no folder."""
    for depth in range(1, len(rel.parts)):
        part = root.joinpath(*rel.parts[:depth])
        if part.is_symlink() or (part.exists() and not part.is_dir()):
            return part
    return None


def _unlink_parents(root: Path, rel: Path) -> None:
    """Remove a symlink (or file) a command put where a protected path's folder was, so
    undoing never writes or deletes through it outside the workspace."""
    while (part := _linked_parent(root, rel)) is not None:
        part.unlink()


def _exists(path: Path) -> bool:
    return path.exists() and not path.is_symlink()

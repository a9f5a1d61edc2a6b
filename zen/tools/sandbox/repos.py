"""Where the workspace's git repositories are, found again cheaply after every command.

A command may create a repository anywhere in the workspace (`git init deep/x`, a bare layout
of HEAD, `objects` and a `config` holding `core.fsmonitor`), and the user's next `git status`
in that folder, or an editor opening a file there, runs what its configuration names. So the
whole workspace is walked once for `.git` entries and folders that pose as git directories,
and after that only re-read where it changed: a folder's ctime moves whenever an entry in it
is made, removed or renamed, so one `lstat` per folder tells which folders to list again. A
ctime too recent to tell a later change apart (the clock behind it ticks coarsely) is not
trusted: that folder is listed again next time.

The walk stops after MAX_DIRS folders (breadth first, so the shallow ones are covered) and
says so; it never follows a symlink nor enters a git directory (what is in one is guarded by
`scopes`), nor the paths in `skip` (secrets hidden from the command: it cannot write there).
"""

from __future__ import annotations

import os
import stat
import time
from collections import deque
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from zen.tools.sandbox.gitdirs import looks_like_git_dir

MAX_DIRS = 100_000
UNTRUSTED = -1
"""A ctime recorded as this is never equal to the next one: the folder is listed again."""


def margin(ctime_ns: int) -> int:
    """How far a ctime may lag behind the moment of the change it records: the kernel stamps
    from a clock that ticks every few ms, and some filesystems keep whole seconds only."""
    return 1_000_000_000 if ctime_ns % 1_000_000_000 == 0 else 50_000_000


@dataclass(frozen=True)
class Folder:
    ino: int
    ctime: int
    subdirs: tuple[str, ...]
    marks: tuple[tuple[str, bool], ...]
    """(name, is a folder) of `.git` entries in it; ("", True) when it poses as a git dir."""


@dataclass
class Tree:
    """The workspace's folders and the repositories among them, at one moment."""

    folders: dict[str, Folder] = field(default_factory=dict)
    """Folder path relative to the workspace ("" for itself) → what it held."""
    partial: bool = False
    """The walk stopped at MAX_DIRS: repositories past it are not looked for."""

    def marks(self) -> dict[str, bool]:
        """Relative path of each repository entry → whether it is a git directory (a `.git`
        file or symlink, pointing elsewhere, is not)."""
        found: dict[str, bool] = {}
        for rel, folder in self.folders.items():
            for name, is_dir in folder.marks:
                found[_join(rel, name)] = is_dir
        return found

    def known(self, rel: str, ino: int) -> bool:
        """`rel` was this same folder (same inode) when the tree was taken."""
        folder = self.folders.get(rel)
        return folder is not None and folder.ino == ino


def refresh(
    root: Path, before: Tree | None, skip: Collection[str] = (), *, open_up: bool = False
) -> Tree:
    """The tree now: folders whose inode and ctime are what `before` recorded keep their
    listing; the others (and new ones) are listed. `open_up` (after a command): a changed
    folder the user owns but cannot list (`chmod 000` hides what is inside) is given read
    access back, so that nothing in it escapes the look."""
    old = before.folders if before is not None else {}
    tree = Tree()
    folders = tree.folders
    now = time.time_ns()
    base = os.fspath(root) + "/"
    lstat, is_dir = os.lstat, stat.S_ISDIR
    queue: deque[str] = deque([""])
    while queue:
        rel = queue.popleft()
        if len(folders) >= MAX_DIRS:
            tree.partial = True
            break
        try:
            info = lstat(base + rel) if rel else os.stat(base)
        except OSError:
            continue
        if not is_dir(info.st_mode):
            continue
        ctime = info.st_ctime_ns
        if ctime >= now - 1_000_000_000 and ctime >= now - margin(ctime):
            ctime = UNTRUSTED
        prior = old.get(rel)
        if prior is not None and prior.ino == info.st_ino and prior.ctime == ctime != UNTRUSTED:
            folder = prior
        else:
            folder = _list(base.rstrip("/"), rel, info, ctime, skip, open_up)
        folders[rel] = folder
        if folder.subdirs:
            prefix = f"{rel}/" if rel else ""
            queue.extend(prefix + name for name in folder.subdirs)
    return tree


def _list(
    base: str, rel: str, info: os.stat_result, ctime: int, skip: Collection[str], open_up: bool
) -> Folder:
    ino = info.st_ino
    path = f"{base}/{rel}" if rel else base
    subdirs: list[str] = []
    marks: list[tuple[str, bool]] = []
    names: list[str] = []
    try:
        entries = os.scandir(path)
    except PermissionError:
        if not open_up or info.st_uid != os.getuid():
            return Folder(ino, UNTRUSTED, (), ())
        try:
            os.chmod(path, stat.S_IMODE(info.st_mode) | 0o700)
            entries = os.scandir(path)
        except OSError:
            return Folder(ino, UNTRUSTED, (), ())
    except OSError:
        return Folder(ino, UNTRUSTED, (), ())
    try:
        with entries:
            for entry in entries:
                names.append(entry.name)
                is_dir = entry.is_dir(follow_symlinks=False)
                if entry.name == ".git":
                    marks.append((".git", is_dir))
                elif is_dir and _join(rel, entry.name) not in skip:
                    subdirs.append(entry.name)
    except OSError:
        return Folder(ino, UNTRUSTED, (), ())
    if looks_like_git_dir(names):
        return Folder(ino, ctime, (), (("", True), *marks))
    return Folder(ino, ctime, tuple(sorted(subdirs)), tuple(sorted(marks)))


def _join(rel: str, name: str) -> str:
    if not name:
        return rel
    return f"{rel}/{name}" if rel else name

"""The two ways to undo a change to a guarded entry: put it back, or remove it.

Both walk from their anchor (the workspace, or a git directory outside it) one folder at a
time with O_NOFOLLOW and act relative to the folder they opened: a symlink a command (or one
still running beside it) put where a folder was is removed, never followed, so nothing
outside is written or deleted. A folder the command made unreadable is opened back up first:
it is the user's own, and zen has to see into it to undo.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from zen.tools.sandbox.entries import DIR_FLAGS, Entry

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)


def remove(anchor: Path, path: Path) -> None:
    """Remove `path` (a whole folder too) if it is reachable from `anchor` without a symlink."""
    with _parent(anchor, path, create=False) as folder:
        if folder is not None:
            _remove_at(folder, path.name)


def put_back(anchor: Path, path: Path, entry: Entry, data: bytes | None) -> None:
    """Make `path` what `entry` recorded (`data`: a file's bytes). Missing folders on the way
    are made; anything else in a folder's place (a planted symlink) is removed."""
    with _parent(anchor, path, create=True) as folder:
        assert folder is not None
        name = path.name
        now = _lstat_at(folder, name)
        if entry.is_dir:
            if now is not None and not stat.S_ISDIR(now.st_mode):
                os.unlink(name, dir_fd=folder)
                now = None
            if now is None:
                os.mkdir(name, 0o700, dir_fd=folder)
            fd = _open_dir(folder, name)
            try:
                os.fchmod(fd, stat.S_IMODE(entry.mode))
            finally:
                os.close(fd)
            return
        if now is not None:
            _remove_at(folder, name)
        if entry.is_link:
            os.symlink(entry.kept or "", name, dir_fd=folder)
            return
        fd = os.open(name, _NEW_FILE, 0o600, dir_fd=folder)
        try:
            view = memoryview(data or b"")
            while view:
                view = view[os.write(fd, view) :]
            os.fchmod(fd, stat.S_IMODE(entry.mode))
        finally:
            os.close(fd)


@contextmanager
def _parent(anchor: Path, path: Path, *, create: bool) -> Iterator[int | None]:
    """`path`'s folder, opened from `anchor` one step at a time; None (unless `create`) when
    a step is missing or no folder. `create` makes missing folders and removes what stands in
    a folder's place."""
    parts = path.relative_to(anchor).parts
    folder = os.open(anchor if parts else anchor.parent, DIR_FLAGS)
    try:
        for part in parts[:-1]:
            info = _lstat_at(folder, part)
            if info is None or not stat.S_ISDIR(info.st_mode):
                if not create:
                    yield None
                    return
                if info is not None:
                    os.unlink(part, dir_fd=folder)
                os.mkdir(part, 0o755, dir_fd=folder)
            inner = _open_dir(folder, part)
            os.close(folder)
            folder = inner
        yield folder
    finally:
        os.close(folder)


def _open_dir(folder: int, name: str) -> int:
    """Open the folder `name`, giving its owner (the user) access first if it was taken."""
    try:
        return os.open(name, DIR_FLAGS, dir_fd=folder)
    except PermissionError:
        info = _lstat_at(folder, name)
        if info is None or not stat.S_ISDIR(info.st_mode):
            raise
        os.chmod(name, stat.S_IMODE(info.st_mode) | 0o700, dir_fd=folder)
        return os.open(name, DIR_FLAGS, dir_fd=folder)


def _remove_at(folder: int, name: str) -> None:
    """Remove `name` in `folder`, a whole tree too, however deep, holding two descriptors at
    most: each folder met is moved up into the tree's top, under a name of its own, and
    emptied from there (neither recursion nor a descriptor per level)."""
    info = _lstat_at(folder, name)
    if info is None:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(name, dir_fd=folder)
        return
    top = _open_dir(folder, name)
    try:
        pending: list[str | None] = [None]  # None: the top itself
        while pending:
            sub = pending.pop()
            fd = top if sub is None else _open_dir(top, sub)
            try:
                for child in os.listdir(fd):
                    found = _lstat_at(fd, child)
                    if found is None:
                        continue
                    if not stat.S_ISDIR(found.st_mode):
                        os.unlink(child, dir_fd=fd)
                    elif sub is None:
                        pending.append(child)
                    else:
                        moved = f".zen-undo-{os.urandom(8).hex()}"
                        os.rename(child, moved, src_dir_fd=fd, dst_dir_fd=top)
                        pending.append(moved)
            finally:
                if fd != top:
                    os.close(fd)
            if sub is not None:
                os.rmdir(sub, dir_fd=top)
    finally:
        os.close(top)
    os.rmdir(name, dir_fd=folder)


def _lstat_at(folder: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=folder, follow_symlinks=False)
    except FileNotFoundError:
        return None

"""One guarded entry's record, and the walk that reads guarded entries from disk.

Metadata (type, mode, size, mtime, ctime, inode) is always recorded, so a change is seen
whatever the size; bytes are kept only to put a file back, while the byte budget lasts. A
command cannot set a ctime (the kernel does, on every write, rename, chmod or link), so an
entry whose metadata is the same is the same entry with the same bytes: an unchanged file,
however big, is left alone.

The walk goes from its anchor (the workspace, or a git directory outside it) one folder at a
time with O_NOFOLLOW and reads relative to the folder it opened, so a symlink a command (even
one still running beside it) swapped in is recorded as a symlink, never read through.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
MAX_WALK = 200_000
"""Entries one guarded path may hold (past them, the rest counts as unreadable: see `walk`)."""
MAX_NEST = 100
"""Folders one inside another that the walk enters (deeper ones count as unreadable: a
command's 1,500 nested folders made the walk overflow Python's stack, and nothing was
undone)."""


@dataclass(frozen=True)
class Entry:
    """What an entry was: its metadata, and what puts it back (a file's blob digest, a
    symlink's target; None when its bytes were not kept)."""

    mode: int
    size: int
    mtime: int
    ctime: int
    ino: int
    kept: str | None = None

    @classmethod
    def of(cls, info: os.stat_result, kept: str | None = None) -> Entry:
        return cls(
            info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, kept
        )

    @property
    def is_dir(self) -> bool:
        return stat.S_ISDIR(self.mode)

    @property
    def is_link(self) -> bool:
        return stat.S_ISLNK(self.mode)

    @property
    def restorable(self) -> bool:
        return self.is_dir or self.kept is not None

    def same(self, now: Entry) -> bool:
        """`now` shows this entry unchanged. A folder is judged by type and mode (its own
        entries are judged one by one); anything else by all its metadata."""
        if self.is_dir:
            return now.mode == self.mode
        return (now.mode, now.size, now.mtime, now.ctime, now.ino) == (
            self.mode, self.size, self.mtime, self.ctime, self.ino,
        )  # fmt: skip

    def row(self) -> list[int | str | None]:
        return [self.mode, self.size, self.mtime, self.ctime, self.ino, self.kept]

    @classmethod
    def from_row(cls, row: list[int | str | None]) -> Entry:
        *numbers, kept = row
        if len(numbers) != 5 or not all(isinstance(n, int) for n in numbers):
            raise ValueError(f"bad entry row {row!r}")
        if kept is not None and not isinstance(kept, str):
            raise ValueError(f"bad entry row {row!r}")
        mode, size, mtime, ctime, ino = (int(n) for n in numbers)  # type: ignore[arg-type]
        return cls(mode, size, mtime, ctime, ino, kept)


Keep = Callable[[os.stat_result, Callable[[], "bytes | None"]], "str | None"]
"""Keeps a file's bytes if it will: (its stat, a reader of its bytes) → their digest, or None."""


def walk(
    anchor: Path,
    top: Path,
    names: Sequence[str] | None,
    keep: Keep | None,
    ignore: Callable[[str], bool] | None = None,
    shallow: bool = False,
) -> dict[str, Entry]:
    """`top` and everything under it, relative to `top` ("" for itself); `names`: only these
    entries of `top` (None: all); `ignore`: entries that cannot matter (by relative path).
    Never through a symlink: a step that is one, or missing, ends the walk there. A folder
    that cannot be listed in full (unreadable, past MAX_WALK entries or MAX_NEST deep) gets an
    `UNREADABLE` child holding its own ctime and inode, so it compares equal only while the
    folder itself is untouched. `shallow`: `top`'s entries only, not what is in them."""
    found: dict[str, Entry] = {}
    with open_parent(anchor, top) as folder:
        if folder is not None:
            _visit(folder, top.name, "", found, _Walk(keep, ignore, [MAX_WALK], shallow), names)
    return found


@dataclass(frozen=True)
class _Walk:
    keep: Keep | None
    ignore: Callable[[str], bool] | None
    budget: list[int]
    shallow: bool = False


UNREADABLE = "\0unreadable"


def _visit(
    folder: int,
    name: str,
    rel: str,
    found: dict[str, Entry],
    how: _Walk,
    only: Sequence[str] | None = None,
) -> None:
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return
    kept = None
    if stat.S_ISLNK(info.st_mode):
        kept = _readlink(folder, name)
    elif stat.S_ISREG(info.st_mode) and how.keep is not None:
        kept = how.keep(info, lambda: _read_at(folder, name, info))
    found[rel] = Entry.of(info, kept)
    if not stat.S_ISDIR(info.st_mode) or (how.shallow and rel):
        return
    unreadable = Entry(0, 0, 0, info.st_ctime_ns, info.st_ino)
    if rel.count("/") >= MAX_NEST:
        found[_join(rel, UNREADABLE)] = unreadable
        return
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=folder)
    except OSError:
        found[_join(rel, UNREADABLE)] = unreadable
        return
    try:
        children = sorted(os.listdir(fd))
        for child in children if only is None else [n for n in only if n in children]:
            inner = _join(rel, child)
            if how.ignore is not None and how.ignore(inner):
                continue
            how.budget[0] -= 1
            if how.budget[0] < 0:
                found[_join(rel, UNREADABLE)] = unreadable
                return
            _visit(fd, child, inner, found, how)
    except OSError:
        found[_join(rel, UNREADABLE)] = unreadable
    finally:
        os.close(fd)


@contextmanager
def open_parent(anchor: Path, path: Path) -> Iterator[int | None]:
    """A descriptor of `path`'s folder, reached from `anchor` one folder at a time and never
    through a symlink; None when a step is missing or not a folder."""
    parts = path.relative_to(anchor).parts if path != anchor else ()
    try:
        folder = os.open(anchor if parts else anchor.parent, DIR_FLAGS)
    except OSError:
        yield None
        return
    try:
        for part in parts[:-1]:
            try:
                inner = os.open(part, DIR_FLAGS, dir_fd=folder)
            except OSError:
                yield None
                return
            os.close(folder)
            folder = inner
        yield folder
    finally:
        os.close(folder)


def _read_at(folder: int, name: str, info: os.stat_result) -> bytes | None:
    """The file's bytes if it is still the file `info` describes."""
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0), dir_fd=folder)
    except OSError:
        return None
    try:
        if os.fstat(fd).st_ino != info.st_ino:
            return None
        chunks, left = [], info.st_size + 1
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) == info.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _readlink(folder: int, name: str) -> str | None:
    try:
        return os.readlink(name, dir_fd=folder)
    except OSError:
        return None


def _join(rel: str, name: str) -> str:
    return f"{rel}/{name}" if rel else name

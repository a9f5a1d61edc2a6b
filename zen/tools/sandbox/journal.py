"""The guard's record on disk, so that a zen killed mid-command is undone at its next start.

`~/.zen/sandbox/` (hidden from every sandboxed command, like all of `~/.zen`) holds one folder
per zen process that ran a sandboxed command:
- `lock`, held (`flock`) for the process's whole life: the kernel lets go of it however the
  process ends, SIGKILL included, so a folder whose lock another zen can take belongs to a zen
  that is gone, whatever became of its pid (reused, or in another PID namespace);
- `<workspace>-<n>.json` for each command running now: its workspace, its temp folder, when it
  started and the record of every guarded entry; written before the command starts, removed
  after its undo;
- `blobs/<sha256>`: the bytes kept to put files back, written once per content.

A folder appears under its final name only once locked (made under a dot-name, then renamed),
so no other zen ever takes a live one for stale. Nothing here is fsynced: a zen killed leaves
its writes in the page cache; a machine that crashes takes the running command down with it.
This module is imported at every start (`recover`): standard library only, nothing heavy.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from zen.base.paths import private_dir, zen_home

TYPE_CHECKING = False  # `typing` costs start-up time; checkers know this idiom
if TYPE_CHECKING:
    from typing import Any


def base() -> Path:
    return zen_home() / "sandbox"


def workspace_key(root: Path) -> str:
    """A short name for a workspace in journal names (the JSON holds the path itself): FNV-1a,
    a few microseconds, where loading zlib would cost the start a shared library."""
    value = 0x811C9DC5
    for byte in os.fsencode(root):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


class Journal:
    """This process's folder: created at its first sandboxed command, removed at exit."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self._lock: int | None = None
        self._count = 0

    def open(self) -> Path:
        if self.folder is not None and self.folder.parent != base():  # HOME changed (tests)
            self.close()
        if self.folder is None:
            parent = private_dir(base())
            name = f"{os.getpid()}-{os.urandom(4).hex()}"
            staging = parent / f".{name}"
            os.mkdir(staging, 0o700)
            os.mkdir(staging / "blobs", 0o700)
            self._lock = _locked(staging / "lock")
            os.rename(staging, parent / name)
            self.folder = parent / name
        return self.folder

    def blob(self, digest: str, data: bytes) -> None:
        path = self.open() / "blobs" / digest
        if not path.exists():
            _write(path, data)

    def write(self, root: Path, payload: dict[str, Any]) -> Path:
        """A new command's journal; its path, to `remove` after the undo."""
        import json

        self._count += 1
        path = self.open() / f"{workspace_key(root)}-{self._count}.json"
        _write(path, json.dumps(payload).encode())
        return path

    def close(self) -> None:
        """Remove this process's folder (at exit: no command runs any more); one still
        holding a journal (its undo failed) is left for the next start to replay."""
        if self.folder is not None:
            if not any(self.folder.glob("*.json")):
                remove_tree(self.folder)
            self.folder = None
        if self._lock is not None:
            os.close(self._lock)
            self._lock = None


def stale(root: Path | None) -> Iterator[tuple[Path, list[Path]]]:
    """(folder, its journals for `root`'s workspace) for each folder whose zen is gone; its
    lock is held while the caller works on it. Cheap when there is nothing: one listdir."""
    try:
        names = [name for name in os.listdir(base()) if not name.startswith(".")]
    except OSError:
        return
    if not names:
        return
    import fcntl

    key = workspace_key(root) if root is not None else ""
    for name in sorted(names):
        folder = base() / name
        try:
            lock = os.open(folder / "lock", os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(lock)
            continue  # its zen still runs
        try:
            found = sorted(folder.glob(f"{key}-*.json")) if key else []
            yield folder, found
        finally:
            os.close(lock)


def load(path: Path) -> dict[str, Any]:
    import json

    data = json.loads(path.read_bytes())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a journal")
    return data


def read_blob(folder: Path, digest: str) -> bytes | None:
    if not all(c in "0123456789abcdef" for c in digest):
        return None
    try:
        return (folder / "blobs" / digest).read_bytes()
    except OSError:
        return None


def remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _locked(path: Path) -> int:
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


def _write(path: Path, data: bytes) -> None:
    """Write whole or not at all (a reader never sees half a journal)."""
    staging = path.with_name(f".{path.name}.{os.urandom(4).hex()}")
    fd = os.open(staging, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)
    os.rename(staging, path)

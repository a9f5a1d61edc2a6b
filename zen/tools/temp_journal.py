"""Temp files zen creates in the workspace, recorded under ~/.zen so a crash leaves none behind.

A write prepares its content in a temp file next to the target and renames it over the target.
If zen is killed in between, the temp file would stay in the user's tree. Each temp path is
recorded (one small file per temp file, named after the owning process) before the temp file
gets a name, and the record is removed once the rename is done. The next zen to start removes
the recorded paths of processes that no longer run — exactly those paths, never files found by
a name pattern, which could be the user's.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Iterator
from pathlib import Path

from zen.base.paths import private_dir, zen_home
from zen.base.pids import pid_alive


def journal_dir() -> Path:
    return zen_home() / "tmp"


@contextlib.contextmanager
def recorded(path: Path) -> Iterator[None]:
    """Record `path` as a temp file of this process while the block runs.

    If the journal cannot be written (read-only home) the write goes on unrecorded: losing an
    edit would be worse than a leftover temp file.
    """
    entry = None
    with contextlib.suppress(OSError):
        folder = private_dir(journal_dir())
        entry = folder / f"{os.getpid()}-{secrets.token_hex(6)}"
        fd = os.open(entry, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, os.fsencode(path))
        finally:
            os.close(fd)
    try:
        yield
    finally:
        if entry is not None:
            with contextlib.suppress(OSError):
                entry.unlink()


def sweep() -> list[Path]:
    """Remove the temp files recorded by zen processes that are gone; the paths removed."""
    removed: list[Path] = []
    try:
        entries = list(journal_dir().iterdir())
    except OSError:
        return removed
    for entry in entries:
        pid_text = entry.name.split("-", 1)[0]
        if not pid_text.isdigit() or pid_alive(int(pid_text)):
            continue
        try:
            path = Path(os.fsdecode(entry.read_bytes()))
        except OSError:
            continue
        with contextlib.suppress(OSError):
            if path.is_file() and not path.is_symlink():
                path.unlink()
                removed.append(path)
        with contextlib.suppress(OSError):
            entry.unlink()
    return removed

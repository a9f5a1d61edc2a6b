"""A rewind's work on the files themselves, beside git's checkout: deleting what the target
does not have, keeping the permission bits git does not record, never through a symlinked
folder and never in zen's own state folders."""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

from zen.checkpoints import scope
from zen.checkpoints.tree_diff import Change


def remove_and_remember(
    root: Path, own: tuple[str, ...], removed: list[Change], written: list[Change]
) -> dict[Path, int]:
    """Delete what the target does not have; note the mode of files about to be
    rewritten, so restored files keep permissions git does not record (0640...)."""
    modes: dict[Path, int] = {}
    for change in written:
        path = _inside(root, own, change.path)
        if path is None or change.old_mode != change.new_mode:
            continue
        with contextlib.suppress(OSError):
            st = os.lstat(path)
            if stat.S_ISREG(st.st_mode):
                modes[path] = stat.S_IMODE(st.st_mode)
    for change in removed:
        path = _inside(root, own, change.path)
        if path is None:
            continue
        with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                os.unlink(path)
        if change.status == "D":
            _remove_empty_parents(root, path)
    return modes


def restore_modes(modes: dict[Path, int]) -> None:
    for path, mode in modes.items():
        with contextlib.suppress(OSError):
            os.chmod(path, mode)


def _inside(root: Path, own: tuple[str, ...], rel: str) -> Path | None:
    """The path, if its folder really is inside the workspace (no symlinked folder)."""
    if scope.inside(rel, own):
        return None  # zen's own state: never touched
    full = root / rel
    try:
        parent = full.parent.resolve()
    except (OSError, RuntimeError):
        return None
    if parent != root and not parent.is_relative_to(root):
        return None
    return parent / full.name


def _remove_empty_parents(root: Path, path: Path) -> None:
    folder = path.parent
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent

"""Small file helpers the checkpoint stores share: private writes, NUL lists, sizes, limits."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from pathlib import Path


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` atomically, as a 0600 file."""
    tmp = path.with_name(f"{path.name}.{secrets.token_hex(3)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def nul_list(paths: list[str]) -> bytes:
    return "".join(p + "\0" for p in paths).encode("utf-8", "surrogateescape")


def folder_size(folder: Path) -> int:
    """Bytes of every file under `folder` (links not followed): what retention weighs."""
    total = 0
    for top, _dirs, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(top, name)).st_size
    return total


def unrecordable(full: str, limit: int) -> str:
    """Why the file at `full` cannot be in a snapshot ("" if it can; a path that is gone
    can: recording it means dropping it)."""
    try:
        st = os.lstat(full)
    except OSError:
        return ""
    if stat.S_ISLNK(st.st_mode):
        return ""
    if not stat.S_ISREG(st.st_mode):
        return "not a regular file"
    if st.st_size > limit:
        return f"too large: {st.st_size / 1e6:.1f} MB, over the {limit / 1e6:g} MB limit"
    return "" if os.access(full, os.R_OK) else "unreadable"

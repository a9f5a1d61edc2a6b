"""What a workspace's snapshots may hold: never zen's own state, never the whole file system.

Started in the home folder, a snapshot would copy `~/.zen` (the session database, the
shadow repository's own objects) into itself, and a rewind could then delete them; started
in `/`, it would walk every mounted disk. So `~/.zen` and the snapshot folder are left out of
every snapshot and never touched by a rewind, a workspace that is the file system's root
(or inside `~/.zen`) gets no snapshots at all, and the home folder only when the user says
so (front-ends ask: `home_question`).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from zen.base.paths import user_home, zen_home


def workspace_key(root: Path) -> str:
    """The name of a workspace's snapshot folder: its path, hashed."""
    return hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:20]


def refusal(root: Path) -> str | None:
    """Why zen takes no snapshots of `root` (None: it may)."""
    root = _real(root)
    if root == Path(root.anchor):
        return f"checkpoints are off: zen does not snapshot the whole file system ({root})"
    own = _real(zen_home())
    if root == own or own in root.parents:
        return f"checkpoints are off: {root} is zen's own state folder"
    return None


def is_home(root: Path) -> bool:
    home = user_home()
    return home is not None and _real(root) == _real(home)


def home_refusal(root: Path) -> str | None:
    """Why the home folder gets no snapshots unless the user agreed (None: not the home)."""
    if not is_home(root):
        return None
    return (
        "checkpoints are off in your home folder: zen snapshots it (without ~/.zen) only "
        "with --yes or when you answer yes to the shell's question"
    )


def own_state(root: Path, *folders: Path) -> tuple[str, ...]:
    """`~/.zen` and `folders` (the snapshot folder) as workspace-relative prefixes ending in
    `/`, for those inside the workspace."""
    root = _real(root)
    found = []
    for folder in (zen_home(), *folders):
        real = _real(folder)
        if real != root and root in real.parents:
            found.append(real.relative_to(root).as_posix() + "/")
    return tuple(dict.fromkeys(found))


def inside(path: str, prefixes: tuple[str, ...]) -> bool:
    """Whether the workspace-relative `path` is one of `prefixes` or under one."""
    return any(path == p[:-1] or path.startswith(p) for p in prefixes)


def exclude_lines(prefixes: tuple[str, ...]) -> str:
    """`info/exclude` patterns for `prefixes`, anchored, with git's wildcards escaped."""
    lines = []
    for prefix in prefixes:
        escaped = "".join("\\" + ch if ch in "*?[]\\!# " else ch for ch in prefix)
        lines.append("/" + escaped + "\n")
    return "".join(lines)


def _real(path: Path) -> Path:
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return path

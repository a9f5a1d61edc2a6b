"""Bounds on what a sandboxed command can take: the size of any file it writes, and how many
processes and threads it runs at once.

Both are set by a tiny `/bin/sh` step that then becomes bwrap (`exec`), so they hold from the
first instruction of the sandbox on and nothing races them: `ulimit -f` (RLIMIT_FSIZE, soft
and hard: without capabilities the command cannot raise it), and a move into a cgroup of zen's
whose `pids.max` caps every task of zen's sandboxed commands together.

RLIMIT_NPROC is not set: it counts every process of the user (a browser's hundred included),
not the command's, so any value low enough to stop a fork bomb would fail ordinary commands
on a busy desktop, and a high one stops nothing. Where zen may create no cgroup (a desktop
session whose cgroup is not delegated), processes are bounded only by the command's deadline,
and `/sandbox` says so.
"""

from __future__ import annotations

import atexit
import contextlib
import os
from pathlib import Path

FSIZE = 4 << 30
"""4 GiB: larger than any build artefact or test fixture a command should write, small enough
that a runaway `yes > file` stops before it fills an ordinary disk."""
PIDS_MAX = 4096
"""Tasks (processes and threads) of all sandboxed commands of one zen together: a parallel
build on a 64-core machine runs ~2,000 (64 jobs of ~30 threads), kernel.pid_max is at least
32,768, so a fork bomb stops at an eighth of the smallest machine's table and dies with the
command's deadline."""
_SCRIPT = (
    'ulimit -f "$1" || exit 125; [ -z "$2" ] || echo $$ > "$2" || exit 125; shift 2; exec "$@"'
)
_ROOT = Path("/sys/fs/cgroup")
_group: list[Path | None] = []
"""The cgroup made for this process, once looked for ([None]: none could be made)."""


def wrap(argv: list[str]) -> list[str]:
    """`argv` (bwrap's) started under the limits."""
    group = cgroup()
    procs = str(group / "cgroup.procs") if group else ""
    return ["/bin/sh", "-c", _SCRIPT, "zen-limits", str(FSIZE // 512), procs, *argv]


def cgroup() -> Path | None:
    """This process's cgroup with `pids.max` (made at first use, removed at exit), or None."""
    if not _group:
        _group.append(_make())
    return _group[0]


def _make() -> Path | None:
    parent = _own_pids_cgroup()
    if parent is None:
        return None
    for stale in parent.glob("zen-*"):  # left by a zen that was killed
        if not _alive(stale.name[4:]):
            with contextlib.suppress(OSError):
                stale.rmdir()
    group = parent / f"zen-{os.getpid()}"
    try:
        group.mkdir(exist_ok=True)
        (group / "pids.max").write_text(f"{PIDS_MAX}\n")
    except OSError:
        with contextlib.suppress(OSError):
            group.rmdir()
        return None
    atexit.register(_remove, group)
    return group


def _own_pids_cgroup() -> Path | None:
    """Where this process's pids cgroup is, if there is one zen may make children in."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if "pids" in controllers.split(","):  # cgroup v1's pids hierarchy
            folder = _ROOT / "pids" / path.lstrip("/")
            return folder if os.access(folder, os.W_OK) else None
    for line in lines:
        number, controllers, path = line.split(":", 2)
        if number == "0":  # cgroup v2: children get pids only if it is handed down
            folder = _ROOT / path.lstrip("/")
            try:
                handed = "pids" in (folder / "cgroup.subtree_control").read_text().split()
            except OSError:
                return None
            return folder if handed and os.access(folder, os.W_OK) else None
    return None


def _alive(pid: str) -> bool:
    return pid.isdigit() and Path(f"/proc/{pid}").exists()


def _remove(group: Path) -> None:
    with contextlib.suppress(OSError):
        group.rmdir()

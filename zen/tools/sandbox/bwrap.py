"""The bubblewrap command line for one sandboxed command: a pure function of the plan.

The mounts are layered, later ones over earlier ones: the whole filesystem read-only, then
the writable places (workspace, private temp folder, allowed folders), then the workspace's
own configuration read-only again, then the secrets hidden (so a secret inside a writable
folder, a home used as workspace, stays hidden). No capability stays (zen run as root would
otherwise keep `mount`), and a new PID namespace keeps other processes' environments (zen's
keys) out of /proc and ends every process of the command with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Plan:
    """What one sandboxed command may see and touch."""

    root: Path
    """The workspace: writable, and the command's working directory."""
    tmpdir: Path
    """A fresh private folder, passed as TMPDIR."""
    writable: Sequence[Path] = ()
    read_only: Sequence[Path] = ()
    """Existing paths inside writable places that stay read-only (.git/hooks, .zen...)."""
    hidden: Sequence[Path] = ()
    """Existing secret paths: a folder becomes an empty one, a file an empty file."""
    network: bool = False
    extra: Sequence[str] = field(default=())


def bwrap_argv(program: str, plan: Plan, command: Sequence[str]) -> list[str]:
    """`bwrap … -- command` for `plan`."""
    argv = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for path in (plan.root, plan.tmpdir, *plan.writable):
        argv += ["--bind", str(path), str(path)]
    for path in plan.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    for path in plan.hidden:
        if path.is_dir():
            argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            argv += ["--ro-bind", "/dev/null", str(path)]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not plan.network:
        argv.append("--unshare-net")
    argv += [
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
        "--chdir",
        str(plan.root),
        *plan.extra,
    ]
    return [*argv, "--", *command]

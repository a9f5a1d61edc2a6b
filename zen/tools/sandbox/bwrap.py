"""The bubblewrap command line for one sandboxed command: a pure function of the plan.

The mounts are layered, later ones over earlier ones:
1. the whole filesystem read-only, a fresh /dev and /proc;
2. a private /tmp (the command's TMPDIR) and /dev/shm, and an empty $XDG_RUNTIME_DIR (the
   user's sockets);
3. the views, a parent before what lies inside it: each home as a fresh empty folder, what is
   bound back into it read-only (toolchains, PATH entries, ~/.gitconfig), the workspace and
   the `writable` folders;
4. the workspace's own configuration read-only again;
5. the secrets hidden, last, so a secret inside anything shown stays hidden.
The fresh folders are size-limited tmpfs mounts where bubblewrap can (`sized`); an older or
setuid bwrap gets folders of the command's private directory on disk instead. No capability
stays (zen run as root would otherwise keep `mount`), and a new PID namespace keeps other
processes' environments (zen's keys) out of /proc and ends every process of the command.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

TMP_SIZE = 1 << 30
"""/tmp's tmpfs: 1 GiB, more than builds and pip's unpacking need, a bound on RAM."""
HOME_SIZE = 1 << 30
"""Each fresh home's tmpfs: 1 GiB (caches such as ~/.cache/pip, ~/.npm land there)."""
SHM_SIZE = 256 << 20
"""/dev/shm's tmpfs: 256 MiB (semaphores and shared arrays, not a RAM disk)."""


@dataclass(frozen=True)
class Plan:
    """What one sandboxed command may see and touch."""

    root: Path
    """The workspace: writable, and the command's working directory."""
    tmpdir: Path
    """The command's private folder outside the sandbox: the empty file hidden files show,
    and, without `sized`, the folders standing in for the tmpfs mounts."""
    writable: Sequence[Path] = ()
    read_only: Sequence[Path] = ()
    """Existing paths inside writable places that stay read-only (.git/hooks, .zen...)."""
    hidden: Sequence[Path] = ()
    """Existing secret paths: a folder becomes an empty one, a file an empty file."""
    network: bool = False
    homes: Sequence[Path] = ()
    """Folders that start empty: $HOME and the passwd entry's home."""
    shown: Sequence[tuple[Path, Path]] = ()
    """(source, destination) bound back read-only into a fresh home."""
    runtime: Path | None = None
    """$XDG_RUNTIME_DIR, emptied."""
    sized: bool = False
    seccomp_fd: int | None = None
    status_fd: int | None = None
    extra: Sequence[str] = field(default=())


def empty_file(plan: Plan) -> Path:
    """The empty, read-only file a hidden file reads as (a regular file: /dev/null on a
    `nodev` bind reads as EACCES)."""
    return plan.tmpdir / "empty"


def stand_in(plan: Plan, name: str) -> Path:
    """Without `sized`, the on-disk folder a fresh mount is made of."""
    return plan.tmpdir / name


def stand_ins(plan: Plan) -> list[Path]:
    """The folders to create in `tmpdir` before the command (none when `sized`)."""
    if plan.sized:
        return []
    names = ["tmp", "shm", *(f"home{n}" for n in range(len(plan.homes)))]
    return [stand_in(plan, name) for name in names]


def bwrap_argv(program: str, plan: Plan, command: Sequence[str]) -> list[str]:
    """`bwrap … -- command` for `plan`."""
    argv = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    argv += _fresh(plan, "tmp", "/tmp", TMP_SIZE)
    argv += _fresh(plan, "shm", "/dev/shm", SHM_SIZE)
    if plan.runtime is not None:
        argv += ["--tmpfs", str(plan.runtime), "--remount-ro", str(plan.runtime)]
    for path, how, source in _views(plan):
        if how == "home":
            argv += _fresh(plan, f"home{list(plan.homes).index(path)}", str(path), HOME_SIZE)
        elif how == "shown":
            argv += ["--ro-bind", str(source), str(path)]
        else:
            argv += ["--bind", str(path), str(path)]
    for path in plan.read_only:
        argv += ["--ro-bind", str(path), str(path)]
    for path in plan.hidden:
        if path.is_dir():
            argv += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            argv += ["--ro-bind", str(empty_file(plan)), str(path)]
    argv += ["--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    if not plan.network:
        argv.append("--unshare-net")
    argv += ["--cap-drop", "ALL", "--die-with-parent", "--new-session", "--chdir", str(plan.root)]
    if plan.seccomp_fd is not None:
        argv += ["--seccomp", str(plan.seccomp_fd)]
    if plan.status_fd is not None:
        argv += ["--json-status-fd", str(plan.status_fd)]
    return [*argv, *plan.extra, "--", *command]


def _fresh(plan: Plan, name: str, dest: str, size: int) -> list[str]:
    if plan.sized:
        return ["--size", str(size), "--tmpfs", dest]
    return ["--bind", str(stand_in(plan, name)), dest]


def _views(plan: Plan) -> list[tuple[Path, str, Path]]:
    """Every home, bound-back path, workspace and writable folder, ancestors first; on the
    same path the workspace wins over a writable folder, which wins over a shown one, which
    wins over a fresh home."""
    views = [(home, "home", home) for home in plan.homes]
    views += [(dest, "shown", source) for source, dest in plan.shown]
    views += [(path, "writable", path) for path in plan.writable]
    views.append((plan.root, "root", plan.root))
    rank = {"home": 0, "shown": 1, "writable": 2, "root": 3}
    views.sort(key=lambda view: (len(view[0].parts), rank[view[1]]))
    out: list[tuple[Path, str, Path]] = []
    for view in views:  # the same path twice: only the winner (the later one) is mounted
        out = [old for old in out if old[0] != view[0]]
        out.append(view)
    return out

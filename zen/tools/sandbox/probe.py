"""Which program enforces the sandbox, and does it work here? Asked at bash's first command,
never at start-up.

The program is taken only from a path nobody but root can change: a system folder
(`TRUSTED_DIRS`, never PATH: a command could write a fake `bwrap` into `.venv/bin`, which the
user's PATH may list first), or the user's own `sandbox_options.program`, held to the same
rule. A forged binary is stopped by that rule; the probe catches broken setups: a kernel or
container that refuses user namespaces, a filter it cannot load, a "sandbox" that can write
outside or has no PID namespace of its own.

The probe runs through `run_child` (it never blocks the event loop). A definite answer is
kept for the process; a probe that does not answer in time is no answer: nothing is kept,
the command that waited for it does not run, and the next one asks again.
"""

from __future__ import annotations

import os
import platform
import re
import stat
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from zen.tools.child import run_child
from zen.tools.sandbox import seccomp

TRUSTED_DIRS = (
    "/usr/bin",
    "/bin",
    "/usr/sbin",
    "/sbin",
    "/usr/local/bin",
    "/run/current-system/sw/bin",
)
"""Where bwrap is looked for, in order."""
SIZED = (0, 7, 0)
"""The first bubblewrap with `--size` for a tmpfs (not allowed when it is setuid)."""


@dataclass(frozen=True)
class Probe:
    """The sandbox program to use, or why there is none."""

    program: str | None
    problem: str = ""
    sized: bool = False
    """Its tmpfs mounts can be size-limited (bwrap ≥ 0.7.0, not setuid)."""


def locate(configured: str | None = None, reach: Sequence[Path] = ()) -> tuple[str | None, str]:
    """(the program, "") or (None, why not). `reach`: folders sandboxed commands can write or
    a user can fill (the workspace, `writable`, the homes): no program is taken from them, which
    is what stops a fake when zen runs as root, who owns everything."""
    if sys.platform == "darwin":
        name, folders = "sandbox-exec", ("/usr/bin",)
    elif sys.platform.startswith("linux"):
        name, folders = "bwrap", TRUSTED_DIRS
    else:
        return None, f"no sandbox for {sys.platform} commands (docs/sandbox.md)"
    if configured:
        why = untrusted(configured, reach)
        return (configured, "") if not why else (None, f"sandbox_options.program: {why}")
    for folder in folders:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            why = untrusted(path, reach)
            return (path, "") if not why else (None, why)
    where = ", ".join(folders)
    return None, f"{name} is not installed in {where}: install it (apt-get install bubblewrap)"


def untrusted(path: str, reach: Sequence[Path] = ()) -> str:
    """Why `path` may have been planted ("" if only root can have put it there): it and every
    folder above it (links followed) must be owned by root and writable by nobody else (a
    sticky folder, like /tmp, only lets its owners rename what they own), and it must lie
    outside `reach`."""
    if not os.path.isabs(path):
        return f"{path} is not an absolute path"
    real = os.path.realpath(path)
    for place in reach:
        if Path(real).is_relative_to(os.path.realpath(place)):
            return f"{path} lies in {place}, where commands or you write: it may be a fake"
    try:
        info = os.stat(real)
    except OSError as exc:
        return f"{path}: {exc.strerror}"
    if not stat.S_ISREG(info.st_mode) or not info.st_mode & 0o111:
        return f"{path} is not a program"
    if info.st_uid != 0 or info.st_mode & 0o022:
        return f"{path} is not owned by root, or others can change it: it may be a fake"
    folder = os.path.dirname(real)
    while True:
        try:
            info = os.stat(folder)
        except OSError as exc:
            return f"{folder}: {exc.strerror}"
        if info.st_uid != 0 or (info.st_mode & 0o022 and not info.st_mode & stat.S_ISVTX):
            return f"{path} lies in {folder}, which others than root can change: it may be a fake"
        if folder == os.path.dirname(folder):
            return ""
        folder = os.path.dirname(folder)


async def check(program: str, timeout: float) -> Probe | None:
    """Start one tiny sandbox and see that it holds; None when it did not answer in time."""
    if Path(program).name == "sandbox-exec":
        return Probe(program)
    version = await _run([program, "--version"], timeout)
    if version is None:
        return None
    code, text = version
    if code != 0:
        return Probe(None, text.strip().splitlines()[-1] if text.strip() else f"exit {code}")
    found = re.search(r"(\d+)\.(\d+)\.(\d+)", text)
    numbers = tuple(int(n) for n in found.groups()) if found else (0, 0, 0)
    sized = numbers >= SIZED and not os.stat(program).st_mode & stat.S_ISUID
    with tempfile.TemporaryDirectory(prefix="zen-probe-") as outside:
        fds = filter_fds(platform.machine().lower(), deny_unix=True)
        extra = ["--seccomp", str(fds[0])] if fds else []
        argv = [
            program, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            *(["--size", "1048576"] if sized else []), "--tmpfs", "/tmp",
            "--unshare-pid", "--unshare-net", "--cap-drop", "ALL", "--die-with-parent",
            "--new-session", *extra, "--", "/bin/sh", "-c",
            'echo "pid=$$"; echo x > "$1/outside" 2>/dev/null; exit 0', "probe", outside,
        ]  # fmt: skip
        done = await _run(argv, timeout, pass_fds=fds)
        if done is None:
            return None
        code, text = done
        wrote = os.path.exists(os.path.join(outside, "outside"))
    pid = re.search(r"pid=(\d+)", text)
    if code != 0 or pid is None:
        lines = text.strip().splitlines()
        return Probe(None, _refused(lines[-1] if lines else f"exit {code}"))
    if wrote or int(pid.group(1)) > 3:
        return Probe(None, f"{program} ran a sandbox that could write outside it or see other "
                     "processes: it is not the sandbox zen expects")  # fmt: skip
    return Probe(program, sized=sized)


def _refused(reason: str) -> str:
    return (
        f"bwrap cannot create a sandbox here ({reason}): the kernel refuses user namespaces "
        "(sysctl kernel.unprivileged_userns_clone=1, or AppArmor's "
        "restrict_unprivileged_userns=0)"
    )


def filter_fds(machine: str, deny_unix: bool) -> tuple[int, ...]:
    """A pipe's read end holding the seccomp program for bwrap's `--seccomp` (one element), or
    () when zen has none for `machine`. The program (< 200 bytes) fits the pipe's buffer."""
    data = seccomp.program(machine, deny_unix)
    if data is None:
        return ()
    read, write = os.pipe()
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return (read,)


async def _run(
    argv: list[str], timeout: float, pass_fds: tuple[int, ...] = ()
) -> tuple[int | None, str] | None:
    """(exit code, output), or None when it did not finish within `timeout`."""
    try:
        done = await run_child(
            argv, cwd=Path("/"), env={"PATH": "/usr/bin:/bin"}, timeout=timeout,
            limit=4000, merge=True, pass_fds=pass_fds,
        )  # fmt: skip
    except OSError as exc:  # run_child has closed `pass_fds`
        return 1, f"{argv[0]} could not be started: {exc}"
    if done.timed_out:
        return None
    return done.code, done.out.data().decode("utf-8", "replace")

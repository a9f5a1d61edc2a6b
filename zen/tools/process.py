"""Starting a command as a process tree zen can end whole, and ending it, on every platform.

`spawn` starts every command zen runs (bash, git, hooks): in its own session on POSIX (no
controlling terminal, so nothing can prompt on zen's), and on Windows, where
`start_new_session` means nothing, in a kill-on-close Job object with a hidden console of its
own (`win_job.py`): the job ends the whole tree on a timeout or a cancel, and with zen.

A command can leave its group: `setsid cmd &`, a daemon that double-forks. On Linux three more
things find those:
- every bash command runs with a mark in its environment (`ZEN_RUN=<zen pid>-<token>`), which
  its descendants inherit whatever session they move to; /proc/<pid>/environ shows it;
- the processes below the shell in the parent tree (/proc/<pid>/stat) are collected too;
- zen is a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so an orphaned descendant is
  re-parented to zen rather than to PID 1 and stays in reach. Those that zen kills are then
  zen's zombies: they are reaped by their own pid, never with `waitpid(-1)`, which would
  steal the exit statuses asyncio is waiting for.
A process that clears its environment and leaves the session (`env -i setsid cmd`) still
escapes; the tool result then says so only if one is seen.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import sys
import time
from dataclasses import dataclass, field
from typing import Any

MARK = "ZEN_RUN"
_LINUX = sys.platform.startswith("linux")
_WINDOWS = os.name == "nt"
_PR_SET_CHILD_SUBREAPER = 36
_subreaper = False


def become_subreaper() -> bool:
    """Make this process the child subreaper of everything it starts (Linux; once)."""
    global _subreaper
    if _subreaper or not _LINUX:
        return _subreaper
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        _subreaper = False
    return _subreaper


async def spawn(command: str | list[str], **options: Any) -> asyncio.subprocess.Process:
    """Start `command` (a list: the program and its arguments; a string: a command line for
    cmd.exe, Windows only) as a tree `kill_tree` can end whole. OSError if it cannot start."""
    if sys.platform != "win32":  # not _WINDOWS: mypy knows this test
        assert isinstance(command, list)
        return await asyncio.create_subprocess_exec(*command, start_new_session=True, **options)
    from zen.tools import win_job

    _forget_finished_jobs()
    flags = win_job.CREATION_FLAGS
    if isinstance(command, str):
        # cmd.exe must get the command verbatim; exec would re-quote it with backslashes,
        # which cmd does not understand. create_subprocess_shell runs `%COMSPEC% /c "<cmd>"`.
        proc = await asyncio.create_subprocess_shell(command, creationflags=flags, **options)
    else:
        proc = await asyncio.create_subprocess_exec(*command, creationflags=flags, **options)
    try:
        job = win_job.contain(proc.pid)
    except OSError:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()
        await proc.wait()
        raise
    if job is not None:
        _jobs[proc] = job
    return proc


_jobs: dict[asyncio.subprocess.Process, Any] = {}
"""Windows: each started command's Job. A job whose processes have all ended is closed at the
next start; one that still runs something (a background server) is kept, so it lives as long
as zen and ends with it (kill-on-close)."""


def _forget_finished_jobs() -> None:
    for proc, job in list(_jobs.items()):
        if proc.returncode is not None and not job.active():
            job.close()
            del _jobs[proc]


def new_mark() -> str:
    """A value for MARK, unique to one command of this zen process."""
    return f"{os.getpid()}-{secrets.token_hex(6)}"


@dataclass
class Killed:
    """What kill_tree did: how many processes it signalled and which are still alive."""

    found: int = 0
    survivors: list[int] = field(default_factory=list)
    thorough: bool = _LINUX
    """Whether processes that left the group were looked for (Linux), or were all in a job
    (Windows)."""
    shell_only: bool = False
    """Windows without a job: only the command's own process was ended."""

    def describe(self) -> str:
        """What may truthfully be said about the command's processes now."""
        if self.survivors:
            pids = ", ".join(str(p) for p in self.survivors[:10] if p) or "unknown"
            return f"{len(self.survivors)} of its processes could not be stopped (pid {pids})"
        if self.shell_only:
            return "the command was stopped (processes it started may still run)"
        if self.thorough:
            return "the command and every process it started were stopped"
        return "the command's process group was stopped (processes that left it may still run)"


def kill_tree(proc: asyncio.subprocess.Process, mark: str | None = None) -> Killed:
    """Kill the process and everything it started, even after the leader itself has exited
    (a background job may still run). Synchronous, so a cancellation cannot interrupt it."""
    report = Killed()
    if _WINDOWS:
        job = _jobs.get(proc)
        if job is not None:  # every process it started is in the job, whoever its parent is
            report.found, report.survivors = job.terminate()
            report.thorough = True
        else:
            report.shell_only = True
    else:
        import signal

        # The session's process group outlives its leader while any member lives; the leader
        # is in it. Never `proc.kill()` here: Popen polls first, and so may reap the child
        # behind asyncio's watcher ("Unknown child process pid N" on stderr).
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
            report.found += 1
        if _LINUX:
            _kill_escaped(proc.pid, mark, report)
        return report
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    return report


def kill_marked(mark: str) -> int:
    """Kill every process carrying `mark` (Linux; elsewhere nothing is found): what a child
    whose process zen does not own (an MCP server, the SDK's) left running. How many."""
    if not _LINUX:
        return 0
    report = Killed()
    _kill_escaped(None, mark, report)
    return report.found


def _kill_escaped(leader: int | None, mark: str | None, report: Killed) -> None:
    """Kill the leader's descendants (with one) and every marked process, until none is left
    alive."""
    import signal

    killed: set[int] = set()
    for _ in range(5):
        table = _processes()
        targets = _descendants(leader, table) if leader is not None else set()
        targets |= _marked(mark, table)
        targets = {pid for pid in targets if table[pid].state != "Z" and pid != os.getpid()}
        if not targets:
            break
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed |= targets
        time.sleep(0.01)
    report.found += len(killed)
    _reap(killed - {leader})
    table = _processes()
    alive = {pid for pid in killed | _marked(mark, table) if pid in table}
    report.survivors = sorted(pid for pid in alive if table[pid].state != "Z")


@dataclass(frozen=True)
class _Proc:
    ppid: int
    state: str


def _processes() -> dict[int, _Proc]:
    """Every process we can see: pid → (parent, state), from /proc/<pid>/stat."""
    table: dict[int, _Proc] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return table
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                raw = f.read()
        except OSError:
            continue
        rest = raw[raw.rfind(b")") + 2 :].split()  # the command name may hold spaces and ")"
        if len(rest) >= 2:
            table[int(name)] = _Proc(int(rest[1]), rest[0].decode("ascii", "replace"))
    return table


def _descendants(root: int, table: dict[int, _Proc]) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, info in table.items():
        children.setdefault(info.ppid, []).append(pid)
    found: set[int] = set()
    stack = [root]
    while stack:
        for child in children.get(stack.pop(), []):
            if child not in found:
                found.add(child)
                stack.append(child)
    return found


def _marked(mark: str | None, table: dict[int, _Proc]) -> set[int]:
    """Processes whose environment carries MARK=mark."""
    if not mark:
        return set()
    needle = f"\0{MARK}={mark}\0".encode()
    found: set[int] = set()
    for pid in table:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = b"\0" + f.read() + b"\0"
        except OSError:
            continue
        if needle in env:
            found.add(pid)
    return found


_adopted: set[int] = set()
"""Processes a command left running that zen, their subreaper, now parents: reaped by pid."""


def adopt_orphans(mark: str) -> None:
    """After a command ends: note its processes that now have zen as their parent (background
    jobs), so their exit status is collected later instead of leaving zombies."""
    if not (_LINUX and _subreaper):
        return
    table = _processes()
    me = os.getpid()
    _adopted.update(pid for pid in _marked(mark, table) if table[pid].ppid == me)
    reap_adopted()


def reap_adopted() -> None:
    """Collect the adopted processes that have exited (never blocks, never waitpid(-1))."""
    for pid in list(_adopted):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            _adopted.discard(pid)
            continue
        if done:
            _adopted.discard(pid)


def _reap(pids: set[int], within: float = 0.5) -> None:
    """Collect the exit status of killed processes that became our children (we are their
    subreaper), by pid only: asyncio's own children are never touched."""
    me = os.getpid()
    deadline = time.monotonic() + within
    pending = set(pids)
    while pending:
        table = _processes()
        for pid in list(pending):
            info = table.get(pid)
            if info is None:
                pending.discard(pid)
            elif info.ppid != me:
                pending.discard(pid)  # not ours to reap
            elif info.state == "Z":
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(pid, os.WNOHANG)
                pending.discard(pid)
        if not pending or time.monotonic() > deadline:
            return
        time.sleep(0.01)

"""The one rule for every child process zen starts and waits for (bash, hooks, git, the
sandbox and its probe).

Each caller got part of it wrong once: a hook that floods its pipe hung zen forever after its
timeout (`proc.wait()` on Python 3.11 also waits for a pipe nobody read any more) and held
every byte it wrote. So `run_child` does all of it, once:
- it starts the command with `process.spawn` (its own session or Job) and the process mark,
  so everything it starts, even what leaves the session, can be found and killed;
- its pipes are read until they close, whatever happens, keeping at most `limit` bytes each
  (the first bytes, and with `tail` the last ones too): a flood costs time, never memory;
- it has a deadline; past it (or at the output limit with `stop_at_limit`, or when `watch`,
  reading stdout as it comes, has seen enough: ripgrep's matches) the tree dies;
- after a kill it waits for asyncio to collect the exit status (`returncode`), generously and
  through a repeated cancel, before any pipe is closed: a transport closed over an unreaped
  child reaps it behind asyncio's back ("Unknown child process pid N" on stderr);
- pipes still held open after the exit (a background job) are drained briefly, then the
  holders are killed, then the pipes closed — never the transport of a live child.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zen.tools.process import MARK, Killed, adopt_orphans, become_subreaper, kill_tree, new_mark
from zen.tools.process import spawn as spawn_tree

LINGER = 1.0
"""Seconds the output may stay open after the process exited (a background job holds it)."""
SETTLE = 30.0
"""Seconds to wait for a killed process's exit status: generous (SIGKILL ends a process at
once, a loaded machine may take a while to say so), but bounded."""


class Output:
    """The first bytes of a stream and, with `tail`, its last ones: never over `limit`."""

    def __init__(self, limit: int, tail: bool = False) -> None:
        self.head_limit = limit // 2 if tail else limit
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    @property
    def full(self) -> bool:
        """More came than is kept."""
        return self.total > self.head_limit + self.tail_limit

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if self.tail_limit and chunk:
            self.tail += chunk
            if len(self.tail) > 2 * self.tail_limit:
                del self.tail[: len(self.tail) - self.tail_limit]

    @property
    def cut(self) -> int:
        """Bytes dropped between head and tail."""
        return self.total - len(self.head) - min(len(self.tail), self.tail_limit)

    def parts(self) -> tuple[bytes, bytes]:
        """(head, tail); tail is empty when nothing was cut."""
        if self.cut <= 0:
            return bytes(self.head + self.tail), b""
        return bytes(self.head), bytes(self.tail[-self.tail_limit :])

    def data(self) -> bytes:
        """What was kept, head then tail (a cut in between is the caller's to mention)."""
        head, tail = self.parts()
        return head + tail


@dataclass
class Finished:
    """How a child ended and what it said."""

    code: int | None
    """Its exit code; None if it could not be collected even after the kill."""
    out: Output
    err: Output | None
    timed_out: bool = False
    cut_short: bool = False
    """Stopped at the output limit (`stop_at_limit`)."""
    lingered: bool = False
    """It exited, but processes it left held its output open and were stopped."""
    killed: Killed | None = None


async def run_child(
    command: str | list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    timeout: float,
    limit: int,
    stdin: bytes | None = None,
    merge: bool = False,
    tail: bool = False,
    watch: Callable[[bytes], bool] | None = None,
    stop_at_limit: bool = False,
    keep_background: bool = False,
    grace: float = 0.0,
    pass_fds: Sequence[int] = (),
    **options: Any,
) -> Finished:
    """Run `command` to its end under the rule above. OSError if it cannot start.

    `watch`: gets stdout's chunks as they come (ripgrep's matches); True when it has seen
    enough: the tree is killed and the result `cut_short`.
    `merge`: stderr into stdout. `keep_background`: processes it leaves running with their
    output elsewhere may stay (bash's `server > log &`); otherwise the whole tree, marked
    ones too, is killed when the command ends (a hook's daemon does not outlive it).
    `grace`: at the deadline the process first gets SIGTERM and that long to stop itself
    (a child zen then still reports what it did), before its tree is killed.
    `pass_fds`: descriptors the child inherits (the sandbox's seccomp program and status
    pipe; POSIX only). They are handed over: zen's copies are closed once the child has
    started, or failed to.
    """
    mark = new_mark()
    become_subreaper()
    if pass_fds:
        options["pass_fds"] = tuple(pass_fds)
    try:
        proc = await spawn_tree(
            command,
            cwd=cwd,
            env={**env, MARK: mark},
            stdin=asyncio.subprocess.PIPE if stdin is not None else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT if merge else asyncio.subprocess.PIPE,
            **options,
        )
    finally:
        for fd in pass_fds:
            with contextlib.suppress(OSError):
                os.close(fd)
    done = Finished(None, Output(limit, tail), None if merge else Output(limit, tail))
    full = asyncio.Event()
    enough = full if stop_at_limit or watch else None
    readers = [asyncio.ensure_future(_read(proc.stdout, done.out, enough, watch))]
    if done.err is not None:
        readers.append(asyncio.ensure_future(_read(proc.stderr, done.err, None)))
    feeder = asyncio.ensure_future(_feed(proc.stdin, stdin))
    try:
        await _until_exit(proc, mark, timeout, full, done, grace)
        await _drain(proc, mark, readers, done)
    except BaseException:  # cancelled: the whole tree goes, its status is collected, then on
        kill_tree(proc, mark)
        await settle(proc)
        raise
    finally:
        for task in [*readers, feeder]:
            task.cancel()
        close_pipes(proc)
    done.code = proc.returncode
    if stop_at_limit and done.out.full:  # also when it ended before the kill
        done.cut_short = True
    if keep_background:
        adopt_orphans(mark)
    else:
        kill_tree(proc, mark)  # what it left behind; the leader is already collected
    return done


async def _until_exit(
    proc: asyncio.subprocess.Process,
    mark: str,
    timeout: float,
    full: asyncio.Event,
    done: Finished,
    grace: float,
) -> None:
    """Wait for the exit; past the deadline (after `grace`) or at a full output, kill the
    tree and wait."""
    exited = asyncio.ensure_future(_exited(proc))
    filled = asyncio.ensure_future(full.wait())
    try:
        await asyncio.wait({exited, filled}, timeout=timeout, return_when="FIRST_COMPLETED")
    finally:
        filled.cancel()
        exited.cancel()
    if proc.returncode is not None:
        return
    done.cut_short = full.is_set()
    done.timed_out = not done.cut_short
    if done.timed_out and grace > 0 and _terminate(proc):
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(_exited(proc), grace)
        if proc.returncode is not None:
            return
    done.killed = kill_tree(proc, mark)
    await settle(proc)


def _terminate(proc: asyncio.subprocess.Process) -> bool:
    """SIGTERM to the process alone (TerminateProcess on Windows). Not through Popen on POSIX:
    it polls first, and a poll may reap the child behind asyncio's back."""
    try:
        if os.name == "nt":
            proc.terminate()
        else:
            os.kill(proc.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    return True


async def _drain(
    proc: asyncio.subprocess.Process,
    mark: str,
    readers: Sequence[asyncio.Future[None]],
    done: Finished,
) -> None:
    """Let the readers reach the end; a pipe a leftover process holds gets it killed."""
    if await _ended(readers):
        return
    done.lingered = True
    done.killed = kill_tree(proc, mark)
    await _ended(readers)


async def _ended(readers: Sequence[asyncio.Future[None]]) -> bool:
    _, pending = await asyncio.wait(readers, timeout=LINGER)
    return not pending


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the exit status. Not `proc.wait()`: on Python 3.11 that also waits for the
    pipes to close, which a background job (or a paused, full pipe) can keep open forever."""
    delay = 0.002
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.01)


async def settle(proc: asyncio.subprocess.Process, within: float = SETTLE) -> None:
    """After a kill: wait until asyncio has collected the exit status, even if cancelled again
    meanwhile (a child left unwaited is later stolen from asyncio's child watcher)."""
    deadline = time.monotonic() + within
    while proc.returncode is None and time.monotonic() < deadline:
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.sleep(0.01)


def close_pipes(proc: asyncio.subprocess.Process) -> None:
    """Close zen's ends of the pipes (one that an escaped process holds, too). Only the
    pipes: closing the process transport itself would poll, and so reap, a child asyncio has
    not collected. Before the exit status is in, nothing is closed."""
    transport = getattr(proc, "_transport", None)
    if transport is None or proc.returncode is None:
        return
    for fd in (0, 1, 2):
        pipe = transport.get_pipe_transport(fd)
        if pipe is not None:
            pipe.close()


async def _read(
    stream: asyncio.StreamReader | None,
    sink: Output,
    full: asyncio.Event | None,
    watch: Callable[[bytes], bool] | None = None,
) -> None:
    """Read to the end (the child never blocks on a full pipe), keeping what `sink` keeps;
    `full` is set when the output reached its limit or `watch` has seen enough."""
    if stream is None:
        return
    while chunk := await stream.read(65536):
        sink.feed(chunk)
        if full is not None and (watch(chunk) if watch else sink.full):
            full.set()


async def _feed(pipe: asyncio.StreamWriter | None, data: bytes | None) -> None:
    """Write stdin and close it; a child that does not read it is no error."""
    if pipe is None:
        return
    with contextlib.suppress(ConnectionError, OSError):
        if data:
            pipe.write(data)
            await pipe.drain()
        pipe.close()

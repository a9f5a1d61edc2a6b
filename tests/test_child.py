"""The one rule for child processes (zen/tools/child.py), with real children: a flood, one that
ignores SIGTERM, one that starts a daemon, and a killed one asyncio must still collect."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from zen.tools.child import run_child

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell commands"),
    pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning"),
]


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def wait_dead(pid: int, within: float = 3.0) -> bool:
    deadline = time.monotonic() + within
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not alive(pid)


async def test_a_flooding_child_is_stopped_at_its_deadline_and_keeps_a_bounded_part(
    tmp_path: Path,
) -> None:
    started = time.monotonic()
    done = await run_child(["yes"], cwd=tmp_path, env=dict(os.environ), timeout=1, limit=1000)
    assert time.monotonic() - started < 10
    assert done.timed_out and done.code is not None and done.code < 0
    assert done.out.total > 100_000 and len(done.out.data()) <= 1000


async def test_a_flood_stops_at_the_output_limit_when_asked(tmp_path: Path) -> None:
    done = await run_child(
        ["yes"], cwd=tmp_path, env=dict(os.environ), timeout=30, limit=5000, stop_at_limit=True
    )
    assert done.cut_short and not done.timed_out and done.out.data() == b"y\n" * 2500


@pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")
async def test_a_child_ignoring_sigterm_and_the_daemon_it_started_die_at_the_deadline(
    tmp_path: Path,
) -> None:
    command = "trap '' TERM; setsid sh -c 'trap \"\" TERM; sleep 300' & echo $! > pid; sleep 300"
    started = time.monotonic()
    done = await run_child(
        ["/bin/sh", "-c", command], cwd=tmp_path, env=dict(os.environ), timeout=1, limit=100
    )
    assert done.timed_out and time.monotonic() - started < 10
    assert wait_dead(int((tmp_path / "pid").read_text()))


@pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")
async def test_a_daemon_holding_the_output_ends_the_call_at_once_and_dies(tmp_path: Path) -> None:
    started = time.monotonic()
    done = await run_child(
        ["/bin/sh", "-c", "setsid sleep 300 & echo $!"],
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=20,
        limit=100,
    )
    assert time.monotonic() - started < 5
    assert done.code == 0 and not done.timed_out and done.lingered
    assert wait_dead(int(done.out.data()))


@pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")
async def test_a_daemon_with_its_output_elsewhere_dies_with_the_command_unless_kept(
    tmp_path: Path,
) -> None:
    command = "setsid sleep 300 > /dev/null 2>&1 & echo $!"
    env = dict(os.environ)
    gone = await run_child(["/bin/sh", "-c", command], cwd=tmp_path, env=env, timeout=9, limit=99)
    assert not gone.lingered and wait_dead(int(gone.out.data()))
    kept = await run_child(
        ["/bin/sh", "-c", command], cwd=tmp_path, env=env, timeout=9, limit=99, keep_background=True
    )
    pid = int(kept.out.data())
    assert alive(pid)
    os.kill(pid, 9)


async def test_a_cancelled_child_is_killed_and_collected(tmp_path: Path) -> None:
    task = asyncio.ensure_future(
        run_child(
            ["/bin/sh", "-c", "echo $$ > pid; exec sleep 300"],
            cwd=tmp_path,
            env=dict(os.environ),
            timeout=60,
            limit=100,
        )
    )
    while not (tmp_path / "pid").exists() or not (tmp_path / "pid").read_text().strip():
        await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_dead(int((tmp_path / "pid").read_text()), within=0.5)


KILLED_TWICE = """
import asyncio, sys, time
from zen.tools.child import close_pipes
from zen.tools.process import kill_tree, spawn

async def main():
    proc = await spawn(["sleep", "30"], stdout=asyncio.subprocess.PIPE)
    kill_tree(proc)
    time.sleep(0.3)  # the loop is blocked: the child is a zombie nobody collected yet
    kill_tree(proc)  # a second kill (a timeout, then a pipe still held) must not reap it
    close_pipes(proc)
    await proc.wait()
    print(proc.returncode)

if sys.version_info < (3, 12):
    asyncio.set_child_watcher(asyncio.PidfdChildWatcher())
asyncio.run(main())
"""


@pytest.mark.e2e
@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="needs a pidfd child watcher")
def test_a_killed_child_is_collected_by_asyncio_never_behind_its_back() -> None:
    """Popen.kill() polls, and a poll reaps a zombie that asyncio's watcher then cannot find:
    "Unknown child process pid N, will report returncode 255" on stderr (seen in CI)."""
    done = subprocess.run(
        [sys.executable, "-c", KILLED_TWICE],
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.stdout.strip() == "-9", done.stderr
    assert "Unknown child process" not in done.stderr
    assert done.stderr == ""


async def test_a_grace_lets_a_child_stop_itself_and_one_ignoring_sigterm_still_dies(
    tmp_path: Path,
) -> None:
    env = dict(os.environ)
    polite = "trap 'echo bye; exit 0' TERM; sleep 300 & wait"
    done = await run_child(
        ["/bin/sh", "-c", polite], cwd=tmp_path, env=env, timeout=1, limit=99, grace=5
    )
    assert done.timed_out and done.code == 0 and done.out.data() == b"bye\n"
    started = time.monotonic()
    deaf = "trap '' TERM; sleep 300"
    done = await run_child(
        ["/bin/sh", "-c", deaf], cwd=tmp_path, env=env, timeout=1, limit=99, grace=1
    )
    assert done.timed_out and done.killed is not None and time.monotonic() - started < 10

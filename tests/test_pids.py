"""`pid_alive` asks, never touches: on Windows `os.kill(pid, 0)` would terminate the process."""

from __future__ import annotations

import subprocess
import sys

import pytest

from zen.base.pids import pid_alive


@pytest.mark.e2e
def test_a_running_process_is_alive_and_asking_leaves_it_running() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(30)"], stdin=subprocess.DEVNULL
    )
    try:
        assert pid_alive(child.pid)
        assert pid_alive(child.pid)
        assert child.poll() is None  # still running after being asked twice
    finally:
        child.kill()
        child.wait()
    assert not pid_alive(child.pid)


def test_this_process_and_nonsense_pids() -> None:
    import os

    assert pid_alive(os.getpid())
    assert not pid_alive(0)
    assert not pid_alive(-5)

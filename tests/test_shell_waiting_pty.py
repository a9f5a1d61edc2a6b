"""The shell on a pty while the model is slow: the live line says what zen waits for, a task
time limit ends the run but not the shell, and estimated token counts are marked."""

from __future__ import annotations

import re
import sys
import time
from typing import Any

import pytest

from tests.fakes.server import text
from tests.test_shell_pty import assert_clean, once, shell  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]


def test_a_slow_first_token_is_shown_on_the_live_line(shell: Any) -> None:  # noqa: F811
    zen, _ = shell([text("Here at last.\n", delay=3.5, usage=None)])
    out = zen.task("hello")
    assert re.search(r"main › waiting for the model's first token: \ds \(gives up at 300s\)", out)
    lines = zen.lines()
    once(lines, "Here at last.")
    assert not any("waiting for" in line for line in lines)  # a live line leaves no trace
    assert any(line.startswith("main ~") and " in / ~" in line for line in lines)
    assert_clean(zen)
    assert zen.exit() == 0


def test_max_time_ends_the_run_and_the_shell_goes_on(shell: Any) -> None:  # noqa: F811
    zen, fake = shell([text("too late", delay=30), text("second answer\n")], "--max-time", "1")
    start = time.monotonic()
    zen.task("first")
    assert time.monotonic() - start < 15
    zen.task("second")
    lines = zen.lines()
    assert any("stopped after 1 s (max_time" in line for line in lines)
    once(lines, "second answer")
    assert zen.exit() == 0
    assert len(fake.requests) == 2

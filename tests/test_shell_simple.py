"""The plain input() shell (`--simple`, pipes) on every OS: end of input and its hint."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import text
from zen.base.preamble import asked

pytestmark = pytest.mark.e2e


def shell(fake: Any, project: Path, home: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zen", "--simple", "--base-url", fake.base_url, "--api-key", "k"],
        cwd=project,
        input=stdin,
        capture_output=True,
        encoding="utf-8",
        timeout=60,
        env=zen_env(home),
    )


def test_ctrl_d_as_a_character_ends_the_input_and_never_reaches_the_model(
    fake_llm: Any, project: Path, home: Path
) -> None:
    """A Windows console turns Ctrl-D at input() into a `\\x04` line: it must end the shell
    like Ctrl-Z Enter, not go to the model."""
    fake = fake_llm([text("one"), text("two")])
    done = shell(fake, project, home, "hello\x04 there\n\x04\nnever sent\n")
    assert done.returncode == 0, done.stderr
    assert len(fake.requests) == 1
    sent = [asked(m["content"]) for m in fake.requests[0]["messages"] if m["role"] == "user"]
    assert sent == ["hello there"]


def test_the_exit_hint_names_this_platforms_end_of_input(
    fake_llm: Any, project: Path, home: Path
) -> None:
    fake = fake_llm([])
    done = shell(fake, project, home, "")
    assert done.returncode == 0, done.stderr
    key = "Ctrl-Z then Enter" if sys.platform == "win32" else "Ctrl-D"
    assert f"/help for commands, {key} to exit" in done.stdout

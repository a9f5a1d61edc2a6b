"""Sessions in the interactive shell (through a pty): /sessions, /resume, /new, -c, -r."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import text
from tests.test_shell_pty import Zen, shell, user_texts  # noqa: F401  (shell is a fixture)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]


def test_sessions_resume_and_new_in_the_shell(shell: Any) -> None:  # noqa: F811
    zen, fake = shell([text("Noted 42."), text("Noted blue."), text("It was 42.")])
    zen.task("remember the number 42")
    out = zen.task("/new")
    assert "new conversation" in out and "/resume" in out
    zen.task("remember the colour blue")
    listing = zen.task("/sessions")
    assert "1. " in listing and "2. " in listing
    assert "remember the colour blue" in listing and "remember the number 42" in listing
    out = zen.task("/resume 2")
    assert "resumed session" in out and "Noted 42." in out
    zen.task("what number was it?")
    assert user_texts(fake.requests[-1]) == ["remember the number 42", "what number was it?"]
    assert "no session" in zen.task("/resume ffffffffffff")
    assert zen.exit() == 0


def test_continue_and_pick_at_start(fake_llm: Any, project: Path, home: Path) -> None:
    fake = fake_llm([text("First."), text("Second."), text("Third."), text("Fourth.")])
    zen = Zen(fake, project, home)
    try:
        zen.task("the first task")
        assert zen.exit() == 0
    finally:
        zen.close()

    zen = Zen(fake, project, home, "-c")
    try:
        assert "resumed session" in "\n".join(zen.lines())
        zen.task("go on")
        assert user_texts(fake.requests[-1]) == ["the first task", "go on"]
        zen.exit()
    finally:
        zen.close()

    zen = Zen(fake, project, home)  # a new session, to pick against
    try:
        zen.task("another task")
        zen.exit()
    finally:
        zen.close()

    zen = Zen(fake, project, home, "-r", state="")  # the list and a question come first
    try:
        zen.ask("resume which?")
        screen = "\n".join(zen.lines())
        assert "another task" in screen and "the first task" in screen
        assert "2 tasks" in screen
        zen.child.send("2\r")
        zen.prompt("single")
        zen.task("and finally")
        assert user_texts(fake.requests[-1]) == ["the first task", "go on", "and finally"]
        zen.exit()
    finally:
        zen.close()


def test_a_failed_request_says_the_message_was_not_kept(shell: Any) -> None:  # noqa: F811
    from tests.fakes.server import status

    zen, fake = shell([status(400, message="bad things")] * 2 + [text("Fine.")])
    out = zen.task("first try")
    assert "bad things" in out and "was not kept" in out
    zen.task("first try")
    zen.task("again")
    assert user_texts(fake.requests[-1]) == ["again"]

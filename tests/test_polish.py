"""Issue 40, point 10's polish, each through the CLI."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_shell_pty import Zen

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and pty"),
]


def test_rewind_list_has_a_header_and_labels_a_message_sent_after_a_bang_command(
    fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    fake = fake_llm(
        [tool_calls([call("write-file", {"path": "a.txt", "content": "a\n"})]), text("Done.")]
    )
    zen = Zen(fake, project, home, "--yes", state="single·yes")
    try:
        zen.task("!echo hi there", state="single·yes")
        zen.task("write the file", state="single·yes")
        assert zen.exit() == 0
    finally:
        zen.close()
    listed = run_zen("rewind", "--list")
    assert listed.code == 0, listed.err
    header, *rows = listed.out.splitlines()
    assert header.split() == ["ID", "TAKEN", "BEFORE", "MESSAGE"]
    assert len(rows) == 1 and "<shell-command>" not in rows[0], rows
    assert rows[0].endswith("message  write the file (after !echo hi there)"), rows


def test_a_declined_calls_feedback_is_said_once(fake_llm: Any, project: Path, home: Path) -> None:
    fake = fake_llm([tool_calls([call("bash", {"command": "touch x"})]), text("Understood.")])
    zen = Zen(fake, project, home)
    try:
        zen.type("make the file\r")
        zen.ask("allow?")
        zen.type("n\r")
        zen.ask("tell the model why")
        zen.type("please use python instead\r")
        zen.prompt("single")
        said = [ln for ln in zen.lines() if "use python" in ln and "tell the model" not in ln]
        assert said == ["✗ bash touch x — declined: please use python instead"], said
    finally:
        zen.close()


PAGE = (
    "<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title><style>body{margin:0}</style>"
    "</head><body>" + "<p>nginx upstream details</p>" * 40 + "</body></html>"
)


def test_a_5xx_web_page_is_summed_up_once_then_retries_are_counted(
    fake_llm: Any, run_zen: Any
) -> None:
    from tests.fakes.server import status

    fake = fake_llm([status(502, body=PAGE)] * 3 + [text("Fine now.")])
    done = run_zen("-p", "hi", "--base-url", fake.base_url, "--api-key", "k", "--model", "m")
    assert done.code == 0, done.err
    retries = [line for line in done.err.splitlines() if "retrying" in line]
    assert len(retries) == 3, done.err
    assert "a web page: 502 Bad Gateway" in retries[0] and "<" not in retries[0], retries
    assert all("the same error" in line and "Gateway" not in line for line in retries[1:])
    assert "nginx" not in done.err


def test_the_project_notes_line_is_an_event_line_apart_from_the_answer(
    fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    (project / "a.py").write_text("def a():\n    return 1\n")
    note = {"action": "write", "key": "file:a.py", "content": "a() returns 1", "summary": "a=1"}
    fake = fake_llm([tool_calls([call("memo", note)]), text("noted"), text("It returns 1.")])
    args = ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model", "--yes"]
    assert run_zen("-p", "study a.py", *args).code == 0
    zen = Zen(fake, project, home)
    try:
        zen.task("what does a.py do?")
        lines = zen.lines()
        at = lines.index("• 1 project note from earlier sessions offered (/memo)")
        assert lines[at + 1] == "" and lines[at + 2] == "It returns 1.", lines[at : at + 3]
    finally:
        zen.close()


def test_a_session_whose_request_never_reached_the_model_is_not_kept(
    fake_llm: Any, run_zen: Any
) -> None:
    from tests.fakes.server import status

    fake = fake_llm([text("Hello.")])
    args = ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]
    assert run_zen("-p", "the one that worked", *args).code == 0
    broken = fake_llm([status(400, message="bad request")])
    failed = run_zen("-p", "never reached", "--base-url", broken.base_url, "--api-key", "k")
    assert failed.code != 0
    listed = run_zen("sessions", "list", "--all")
    assert listed.code == 0, listed.err
    assert "the one that worked" in listed.out
    assert "never reached" not in listed.out and "0 tasks" not in listed.out, listed.out


def test_rewind_asks_one_question_with_clear_choices_and_re_asks_on_nonsense(
    fake_llm: Any, project: Path, home: Path
) -> None:
    fake = fake_llm(
        [tool_calls([call("write-file", {"path": "a.txt", "content": "a\n"})]), text("Done.")]
    )
    zen = Zen(fake, project, home, "--yes", state="single·yes")
    try:
        zen.task("write a", state="single·yes")
        zen.type("/rewind 1\r")
        zen.ask("rewind [b]oth code and conversation, [c]ode, c[o]nversation, or [n]o?")
        zen.type("yes\r")  # not a choice: asked again, nothing rewound
        zen.expect("answer b (both), c (code), o (conversation), n (no)")
        zen.ask("[n]o?")
        assert (project / "a.txt").exists()
        zen.type("c\r")  # the answer is the confirmation: no second question
        zen.prompt("single·yes")
        assert not (project / "a.txt").exists()
        lines = zen.lines()
        assert any("restored 1 file(s)" in line for line in lines), lines
        assert not any("restore 1 file(s)?" in line for line in lines), lines
    finally:
        zen.close()

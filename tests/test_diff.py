"""`zen diff` and the shell's `/diff`: what zen changed in a session, from its checkpoints,
with what others changed between messages shown apart; file bytes never reach the terminal
raw, binary files are only named."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import FakeLLM, call, text, tool_calls
from tests.test_shell_pty import Zen

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell and pty"),
]

HOSTILE = "title \x1b]0;PWNED\x07 clear \x1b[2J end\n"


def args_for(fake: FakeLLM) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model", "--yes"]


FIRST = [
    tool_calls(
        [
            call("write-file", {"path": "app.py", "content": "x = 1\n"}),
            call("write-file", {"path": "evil.txt", "content": HOSTILE}),
            call("bash", {"command": "printf 'a\\000b' > blob.bin"}),
        ]
    ),
    text("Done."),
]
SECOND = [
    tool_calls(
        [call("edit-file", {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"})]
    ),
    text("Done again."),
]


def test_zen_diff_shows_the_latest_session_with_others_changes_apart(
    fake_llm: Any, run_zen: Any, project: Path
) -> None:
    (project / "notes.txt").write_text("one\n")
    first = run_zen("-p", "make app", *args_for(fake_llm(list(FIRST))))
    assert first.code == 0, first.err
    (project / "notes.txt").write_text("one\nuser line\n")  # the user, between the messages
    second = run_zen("-p", "bump it", "--continue", *args_for(fake_llm(list(SECOND))))
    assert second.code == 0, second.err

    done = run_zen("diff")
    assert done.code == 0, done.err
    out = done.out
    assert "\x1b" not in out and "\x07" not in out  # piped: plain, and the file's escapes shown
    assert "+title \ufffd clear \ufffd end" in out
    assert "Binary file blob.bin changed" in out and "a\x00b" not in out
    first_at = out.index("── zen, message 1 “make app”")
    others_at = out.index("── changed outside zen before message 2")
    second_at = out.index("── zen, message 2 “bump it”")
    assert first_at < others_at < second_at
    assert "+x = 1" in out[first_at:others_at]
    assert "+user line" in out[others_at:second_at] and "user line" not in out[second_at:]
    assert "-x = 1\n+x = 2" in out[second_at:]


def test_diff_in_the_shell_is_coloured_and_terminal_safe(
    fake_llm: Any, project: Path, home: Path
) -> None:
    fake = fake_llm(list(FIRST))
    zen = Zen(fake, project, home, "--yes", state="single·yes")
    try:
        zen.task("make app", state="single·yes")
        shown = zen.task("/diff", state="single·yes")
        lines = zen.lines()
        assert any(line.startswith("── zen, message 1") for line in lines), lines
        assert "+x = 1" in lines
        assert "+title \ufffd clear \ufffd end" in lines
        assert "Binary file blob.bin changed" in lines
        assert "PWNED\x07" not in shown and "\x1b[2J" not in shown
        assert "\x1b[32m+x = 1" in shown or "\x1b[0;32m+x = 1" in shown, shown  # green
        assert zen.exit() == 0
    finally:
        zen.close()

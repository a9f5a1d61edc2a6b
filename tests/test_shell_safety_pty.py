"""The shell through a pseudo-terminal: approvals show everything that will run, and nothing
from the model, a tool or a server drives the terminal. The bytes are replayed in pyte."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import FakeLLM, call, status, text, tool_calls
from tests.test_shell_pty import Zen, assert_clean, once, tool_results
from tests.test_terminal_safe import ERASE_UP, HOSTILE, SHOWN, TITLE, P

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]


@pytest.fixture
def shell(fake_llm: Any, project: Path, home: Path) -> Any:
    started: list[Zen] = []

    def start(script: Any, *args: str) -> tuple[Zen, FakeLLM]:
        fake = fake_llm(script)
        started.append(Zen(fake, project, home, *args))
        return started[-1], fake

    yield start
    for zen in started:
        zen.close()


def test_a_60_line_bash_command_is_shown_whole_before_it_is_approved(
    shell: Any, project: Path
) -> None:
    body = [f"echo step {n:02d}" for n in range(1, 60)]
    command = "\n".join([*body, "touch destroyed"])  # the harmful part is the 60th line
    zen, fake = shell([tool_calls([call("bash", {"command": command})]), text("Declined.")])
    zen.type("tidy up\r")
    zen.ask("allow?")
    zen.type("n\r")
    zen.ask("tell the model why")
    zen.type("\r")
    zen.prompt("single")
    lines = zen.lines()
    once(lines, "  $ echo step 01")
    for line in body[1:]:
        once(lines, f"    {line}")
    once(lines, "    touch destroyed")
    assert not any("more lines" in line for line in lines)
    first, last = lines.index("  $ echo step 01"), lines.index("    touch destroyed")
    assert last - first == 59  # nothing in between, nothing cut
    assert not (project / "destroyed").exists()
    assert "declined" in tool_results(fake.requests[1])[0]
    assert_clean(zen)


def test_nothing_from_the_model_tools_or_servers_drives_the_terminal(
    shell: Any, project: Path
) -> None:
    zen, fake = shell(
        [
            tool_calls(
                [
                    call("bash", {"command": f"echo ran {TITLE}\nexit 0 # {ERASE_UP}"}),
                    call(f"bad{TITLE}tool", {}),
                ]
            ),
            text(f"The answer {HOSTILE} ends here."),
            status(400, message=f"bad {HOSTILE} request"),
        ]
    )
    zen.type("go\r")
    zen.ask("allow?")
    zen.type("y\r")
    zen.prompt("single")
    zen.task("again")
    lines = zen.lines()
    scr_title = _title(zen)
    assert scr_title == ""  # the window was never retitled
    once(lines, f"  $ echo ran {P}")  # the approval shows the placeholders...
    once(lines, f"    exit 0 # {P}{P}")
    once(lines, f"✓ bash echo ran {P} exit 0 # {P}{P} — exit 0")  # ...and the line stays
    assert any(line.startswith(f"✗ bad{P}tool — unknown tool") for line in lines), lines
    once(lines, f"The answer {SHOWN} ends here.")
    assert any(f"(HTTP 400: bad {SHOWN[:12]}" in line for line in lines), lines
    assert "ran" in tool_results(fake.requests[1])[0]
    assert_clean(zen)
    raw = zen.agent_output().decode("utf-8", "replace")
    assert not any(c in raw for c in "\x07\x9b\x9d\u202e\u2066")
    assert zen.exit() == 0


def _title(zen: Any) -> str:
    import pyte

    scr = pyte.Screen(100, 30)
    pyte.ByteStream(scr).feed(zen.raw.getvalue())
    return scr.title


def test_leaving_the_sandbox_is_asked_even_under_yes(
    shell: Any, project: Path, var_tmp: Path
) -> None:
    """`/yes` and an `always` answer approve sandboxed commands, never one leaving the
    sandbox, whose question offers no `always` (issue 40: it offered one it did not keep);
    `/sandbox` shows and switches the mode; `!cmd`, typed by a person, runs outside it with
    `auto`, inside with `on`."""
    from zen.tools.sandbox.runner import probe_now

    if (found := probe_now()).program is None:
        pytest.skip(f"no working sandbox here: {found.problem}")
    outside = {"command": "touch outside-made", "unsandboxed": "needs my ssh key"}
    zen, fake = shell(
        [
            tool_calls([call("bash", {"command": "touch inside-made"})]),
            tool_calls([call("bash", outside)]),
            tool_calls([call("bash", {**outside, "command": "touch again-made"})]),
            text("All asked."),
        ]
    )
    assert "auto: bwrap, writes only in the workspace" in zen.task("/sandbox")
    zen.task("/yes", state="single·yes")
    zen.type("go\r")
    zen.expect("(outside the sandbox: needs my ssh key)")
    zen.ask("allow outside the sandbox? [y]es  [n]o (asked every time)")
    zen.type("a\r")  # not an answer here
    zen.expect("answer y (yes) or n (no)")
    zen.ask("allow outside the sandbox?")
    zen.type("y\r")
    zen.expect("touch again-made")  # past the first question's last drawing
    zen.ask("allow outside the sandbox?")  # the next one is asked again, as the question said
    zen.type("y\r")
    zen.expect("All asked.")
    zen.prompt("single·yes")
    assert not any("[a]lways" in line for line in zen.lines())
    assert (project / "inside-made").exists() and (project / "outside-made").exists()
    assert (project / "again-made").exists()
    zen.task(f"!touch {project.parent / 'bang-auto'}", state="single·yes")  # typed: outside
    assert "on: bwrap" in zen.task("/sandbox on", state="single·yes")
    bang_on = var_tmp  # /tmp is the command's own
    assert "Read-only" in zen.task(f"!touch {bang_on}", state="single·yes")
    assert (project.parent / "bang-auto").exists() and not bang_on.exists()
    assert "off: commands run unsandboxed" in zen.task("/sandbox off", state="single·yes")
    assert "/sandbox auto, /sandbox on" in zen.task("/sandbox maybe", state="single·yes")
    assert zen.exit() == 0


def test_the_question_says_a_command_runs_sandboxed(shell: Any, project: Path) -> None:
    """Issue 40 (7): the question did not say the command would run sandboxed, or how."""
    from zen.tools.sandbox.runner import probe_now

    if (found := probe_now()).program is None:
        pytest.skip(f"no working sandbox here: {found.problem}")
    zen, _ = shell(
        [
            tool_calls([call("bash", {"command": "touch made"})]),
            text("Made."),
            tool_calls([call("bash", {"command": "touch other"})]),
            text("Other."),
        ]
    )
    zen.type("go\r")
    zen.ask("allow?")
    zen.type("y\r")
    zen.expect("Made.")
    zen.prompt("single")
    says = "  runs sandboxed: writes only in the workspace, its own /tmp, home hidden"
    lines = zen.lines()
    assert lines[lines.index("  $ touch made") + 1].startswith(says), lines  # wraps: 80 columns
    zen.task("/sandbox off")
    zen.type("again\r")
    zen.ask("allow?")
    zen.type("y\r")
    zen.expect("Other.")
    zen.prompt("single")
    lines = zen.lines()
    assert not lines[lines.index("  $ touch other") + 1].startswith(says), lines  # not said
    assert (project / "made").exists() and (project / "other").exists()

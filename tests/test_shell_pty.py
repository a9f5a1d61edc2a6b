"""The interactive shell, driven through a pseudo-terminal as a person would drive it.

`zen` runs as a subprocess on a pty (pexpect) against the scripted fake model server. What it
wrote is replayed in pyte's HistoryScreen to check what a person sees: every finished line
exactly once on screen and in scrollback, and, outside prompt-toolkit's own prompts, no escape
sequence that moves the cursor.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

from tests.conftest import zen_env
from tests.fakes.server import FakeLLM, call, text, tool_calls
from zen.base.preamble import asked

ROOT = Path(__file__).resolve().parent.parent
COLS, ROWS = 100, 30
ARROW = " › ".encode()
PROMPT_REGION = re.compile(rb"\x1b\[\?2004h.*?(?:\x1b\[\?2004l|\Z)", re.DOTALL)
CSI = re.compile(rb"\x1b\[([0-9;?]*)([A-Za-z@`])|\x1b([^\[])")

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]


class Zen:
    """A `zen` shell on a pty. `task()` types a line and waits for the next prompt."""

    def __init__(
        self,
        fake: FakeLLM,
        project: Path,
        home: Path,
        *args: str,
        env: dict[str, str] | None = None,
        state: str = "single",
    ) -> None:
        environment = zen_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
        environment.pop("NO_COLOR")
        environment.update(env or {})
        self.raw = io.BytesIO()
        self.child = pexpect.spawn(
            sys.executable,
            [
                "-m",
                "zen",
                "--base-url",
                fake.base_url,
                "--api-key",
                "test-key",
                "--model",
                "fake-model",
                "-C",
                str(project),
                *args,
            ],
            env=environment,
            cwd=str(project),
            dimensions=(ROWS, COLS),
            timeout=30,
        )
        self.child.logfile_read = self.raw
        if state:  # "": something comes before the prompt (a question)
            self.prompt(state)

    def prompt(self, state: str) -> None:
        """Wait until the main prompt `zen STATE › ` is drawn and reads keys."""
        pattern = re.escape(f"zen {state}".encode()) + rb"(?:\x1b\[[0-9;]*m)*" + re.escape(ARROW)
        self.child.expect(pattern)
        self.ready()

    def ask(self, question: str) -> None:
        """Wait until `question` is asked and its prompt reads keys."""
        self.expect(question)
        self.ready()

    def ready(self) -> None:
        """Wait until a prompt-toolkit prompt reads keys: its terminal is in raw mode from its
        first drawing (which turns bracketed paste on) to its end (which turns it off). Keys
        typed between two prompts meet the terminal's line discipline instead: Ctrl-C becomes
        a SIGINT, Enter a line feed the next prompt does not accept."""
        on, off = b"\x1b[?2004h", b"\x1b[?2004l"
        while on in self.raw.getvalue():  # none: the plain reader, in cooked mode by design
            raw = self.raw.getvalue()
            if raw.rfind(on) > raw.rfind(off):
                return
            self.child.expect(re.escape(on))

    def type(self, keys: str) -> None:
        self.child.send(keys)

    def task(self, line: str, state: str = "single", timeout: float | None = None) -> str:
        """Type `line`, press Enter, wait for the next prompt; what was written meanwhile.
        `timeout`: for a command zen itself gives a longer deadline than pexpect's 30 s."""
        start = self.raw.tell()
        self.child.send(line + "\r")
        self.child.expect(re.escape(b"\x1b[?2004l"))  # the prompt is done with the line
        if timeout is None:
            self.prompt(state)
        else:
            self.child.timeout, before = timeout, self.child.timeout
            try:
                self.prompt(state)
            finally:
                self.child.timeout = before
        return self.raw.getvalue()[start:].decode("utf-8", "replace")

    def expect(self, text: str, timeout: float = -1) -> None:
        self.child.expect(re.escape(text.encode()), timeout=timeout)

    def exit(self, keys: str = "/exit\r") -> int:
        """Type `keys` to the prompt (waiting until one reads them) and wait for the end."""
        self.ready()
        self.child.send(keys)
        self.child.expect(pexpect.EOF)
        self.child.close()
        return self.child.exitstatus

    def lines(self) -> list[str]:
        """Scrollback and screen, as a person would see them."""
        scr = pyte.HistoryScreen(COLS, ROWS, history=100_000)
        pyte.ByteStream(scr).feed(self.raw.getvalue())
        rows = ["".join(line[x].data for x in range(COLS)).rstrip() for line in scr.history.top] + [
            line.rstrip() for line in scr.display
        ]
        return rows

    def agent_output(self) -> bytes:
        """Everything written outside prompt-toolkit's prompts (its own redraws excluded)."""
        return PROMPT_REGION.sub(b"", self.raw.getvalue())

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


@pytest.fixture
def shell(fake_llm: Any, project: Path, home: Path) -> Any:
    started: list[Zen] = []

    def start(script: Any, *args: str, **kw: Any) -> tuple[Zen, FakeLLM]:
        fake = fake_llm(script)
        zen = Zen(fake, project, home, *args, **kw)
        started.append(zen)
        return zen, fake

    yield start
    for zen in started:
        zen.close()


def assert_clean(zen: Zen) -> None:
    """Outside prompts: colours, carriage returns and erase-line only; no spinner frames."""
    out = zen.agent_output()
    for params, final, other in CSI.findall(out):
        if other:
            raise AssertionError(f"escape ESC {other!r} in the agent output")
        ok = (
            final == b"m"
            or (final == b"K" and params == b"2")
            or (
                params.startswith(b"?") and final in b"hl"  # mode switches move nothing
            )
        )
        assert ok, f"cursor control ESC[{params.decode()}{final.decode()} in the agent output"
    assert not re.search("[⠁-⣿◐◓◑◒]", out.decode("utf-8", "replace"))


def once(lines: list[str], line: str) -> None:
    count = lines.count(line)
    assert count == 1, f"{line!r} is shown {count} times:\n" + "\n".join(lines)


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [asked(m["content"]) for m in request["messages"] if m["role"] == "user"]


# -- the scenarios ---------------------------------------------------------------------------

ANSWER = "\n\n".join(f"Paragraph {i} of the answer." for i in range(40)) + (
    "\n\n- first point\n- second point\n\n```python\nprint('hello')\n```\n\nThat is all.\n"
)


def test_a_task_streams_its_answer_once_and_nothing_moves_the_cursor(shell: Any) -> None:
    zen, fake = shell([text(ANSWER, chunk=3, chunk_delay=0.0005)])
    zen.task("explain the project")
    lines = zen.lines()
    for i in range(40):
        once(lines, f"Paragraph {i} of the answer.")
    for line in (" • first point", " • second point", "  print('hello')", "That is all."):
        once(lines, line)
    assert any(line.startswith("main 10 in / 5 out · ") for line in lines)
    assert not any("waiting for the model" in line for line in lines)
    assert_clean(zen)
    assert zen.exit() == 0
    assert user_texts(fake.requests[0]) == ["explain the project"]


def test_a_declined_call_sends_the_feedback_to_the_model(shell: Any, project: Path) -> None:
    zen, fake = shell(
        [
            tool_calls([call("bash", {"command": "touch made-by-bash"})]),
            text("Understood, I will use Python."),
        ]
    )
    zen.type("make the file\r")
    zen.ask("allow?")
    zen.type("n\r")
    zen.ask("tell the model why")
    zen.type("please use python instead\r")
    zen.prompt("single")
    assert not (project / "made-by-bash").exists()
    assert "please use python instead" in tool_results(fake.requests[1])[0]
    lines = zen.lines()
    once(lines, "? bash")
    once(lines, "  $ touch made-by-bash")
    once(lines, "✗ bash touch made-by-bash — declined: please use python instead")
    once(lines, "Understood, I will use Python.")
    assert_clean(zen)


def test_always_stops_further_questions_for_that_tool(shell: Any) -> None:
    zen, fake = shell(
        [
            tool_calls([call("bash", {"command": "echo one"})]),
            tool_calls([call("bash", {"command": "echo two"})]),
            text("Both ran."),
            tool_calls([call("bash", {"command": "echo three"})]),
            text("Again."),
        ]
    )
    zen.type("run them\r")
    zen.ask("allow?")
    zen.type("a\r")
    zen.prompt("single")
    zen.task("once more")
    lines = zen.lines()
    once(lines, "? bash")  # asked once: `a` covered the rest
    results = [tool_results(r) for r in fake.requests]
    assert "one" in results[1][0] and "two" in results[2][1] and "three" in results[4][-1]
    once(lines, "✓ bash echo two — exit 0")
    once(lines, "Again.")
    assert_clean(zen)


def dual_script(body: dict[str, Any]) -> Any:
    """The orchestrator is the one offered send-to-coder; the coder is not."""
    names = {t["function"]["name"] for t in body.get("tools", [])}
    answered = any(m["role"] == "tool" for m in body["messages"])
    if "send-to-coder" in names:
        if answered:
            return text("The Coder wrote notes.txt.")
        return tool_calls([call("send-to-coder", {"task": "create notes.txt saying hi"})])
    if answered:
        return text("Created notes.txt with one line.")
    return tool_calls([call("write-file", {"path": "notes.txt", "content": "hi\n"})])


def test_dual_mode_routes_the_task_through_the_orchestrator(
    shell: Any, project: Path, two_models: Path
) -> None:
    zen, fake = shell(dual_script, "--yes", state="single·yes")
    zen.task("/dual", state="dual·delegated·yes")
    zen.task("write a note", state="dual·delegated·yes")
    assert (project / "notes.txt").read_text() == "hi\n"
    offered = [{t["function"]["name"] for t in r["tools"]} for r in fake.requests]
    assert "send-to-coder" in offered[0]
    assert "send-to-coder" not in offered[1] and "write-file" in offered[1]
    assert "Created notes.txt" in tool_results(fake.requests[3])[0]
    lines = zen.lines()
    once(lines, "› send-to-coder create notes.txt saying hi")
    once(lines, "    ✓ write-file notes.txt — created, 1 lines")
    once(lines, "      Created notes.txt with one line.")
    once(lines, "✓ send-to-coder — 1 file(s) changed")
    once(lines, "The Coder wrote notes.txt.")
    status = next(line for line in lines if line.startswith("orchestrator "))
    assert " · coder " in status
    assert_clean(zen)


def sleeping(marker: str) -> bool:
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and b"sleep" in cmdline:
                return True
    return False


def wait_for(condition: Any, timeout: float = 15) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_long_generation_shows_it_is_still_coming(shell: Any) -> None:
    """An answer that runs on (to its output cap, say) repeats the same line: the live line
    then also says how much arrived and for how long, so it never looks stuck."""
    line = "the same line again\n"
    zen, _ = shell([text(line * 45, chunk=len(line), chunk_delay=0.2)])
    out = zen.task("go on")
    assert re.search(r"· \d+ tokens, \d+s", out), out[-600:]
    assert zen.exit() == 0


def test_ctrl_c_stops_a_slow_stream_and_a_running_command(shell: Any) -> None:
    zen, fake = shell(
        [
            text("word " * 3000, chunk=5, chunk_delay=0.01),
            tool_calls([call("bash", {"command": "sleep 31.337"})]),
            text("Still here."),
        ],
        "--yes",
        state="single·yes",
    )
    zen.type("write a lot\r")
    zen.expect("word word word")
    zen.type("\x03")
    zen.expect("interrupted")
    zen.prompt("single·yes")

    zen.type("run the command\r")
    assert wait_for(lambda: sleeping("31.337")), "the command never started"
    zen.type("\x03")
    zen.expect("interrupted")
    zen.prompt("single·yes")
    assert wait_for(lambda: not sleeping("31.337")), "the command outlived the run"

    zen.task("are you there?", state="single·yes")
    last = fake.requests[-1]
    assert user_texts(last) == ["write a lot", "run the command", "are you there?"]
    calls = [
        c["id"]
        for m in last["messages"]
        if m["role"] == "assistant"
        for c in m.get("tool_calls") or []
    ]
    answered = [m["tool_call_id"] for m in last["messages"] if m["role"] == "tool"]
    assert calls and calls == answered  # no dangling tool call
    lines = zen.lines()
    once(lines, "Still here.")
    assert lines.count("interrupted: the run was stopped, the conversation so far is kept") == 2
    assert_clean(zen)
    assert zen.exit() == 0


def test_clear_starts_a_new_conversation(shell: Any) -> None:
    zen, fake = shell([text("Noted."), text("Which number?")])
    zen.task("remember the number 42")
    out = zen.task("/clear")
    assert "new conversation" in out
    zen.task("what number was it?")
    assert user_texts(fake.requests[1]) == ["what number was it?"]
    assert len(fake.requests[1]["messages"]) == 2


def test_ctrl_c_clears_the_line_then_warns_then_exits(shell: Any) -> None:
    zen, fake = shell([])
    zen.type("some half-typed text")
    zen.expect("half-typed")
    zen.type("\x03")  # clears the line: the same prompt reads on
    zen.task("")  # Enter: nothing is sent (the line was cleared), the next prompt is drawn
    zen.type("\x03")  # typed to that prompt: between two, it would be the terminal's SIGINT
    zen.expect("(Ctrl-C again or Ctrl-D to exit)")
    zen.prompt("single")
    assert zen.exit("\x03") == 0
    assert fake.requests == []


def test_ctrl_d_exits(shell: Any) -> None:
    zen, _ = shell([])
    assert zen.exit("\x04") == 0


def test_multi_line_input_and_pasted_text_arrive_whole(shell: Any) -> None:
    zen, fake = shell([text("one"), text("two")])
    zen.task("first line\x1b\rsecond line")
    zen.task("\x1b[200~pasted one\npasted two\x1b[201~")
    assert user_texts(fake.requests[1]) == ["first line\nsecond line", "pasted one\npasted two"]


def test_mentions_attach_files_inside_the_workspace_only(shell: Any, project: Path) -> None:
    (project / "app.py").write_text("print('from app')\n")
    (project.parent / "secret.txt").write_text("top secret\n")
    zen, fake = shell(
        [
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "app.py", "old_string": "from app", "new_string": "from zen"},
                    )
                ]
            ),
            text("It prints a greeting; now from zen."),
        ],
        "--yes",
        state="single·yes",
    )
    zen.type("@ap")
    zen.expect("app.py")  # the completion menu
    zen.type("\t")
    zen.expect("p.py")  # prompt-toolkit redraws only what changed: `@ap` + `p.py`
    out = zen.task(" and @../secret.txt, what do they do?", state="single·yes")
    message = user_texts(fake.requests[0])[0]
    assert message.startswith("@app.py and @../secret.txt, what do they do?")
    assert message.endswith("<file path=\"app.py\">\nprint('from app')\n</file>")
    assert "top secret" not in message
    assert "attached app.py (1 line)" in out
    assert "@../secret.txt: outside the workspace, not attached" in zen.lines()
    # The model saw the whole file, so it may edit it without reading it again.
    assert (project / "app.py").read_text() == "print('from zen')\n"


def test_slash_commands(shell: Any, home: Path) -> None:
    zen, fake = shell(
        [
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "plan",
                            "content": "step one",
                            "summary": "the plan",
                        },
                    )
                ]
            ),
            text("Planned."),
            text("Other model."),
        ]
    )
    zen.type("/he")
    zen.expect("this list")  # the completion menu shows each command's summary
    zen.type("\t")
    out = zen.task("")
    assert "/collab MODE" in out and "Alt+Enter" in out
    assert "unknown command /nope" in zen.task("/nope")
    assert "the memo is empty" in zen.task("/memo")
    zen.task("plan the work")  # not a change: no nudge
    zen.task("/memo")
    assert "plan — the plan (main)" in zen.lines()
    assert "step one" in zen.task("/memo plan")
    assert "main: 20 in / 10 out, 2 requests" in zen.task("/usage")
    assert "(no todos)" in zen.task("/todo")
    assert "no MCP servers" in zen.task("/mcp")
    assert "unknown collaboration mode" in zen.task("/collab sideways")
    zen.task("/collab autonomous")
    zen.task("/dual", state="dual·autonomous")
    zen.task("/single")
    assert "main: other-model" in zen.task("/model other-model")
    zen.task("hello")
    assert fake.requests[-1]["model"] == "other-model"
    zen.task("/yes", state="single·yes")
    zen.task("/yes off")
    lines = zen.lines()
    once(lines, "memo plan — the plan")
    (history,) = (home / ".zen" / "history").iterdir()  # this workspace's own
    assert "plan the work" in history.read_text()
    assert history.stat().st_mode & 0o777 == 0o600
    assert zen.exit() == 0


def test_no_color_keeps_the_layout_without_colours(shell: Any) -> None:
    long = "word " * 30  # wider than the terminal: wrapped between words, not inside them
    zen, _ = shell([text(f"Some **bold** words.\n\n- a list\n\n{long}\n")], env={"NO_COLOR": "1"})
    zen.task("hi")
    out = zen.agent_output()
    assert not re.search(rb"\x1b\[(?:[0-9]+;)*(?:3[0-9]|4[0-9]|9[0-7])(?:;[0-9]+)*m", out)
    lines = zen.lines()
    once(lines, "Some bold words.")
    once(lines, " • a list")
    assert all(line.endswith("word") for line in lines if line.startswith("word"))


def test_simple_mode_reads_plain_lines(shell: Any) -> None:
    zen, fake = shell(
        [
            tool_calls([call("bash", {"command": "echo simple"})]),
            text("Done simply."),
        ],
        "--simple",
    )
    zen.type("do it\r")
    zen.ask("allow?")
    zen.type("y\r")
    zen.expect("Done simply.")
    zen.expect("zen single › ")
    assert "simple" in tool_results(fake.requests[1])[0]
    assert b"\x1b[?2004h" not in zen.raw.getvalue()  # prompt-toolkit never ran
    once(zen.lines(), "✓ bash echo simple — exit 0")
    assert zen.exit() == 0


def test_piped_input_and_output_are_plain(fake_llm: Any, project: Path, home: Path) -> None:
    fake = fake_llm([text("Piped **answer**.")])
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "zen",
            "--base-url",
            fake.base_url,
            "--api-key",
            "k",
            "-C",
            str(project),
        ],
        input="hello there\n/usage\n",
        capture_output=True,
        text=True,
        timeout=60,
        env={**zen_env(home, TERM="xterm-256color"), "NO_COLOR": ""},
    )
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\r" not in done.stdout
    assert "Piped **answer**." in done.stdout
    assert "main: 10 in / 5 out, 1 request" in done.stdout
    assert user_texts(fake.requests[0]) == ["hello there"]


MCP_START_WAIT = 90.0
"""Seconds a test waits for MCP start-up: past zen's 30 s `start_timeout` of a server."""


def unwrapped(raw: str) -> str:
    """`raw` without escape sequences and whitespace: a line the renderer wrapped still matches."""
    return "".join(re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw).split())


def mcp_log(zen: Zen) -> str:
    """What the screen shows, for a failed assertion about `/mcp log`."""
    return "\n".join(zen.lines()[-40:])


def test_mcp_shows_the_servers_and_a_broken_one_is_a_warning(shell: Any, project: Path) -> None:
    import json

    from tests.fakes.mcp_servers import stdio_command

    command, args = stdio_command()
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text(
        json.dumps(
            {
                "mcp_servers": {
                    "demo": {"command": command, "args": args},
                    "broken": {"command": "zen-no-such-command"},
                }
            }
        )
    )
    zen, _ = shell([], "--trust")
    # Said once start-up is over, i.e. once demo is up too: zen gives each server 30 s
    # (`start_timeout`) and a loaded machine takes most of that to start a Python server, so
    # wait past zen's own deadline, not pexpect's 30 s (under `-n 2` on a busy 2-core machine
    # this expect timed out with demo still starting: the SDK import alone took 27 s).
    zen.expect("warning: MCP server broken is not available", timeout=MCP_START_WAIT)
    zen.task("/mcp")
    lines = zen.lines()
    assert "starting 2 MCP servers…" in lines  # in the background: the prompt did not wait
    assert any(re.match(r"demo \(stdio\): running, \d+ tools", line) for line in lines)
    assert any(line.startswith("broken (stdio): failed") for line in lines), lines
    restarted = zen.task("/mcp restart demo", timeout=MCP_START_WAIT)  # the same deadline
    assert "demo: running" in restarted
    # The log line is 85 characters: where the shell renders at 80 columns (seen under load:
    # the whole `/mcp log` output, `log file:` path included, wrapped at 80), it is split in
    # two, so it is looked for with the line breaks and escape sequences taken out.
    marker = unwrapped("server demo stderr: fake-mcp-server: starting")
    for _ in range(40):  # a server's stderr reaches the log as zen's reader thread gets it
        log = zen.task("/mcp log 400")
        if marker in unwrapped(log):
            break
        time.sleep(0.25)
    assert marker in unwrapped(log), mcp_log(zen)
    assert "log file: " in log
    assert "usage: /mcp" in zen.task("/mcp frobnicate")
    assert zen.exit() == 0


def test_a_dumb_terminal_gets_no_escape_sequences_at_all(shell: Any) -> None:
    zen, _ = shell([text("Plain **answer**.\n\n- item\n")], env={"TERM": "dumb"})
    zen.type("hi\r")
    zen.expect("- item")
    zen.prompt("single")
    assert zen.exit() == 0
    raw = zen.raw.getvalue()
    assert b"\x1b" not in raw
    lines = zen.lines()
    once(lines, "Plain **answer**.")
    once(lines, "- item")


def test_a_command_shows_its_output_tail_and_show_has_it_all(shell: Any) -> None:
    zen, _ = shell(
        [
            tool_calls([call("bash", {"command": "seq 1 12"})]),
            text("Counted."),
        ],
        "--yes",
        state="single·yes",
    )
    zen.task("count", state="single·yes")
    lines = zen.lines()
    once(lines, "✓ bash seq 1 12 — exit 0")
    at = lines.index("✓ bash seq 1 12 — exit 0")
    assert lines[at + 1 : at + 7] == [
        "  8",
        "  9",
        "  10",
        "  11",
        "  12",
        "  … 7 more lines above (/show)",
    ]
    zen.task("/show", state="single·yes")
    lines = zen.lines()
    at = len(lines) - 1 - lines[::-1].index("✓ bash seq 1 12 — exit 0")
    assert lines[at + 1 : at + 13] == [str(n) for n in range(1, 13)]
    assert zen.exit() == 0


def test_an_approved_edit_shows_its_diff_once_and_a_memo_write_one_line(
    shell: Any, project: Path
) -> None:
    (project / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    zen, _ = shell(
        [
            tool_calls([call("read-file", {"path": "calc.py"})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "calc.py", "old_string": "a + b", "new_string": "a + b  # sum"},
                    )
                ]
            ),
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "plan",
                            "content": "did it",
                            "summary": "the plan",
                        },
                    )
                ]
            ),
            text("Edited."),
        ]
    )
    zen.type("edit it\r")
    zen.ask("allow?")
    zen.type("y\r")
    zen.expect("Edited.")
    zen.prompt("single")
    lines = zen.lines()
    assert sum("+    return a + b  # sum" in line for line in lines) == 1, "\n".join(lines)
    once(lines, "memo plan — the plan")
    assert not any("✓ memo" in line for line in lines)
    assert zen.exit() == 0


def test_bang_runs_a_command_without_the_model_and_offers_its_output(
    shell: Any, project: Path
) -> None:
    zen, fake = shell([text("I see the listing.")])
    (project / "marker-file.txt").write_text("x")
    out = zen.task("!ls")
    assert "marker-file.txt" in out and "goes with your next message" in out
    assert fake.requests == []  # no model involved
    zen.task("what do you see?")
    (sent,) = user_texts(fake.requests[0])
    assert sent.startswith("<shell-command>\n$ ls\n") and "marker-file.txt" in sent
    assert sent.endswith("what do you see?")
    assert zen.exit() == 0


def test_esc_interrupts_a_running_turn(shell: Any) -> None:
    zen, fake = shell([text("word " * 3000, chunk=5, chunk_delay=0.01), text("Back.")])
    zen.type("write a lot\r")
    zen.expect("word word word")
    zen.type("\x1b")
    zen.expect("interrupted")
    zen.prompt("single")
    zen.task("again")
    once(zen.lines(), "Back.")
    assert zen.exit() == 0


@pytest.mark.parametrize("drops", [1, 2, 3])
def test_stream_drops_never_print_a_block_twice(shell: Any, drops: int) -> None:
    from tests.fakes.server import cut

    answer = "Alpha block.\n\nBeta block.\n\nGamma block.\n"
    script = [cut(answer[: answer.index("Gamma") + n]) for n in range(drops)]
    zen, fake = shell([*script, text(answer)])
    zen.task("go")
    lines = zen.lines()
    for block in ("Alpha block.", "Beta block.", "Gamma block."):
        once(lines, block)
    assert len(fake.requests) == drops + 1


def test_model_shows_and_switches_every_role_in_dual(shell: Any, home: Path) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("dual_agent:\n  coder:\n    model: coder-model\n")
    zen, fake = shell([text("ok")], "--dual", state="dual·delegated")
    out = zen.task("/model", state="dual·delegated")
    assert "coder: coder-model at " in out and "(its own)" in out
    assert "orchestrator: fake-model at " in out
    out = zen.task("/model top-model", state="dual·delegated")
    assert "orchestrator now uses top-model" in out
    out = zen.task("/model scout cheap-model", state="dual·delegated")
    assert "scout now uses cheap-model" in out
    zen.task("hello", state="dual·delegated")
    assert fake.requests[0]["model"] == "top-model"
    assert zen.exit() == 0


def test_print_mode_on_a_terminal_streams_as_it_goes(
    fake_llm: Any, project: Path, home: Path
) -> None:
    fake = fake_llm(
        [
            tool_calls([call("glob", {"pattern": "*"})]),
            text("streamed " * 200 + "END", chunk=9, chunk_delay=0.01),
        ]
    )
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "zen",
            "-p",
            "go",
            "--base-url",
            fake.base_url,
            "--api-key",
            "k",
            "--model",
            "fake-model",
        ],
        env=zen_env(home, TERM="xterm-256color"),
        cwd=str(project),
        dimensions=(ROWS, COLS),
        timeout=30,
    )
    child.expect("✓ glob".encode())
    child.expect("streamed streamed")
    assert child.isalive()  # the answer shows while it still streams
    child.expect("END")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert child.before.count(b"END") == 0  # printed once, not again at the end


def test_collab_implies_dual_and_says_so(shell: Any) -> None:
    zen, _ = shell([], "--collab", "autonomous", state="dual·autonomous")
    assert b"--collab autonomous implies --dual" in zen.raw.getvalue()
    assert zen.exit() == 0


def test_a_dumb_terminal_ends_ctrl_c_with_a_newline(shell: Any) -> None:
    zen, _ = shell([], env={"TERM": "dumb"})
    zen.type("half typed")
    zen.type("\x03")
    zen.expect("Ctrl-C again")
    lines = zen.lines()
    assert any(line.startswith("(Ctrl-C again") for line in lines), lines
    assert zen.exit("\x04") == 0


def test_a_hung_mcp_server_holds_up_neither_the_prompt_nor_more_than_its_start_timeout(
    shell: Any, project: Path
) -> None:
    import json

    hung = {
        "command": sys.executable,
        "args": ["-c", "import sys; sys.stdin.read()"],
        "start_timeout": 8,
    }
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text(json.dumps({"mcp_servers": {"mute": hung}}))
    began = time.monotonic()
    zen, fake = shell([text("Answered.")], "--trust")
    assert time.monotonic() - began < 6  # the prompt did not wait for the server
    zen.task("hello")  # the first request waits for the server, then gives up on it
    assert time.monotonic() - began > 7.5
    lines = zen.lines()
    warning = "warning: MCP server mute is not available: no answer within 8s"
    assert lines.index(warning) < lines.index("Answered.")
    assert not any(
        t["function"]["name"].startswith("mcp__") for t in fake.requests[0].get("tools", [])
    )
    assert zen.exit() == 0


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
def test_sigterm_and_sighup_end_the_shell_like_ctrl_c(
    shell: Any, project: Path, signame: str, code: int
) -> None:
    import random
    import signal

    # durations unique to this run: another test run on the machine has sleeps of its own
    tag = f"31.{random.randrange(10**6):06d}"
    escaped, plain = f"{tag}1", f"{tag}2"
    zen, _fake = shell(
        [
            tool_calls(
                [
                    call(
                        "bash",
                        {
                            "command": f"echo $$ > shell.pid; setsid sleep {escaped} & "
                            f"echo $! > escaped.pid; sleep {plain}"
                        },
                    )
                ]
            ),
            text("never"),
        ],
        "--yes",
        state="single·yes",
    )
    zen.type("run the command\r")
    assert wait_for(lambda: sleeping(plain) and sleeping(escaped)), "never started"
    zen.child.kill(getattr(signal, signame))
    zen.child.expect(pexpect.EOF, timeout=15)
    zen.child.close()
    assert zen.child.exitstatus == code, zen.raw.getvalue()[-2000:]
    assert wait_for(lambda: not sleeping(escaped) and not sleeping(plain))
    assert b"Traceback" not in zen.raw.getvalue()


def test_users_command_and_skill_from_the_shell(shell, home: Path) -> None:
    commands = home / ".zen" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: review a file\n---\nReview $ARGUMENTS for bugs; answer in one line.\n"
    )
    pdf = home / ".zen" / "skills" / "pdf-forms"
    pdf.mkdir(parents=True)
    (pdf / "SKILL.md").write_text(
        "---\nname: pdf-forms\ndescription: Fill PDF forms from data\n"
        "---\nTo fill a form: SECRET-STEP-42\n"
    )
    zen, fake = shell([text("looks fine"), text("filled"), text("wrote ZEN.md")])
    zen.task("/help")
    zen.task("/review calc.py")
    zen.task("/pdf-forms the tax form")
    zen.task("/init")
    assert zen.exit() == 0
    screen = "\n".join(zen.lines())
    assert "/review" in screen and "review a file" in screen and "skill: Fill PDF" in screen
    rows = zen.lines()  # /help: the user's commands indented like the built-ins; /clear named
    assert any(row.startswith("  /review ") and "review a file" in row for row in rows)
    assert any(row.startswith("  /new ") for row in rows)
    assert "(also/clear)" in "".join(screen.split())  # the /new line wraps at 100 columns
    users = [asked(r["messages"][-1]["content"]) for r in fake.requests]
    assert users[0] == "Review calc.py for bugs; answer in one line."
    assert "SECRET-STEP-42" in users[1] and users[1].endswith("the tax form")
    assert users[2].startswith("Write ZEN.md at the workspace root")


def test_undo_shows_the_files_asks_and_restores(shell: Any, project: Path, home: Path) -> None:
    (project / "notes.txt").write_text("first\n")
    zen, fake = shell(
        [
            tool_calls([call("bash", {"command": "echo second >> notes.txt; echo x > new.txt"})]),
            text("Changed them."),
            text("Second answer."),
        ],
        "--yes",
        state="single·yes",
    )
    zen.task("change the notes", state="single·yes")
    assert (project / "new.txt").exists()
    zen.type("/undo\r")
    zen.ask("restore 2 file(s)? [y]es or [n]o")
    zen.type("y\r")
    zen.prompt("single·yes")
    assert (project / "notes.txt").read_text() == "first\n"
    assert not (project / "new.txt").exists()
    lines = zen.lines()
    assert any(line.startswith("undo the files changed by “change the notes”") for line in lines)
    once(lines, "  revert notes.txt (+0 -1)")
    once(lines, "  delete new.txt (+0 -1)")
    assert any("restored 2 file(s)" in line for line in lines)
    zen.task("/undo", state="single·yes")
    assert any("nothing to undo" in line for line in zen.lines())
    # /rewind: the conversation goes back too; the next request no longer holds message 1.
    zen.type("/rewind\r")
    zen.ask("before which message?")
    zen.type("1\r")
    zen.ask("c[o]nversation")
    zen.type("o\r")
    zen.prompt("single·yes")
    zen.task("again", state="single·yes")
    assert user_texts(fake.requests[-1]) == ["again"]
    assert_clean(zen)
    # In the session store the undone messages stay, on the branch the rewind left.
    from zen.stores.sessions import SessionStore

    store = SessionStore(home / ".zen" / "sessions.db")
    (info,) = store.recent()
    branches = store.branches(info.id)
    assert [b["reason"] for b in branches if b["reason"] == "rewind"] == ["rewind"]
    old = [b for b in branches if b["branch"] != branches[-1]["branch"]][-1]["branch"]
    assert "change the notes" in [
        asked(m.get("content") or "") for m in store.messages(info.id, old)
    ]
    assert [asked(m["content"]) for m in store.messages(info.id) if m["role"] == "user"] == [
        "again"
    ]
    store.close()


def test_undo_asks_about_files_changed_outside_zen(shell: Any, project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    (project / "b.txt").write_text("b\n")
    zen, _fake = shell(
        [
            tool_calls([call("bash", {"command": "echo zen >> a.txt; echo zen >> b.txt"})]),
            text("Done."),
        ],
        "--yes",
        state="single·yes",
    )
    zen.task("append", state="single·yes")
    (project / "b.txt").write_text("the user's edit\n")
    zen.type("/undo\r")
    zen.ask("[s]kip the ! files")
    zen.type("s\r")
    zen.prompt("single·yes")
    assert (project / "a.txt").read_text() == "a\n"
    assert (project / "b.txt").read_text() == "the user's edit\n"
    once(zen.lines(), "  revert b.txt (+1 -1)  ! changed outside zen")


def test_rewind_labels_a_message_by_what_was_typed(shell: Any) -> None:
    """`!cmd` output sent ahead of a message is not the message's label (issue 29)."""
    zen, fake = shell([text("Fixed.")])
    zen.task("!echo from-the-shell")
    zen.task("fix it please")
    assert "<shell-command>" in user_texts(fake.requests[0])[0]  # the model did get the output
    zen.type("/rewind\r")
    zen.ask("before which message?")
    zen.type("\r")
    zen.prompt("single")
    rows = zen.lines()
    assert any(row.startswith("  1. fix it please") for row in rows), rows
    assert not any("1. <shell-command>" in row for row in rows)
    assert zen.exit() == 0


def test_the_first_status_line_shows_the_window(tmp_path: Path) -> None:
    """Issue 29.7: a window the config and provider table do not give was learned only past
    2,000 tokens, so a session's first status lines said `context 1.6k`, later ones `/128k`."""
    project, home = tmp_path / "p", tmp_path / "h"
    project.mkdir()
    home.mkdir()
    with FakeLLM([text("hi")], context_window=32_000) as fake:
        zen = Zen(fake, project, home)
        try:
            out = zen.task("hello")
        finally:
            zen.exit()
    assert re.search(r"context [0-9.]+k?/32\.0k", out), out


def test_triage_is_shown_and_switched_in_the_shell(shell: Any, project: Path) -> None:
    """/triage large: a task naming its file is still scouted (the Orchestrator asked)."""
    (project / "greet.py").write_text("def greet():\n    return 'hi'\n")
    D = "dual·delegated"
    zen, fake = shell([text("Planned it.")], "--dual", state=D)
    assert "unknown triage 'sideways'" in zen.task("/triage sideways", D)
    assert "triage: auto" in zen.task("/triage", D)
    assert "triage: large" in zen.task("/triage large", D)
    out = zen.task("rename greet to welcome in greet.py", D)
    assert "triage: large (greet.py): chosen by the triage setting" in out
    assert "a large change" in json.dumps(fake.requests[0]["messages"])
    assert "the last task: large" in zen.task("/triage", D)
    assert zen.exit() == 0

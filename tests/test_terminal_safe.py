"""Nothing from outside zen drives the terminal: one function makes text safe, every front-end
uses it. `zen -p` runs as a subprocess against the fake model; what it wrote (stdout and stderr,
which are pipes here, as they often are) is replayed in pyte as a terminal would show it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyte
import pytest

from tests.fakes.mcp_servers import stdio_command
from tests.fakes.server import call, status, text, tool_calls
from zen.base.terminal_safe import PLACEHOLDER, terminal_safe

P = PLACEHOLDER
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J\x1b[H"
ERASE_UP = "\x1b[1A\x1b[2K"
HOSTILE = f"{TITLE}{CLEAR}{ERASE_UP}\x9b2J\x9d0;c1\x9c\u202eevil\u2066x\u2069\rcr\x07"
SHOWN = f"{P}{P}{P}{P}{P}{P}{P}{P}evil{P}x{P}{P}cr{P}"
"""HOSTILE as a terminal must show it: every sequence one placeholder, the plain text kept."""


@pytest.mark.parametrize(
    ("raw", "safe"),
    [
        ("plain text, ünïcode 漢字 and emoji 🎉\tand\ttabs\n", None),
        ("a\r\nb\r\n", "a\nb\n"),
        ("over\rwrite", f"over{P}write"),
        (f"x{TITLE}y", f"x{P}y"),
        ("x\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\y", f"x{P}link{P}y"),
        ("\x1bP1$qm\x1b\\", P),
        ("\x1b[38;5;196mred\x1b[0m", f"{P}red{P}"),
        ("\x1b(0", P),
        ("\x1b7\x1b8", f"{P}{P}"),
        ("trailing \x1b", f"trailing {P}"),
        ("\x1b]0;never ended", f"{P}0;never ended"),
        ("\x9b31m \x9d0;t\x07 \x85 \x80\x9f", f"{P} {P} {P} {P}{P}"),
        ("\x00\x08\x7f\x0b\x0c", P * 5),
        (
            "\u202aa\u202bb\u202cc\u202dd\u202ee\u2066f\u2067g\u2068h\u2069",
            "".join(f"{P}{c}" for c in "abcdefgh") + P,
        ),
        (HOSTILE, SHOWN),
    ],
)
def test_one_function_makes_text_terminal_safe(raw: str, safe: str | None) -> None:
    assert terminal_safe(raw) == (raw if safe is None else safe)


def test_a_long_hostile_text_is_handled_in_linear_time() -> None:
    import time

    started = time.perf_counter()
    out = terminal_safe("\x1b]" * 200_000 + "\x1b[" + "1;" * 100_000)
    assert time.perf_counter() - started < 2
    assert "\x1b" not in out


def replay(*texts: str, cols: int = 200) -> tuple[list[str], pyte.Screen]:
    """What a terminal shows after these writes (pipes become a terminal's LF -> CRLF)."""
    scr = pyte.HistoryScreen(cols, 60, history=10_000)
    scr.set_mode(pyte.modes.LNM)
    stream = pyte.Stream(scr)
    for t in texts:
        stream.feed(t)
    rows = ["".join(line[x].data for x in range(cols)).rstrip() for line in scr.history.top]
    rows += [line.rstrip() for line in scr.display]
    return [r for r in rows if r], scr


def assert_inert(output: str) -> None:
    """No byte a terminal would act on: no C0 but newline, no ESC, no C1, no bidi control."""
    bad = [
        c
        for c in output
        if (c < " " and c != "\n")
        or "\x7f" <= c <= "\x9f"
        or c in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ]
    assert not bad, bad


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "test-key", "--model", "fake-model"]


def user_mcp_server(home: Path) -> None:
    """The fake stdio MCP server in the user's own config (trusted whatever the workspace)."""
    command, args = stdio_command()
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(
        f"mcp_servers:\n  fake: {{command: {json.dumps(command)}, args: {json.dumps(args)}}}\n"
    )


def test_print_mode_text_output_shows_placeholders(
    fake_llm, run_zen, home: Path, project: Path
) -> None:
    """The answer, tool names, paths, bash commands, MCP results and MCP errors."""
    user_mcp_server(home)
    fake = fake_llm(
        [
            tool_calls(
                [
                    call(f"no{TITLE}such-tool", {}),
                    call("read-file", {"path": f"mis{CLEAR}sing.txt"}),
                    call("bash", {"command": f"echo ran # {ERASE_UP}{TITLE}"}),
                    call("mcp__fake__echo", {"text": f"echoed {HOSTILE}"}),
                    call("mcp__fake__fail", {"message": f"failed {HOSTILE}"}),
                ]
            ),
            text(f"The answer {HOSTILE} ends here.\n\nSecond line."),
        ]
    )
    done = run_zen("-p", "go", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    for output in (done.out, done.err):
        assert_inert(output)
    assert done.out == f"The answer {SHOWN} ends here.\n\nSecond line.\n"
    rows, scr = replay(done.err, done.out)
    assert scr.title == ""  # never retitled
    assert f"The answer {SHOWN} ends here." in rows and "Second line." in rows
    err = "\n".join(rows)
    assert f"✗ no{P}such-tool" in err
    assert f"✗ read-file mis{P}{P}sing.txt" in err
    assert f"✓ bash echo ran # {P}{P}{P}" in err  # the line of the command that ran is kept
    assert "✓ mcp__fake__echo {" in err and f"— echoed {SHOWN[:12]}" in err, err
    assert "✗ mcp__fake__fail {" in err and f"failed {SHOWN[:12]}" in err
    # what the model got is the exact text: only the terminal's copy is changed
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert f"echoed {HOSTILE}" in results[3]


def test_print_mode_server_errors_show_placeholders(fake_llm, run_zen) -> None:
    fake = fake_llm([status(400, message=f"bad {HOSTILE} request")])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 1
    assert_inert(done.err)
    rows, scr = replay(done.err)
    assert scr.title == ""
    assert any(f"(HTTP 400: bad {SHOWN[:12]}" in row for row in rows), rows


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_json_keeps_the_exact_text_as_ascii_escapes(fake_llm, run_zen, fmt: str) -> None:
    answer = f"The answer {HOSTILE} ü."
    fake = fake_llm([text(answer)])
    done = run_zen("-p", "go", "--output-format", fmt, *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.isascii() and "\x1b" not in done.out and "\\u001b" in done.out
    assert "\\u009b" in done.out and "\\u202e" in done.out
    last = json.loads(done.out.splitlines()[-1])
    assert last["result"] == answer
    if fmt == "stream-json":
        streamed = "".join(
            e.get("text", "")
            for e in map(json.loads, done.out.splitlines()[:-1])
            if e.get("type") == "TextDelta"
        )
        assert streamed == answer


async def test_an_mcp_approval_shows_every_argument_whole(tmp_path: Path) -> None:
    """The confirmation of an MCP call prints all of its arguments, however long, safely."""
    import io

    from zen.mcp.tool import McpParams, McpTool, RemoteTool
    from zen.stores.memo import MemoStore
    from zen.stores.read_tracker import ReadTracker
    from zen.stores.todo import TodoStore
    from zen.tools.base import Approval, ApprovalRequest, ToolContext
    from zen.tools.workspace import Workspace
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer
    from zen.ui.term import Caps, make_console

    class Server:
        name = "docs"

        async def call(self, tool: str, args: dict[str, Any]) -> Any:
            raise AssertionError("not called by a preview")

    tool = McpTool("mcp__docs__upload", RemoteTool("upload"), Server(), "confirm")
    args = {
        "path": "notes.md",
        "body": "BEGIN " + "x" * 5000 + f" {TITLE}END",
        "lines": [f"line {n}" for n in range(80)],
    }
    ctx = ToolContext(Workspace(tmp_path), "main", ReadTracker(), MemoStore(), TodoStore())
    preview = await tool.preview(McpParams.model_validate(args), ctx)
    assert json.loads(preview.split("\n", 1)[1]) == args  # the exact arguments, nothing cut

    caps = Caps(live=False, vt=False, styled=False)
    sink = io.StringIO()
    asked: list[str] = []

    async def ask(question: str) -> str:
        asked.append(question)
        return "n" if len(asked) == 1 else ""

    approver = ShellApprover(LogRenderer(make_console(caps, file=sink, width=100), caps), ask)
    decision = await approver(ApprovalRequest("main", tool.name, args, preview))
    assert decision == Approval("no", "")
    shown = sink.getvalue()
    assert_inert(shown)
    assert "x" * 5000 + " \\u001b]0;pwned\\u0007END" in shown.replace("\n", "")  # JSON-escaped
    assert all(f'"line {n}"' in shown for n in range(80))

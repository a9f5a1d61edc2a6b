"""The log view, driven with synthetic events; what it wrote is replayed in a terminal emulator.

Output goes to a StringIO rich Console; pyte (a VT100 emulator) shows what a person would see
on screen and in scrollback.
"""

from __future__ import annotations

import asyncio
import io
import os
import re
from collections.abc import Iterable

import pyte
import pytest

from zen.base import events as ev
from zen.tools.base import ApprovalRequest
from zen.ui.cells import fit_line
from zen.ui.confirm import ShellApprover
from zen.ui.format import call_line, diff_excerpt, fold, memo_line, status_line, tokens
from zen.ui.render import LogRenderer
from zen.ui.term import Caps, detect, make_console

STYLED = Caps(styled=True, live=True, vt=True)
NO_COLOR = Caps(styled=True, live=True, vt=True, colour=False)
COLOUR = re.compile(r"\x1b\[(?:[0-9]+;)*(?:3[0-9]|4[0-9]|9[0-7]|10[0-7])(?:;[0-9]+)*m")
"""An SGR sequence that sets a foreground or background colour."""
LEGACY = Caps(styled=False, live=True, vt=False)
PIPE = Caps(styled=False, live=False, vt=False)
COLS = 60
CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[^\[]")


def renderer(caps: Caps, width: int = COLS, **kw: object) -> tuple[LogRenderer, io.StringIO]:
    sink = io.StringIO()
    return LogRenderer(make_console(caps, file=sink, width=width), caps, **kw), sink  # type: ignore[arg-type]


def feed(r: LogRenderer, events: Iterable[ev.Event]) -> None:
    for event in events:
        r(event)


def screen(raw: str, cols: int = COLS, rows: int = 12) -> tuple[list[str], pyte.HistoryScreen]:
    """Every line a person sees, scrollback first (the tty turns \\n into \\r\\n)."""
    scr = pyte.HistoryScreen(cols, rows, history=10_000)
    pyte.Stream(scr).feed(raw.replace("\n", "\r\n"))
    rows_ = ["".join(line[x].data for x in range(cols)).rstrip() for line in scr.history.top] + [
        line.rstrip() for line in scr.display
    ]
    while rows_ and not rows_[-1]:
        rows_.pop()
    return rows_, scr


def stream(agent: str, text: str, size: int = 3) -> list[ev.Event]:
    return [ev.TextDelta(agent=agent, text=text[i : i + size]) for i in range(0, len(text), size)]


def a_run() -> list[ev.Event]:
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old()\n+new()\n"
    return [
        ev.TurnStarted(agent="main", turn=1),
        *stream("main", "I will **fix** it.\n\n- read\n- edit\n"),
        ev.ToolCallStarted(agent="main", call_id="c1", name="edit-file"),
        *[
            ev.ToolCallArgsDelta(agent="main", call_id="c1", name="edit-file", delta="x" * 10)
            for _ in range(5)
        ],
        ev.TurnEnded(agent="main", turn=1, text="", tool_calls=1),
        ev.ToolCallRunning(
            agent="main", call_id="c1", name="edit-file", args={"path": "app.py"}, detail="app.py"
        ),
        ev.ToolCallFinished(
            agent="main",
            call_id="c1",
            name="edit-file",
            args={"path": "app.py"},
            ok=True,
            summary="+1 -1",
            output="",
            diff=diff,
            detail="app.py",
        ),
        ev.MemoWritten(agent="main", key="plan:fix", summary="swap old() for new()"),
        ev.TurnStarted(agent="main", turn=2),
        *stream("main", "Done.\n\n```python\nnew()\n```\n"),
        ev.TurnEnded(agent="main", turn=2, text="", tool_calls=0),
    ]


EXPECTED = [
    "I will fix it.",
    "",
    " • read",
    " • edit",
    "",
    "✓ edit-file app.py — +1 -1",
    "  -old()",
    "  +new()",
    "memo plan:fix — swap old() for new()",
    "",
    "Done.",
    "",
    "  new()",
    "main 12 in / 3 out · 1.5s",
]


@pytest.mark.parametrize("rows", [4, 40])
def test_finished_lines_appear_once_and_live_lines_leave_no_trace(rows: int) -> None:
    """Also with a 4-row screen, where everything scrolls into the history."""
    r, sink = renderer(STYLED, interval=0)
    feed(r, a_run())
    r.end_run()
    r.status(status_line({"main": (12, 3, 0)}, 1.5))
    lines, _ = screen(sink.getvalue(), rows=rows)
    assert lines == EXPECTED
    raw = sink.getvalue()
    assert "waiting for the model" in raw and "edit-file · 50 chars" in raw  # it was live


def test_nothing_but_colours_carriage_returns_and_erase_line() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(r, a_run())
    r.end_run()
    for seq in CONTROL.findall(sink.getvalue()):
        assert seq.endswith("m") or seq == "\x1b[2K", repr(seq)
    assert not re.search(r"[⠁-⣿◐◓◑◒]", sink.getvalue())  # no spinner frames


def test_plain_output_for_pipes_has_no_escapes_and_keeps_the_markdown_source() -> None:
    r, sink = renderer(PIPE)
    feed(r, a_run())
    r.end_run()
    out = sink.getvalue()
    assert "\x1b" not in out and "\r" not in out
    assert "I will **fix** it.\n\n- read\n- edit\n" in out
    assert "✓ edit-file app.py — +1 -1\n  -old()\n  +new()\n" in out
    assert "```python\nnew()\n```" in out


def test_no_color_keeps_the_layout_and_the_live_line_but_no_colours() -> None:
    r, sink = renderer(NO_COLOR, interval=0)
    feed(r, a_run())
    r.end_run()
    out = sink.getvalue()
    assert not COLOUR.search(out)
    assert "\r\x1b[2K" in out
    assert "\x1b[1m" in out  # bold is emphasis, not colour
    lines = screen(out, rows=30)[0]
    assert lines[:4] == ["I will fix it.", "", " • read", " • edit"]


def test_a_console_without_vt_gets_the_live_line_blanked_with_spaces() -> None:
    r, sink = renderer(LEGACY, interval=0)
    feed(r, a_run())
    r.end_run()
    out = sink.getvalue()
    assert "\x1b" not in out
    lines, _ = screen(out)
    assert "✓ edit-file app.py — +1 -1" in lines
    assert not any("waiting for the model" in line for line in lines)


@pytest.mark.parametrize("text", ["x" * 300, "漢字かな" * 60, "tab\there " * 40])
def test_the_live_line_never_wraps(text: str) -> None:
    r, sink = renderer(STYLED, width=40, interval=0)
    feed(r, [ev.TurnStarted(agent="main", turn=1), *stream("main", text, 1)])
    lines, scr = screen(sink.getvalue(), cols=40, rows=5)
    assert len(lines) == 1 and lines[0].startswith("…")
    assert scr.cursor.y == 0
    for draw in sink.getvalue().split("\r\x1b[2K")[1:]:
        assert "\n" not in draw
    r.end_run()
    lines, _ = screen(sink.getvalue(), cols=40, rows=50)
    assert "".join(lines).replace(" ", "") == text.replace("\t", "").replace(" ", "")


def test_clip_counts_cells() -> None:
    assert fit_line("abc", 5) == "abc"
    assert fit_line("abcdef", 4) == "abc…"
    assert fit_line("abcdef", 4, tail=True) == "…def"
    assert fit_line("漢字漢字", 5) == "漢字…"
    assert fit_line("a\x1b[31mb\nc\u202ed", 20) == "a\ufffdb c\ufffdd"  # no control survives


def test_live_updates_are_throttled_and_the_last_one_is_drawn_by_a_timer() -> None:
    now = [0.0]
    r, sink = renderer(STYLED, interval=0.05, clock=lambda: now[0])

    async def go() -> None:
        r(ev.TurnStarted(agent="main", turn=1))
        for event in stream("main", "abcdefghij" * 10, 1):
            r(event)
        assert sink.getvalue().count("\x1b[2K") == 1  # only the first draw so far
        now[0] = 1.0
        await asyncio.sleep(0.1)

    asyncio.run(go())
    out = sink.getvalue()
    assert out.count("\x1b[2K") == 2
    assert out.endswith("\r\x1b[2K\x1b[2m…" + ("abcdefghij" * 10)[-58:] + "\x1b[0m")


def test_a_retry_drops_the_partial_text_and_does_not_repeat_printed_blocks() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(
        r,
        [
            ev.TurnStarted(agent="main", turn=1),
            *stream("main", "First paragraph.\n\nSecond para"),
            ev.Retrying(agent="main", attempt=1, delay=0.5, reason="connection dropped"),
            *stream("main", "First paragraph.\n\nSecond paragraph, complete.\n"),
            ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0),
        ],
    )
    r.end_run()
    lines, _ = screen(sink.getvalue(), rows=30)
    assert lines == [
        "First paragraph.",
        "",
        "↻ retrying in 0.5s (attempt 1): connection dropped",
        "",
        "Second paragraph, complete.",
    ]


def test_a_retry_that_answers_differently_prints_the_new_answer() -> None:
    r, sink = renderer(PIPE)
    feed(
        r,
        [
            ev.TurnStarted(agent="main", turn=1),
            *stream("main", "Old start.\n\n"),
            ev.Retrying(agent="main", attempt=1, delay=0.5, reason="HTTP 502"),
            *stream("main", "New start.\n"),
            ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0),
        ],
    )
    r.end_run()
    assert sink.getvalue().count("Old start.") == 1
    assert "New start." in sink.getvalue()


def test_coder_activity_is_indented_under_its_send_to_coder_line() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(
        r,
        [
            ev.TurnStarted(agent="orchestrator", turn=1),
            ev.ToolCallStarted(agent="orchestrator", call_id="o1", name="send-to-coder"),
            ev.TurnEnded(agent="orchestrator", turn=1, text="", tool_calls=1),
            ev.ToolCallRunning(
                agent="orchestrator",
                call_id="o1",
                name="send-to-coder",
                args={"task": "add a flag"},
                detail="add a flag",
            ),
            ev.TurnStarted(agent="coder", turn=1),
            *stream("coder", "Reading first."),
            ev.TurnEnded(agent="coder", turn=1, text="Reading first.", tool_calls=1),
            ev.ToolCallRunning(
                agent="coder",
                call_id="k1",
                name="read-file",
                args={"path": "cli.py"},
                detail="cli.py",
            ),
            ev.ToolCallFinished(
                agent="coder",
                call_id="k1",
                name="read-file",
                args={"path": "cli.py"},
                ok=True,
                summary="read 9 lines",
                output="",
                detail="cli.py",
            ),
            ev.MemoWritten(agent="coder", key="file:cli.py", summary="argparse entry point"),
            ev.TurnStarted(agent="coder", turn=2),
            *stream("coder", "Added --name to cli.py and tested it."),
            ev.TurnEnded(agent="coder", turn=2, text="", tool_calls=0),
            ev.ToolCallFinished(
                agent="orchestrator",
                call_id="o1",
                name="send-to-coder",
                args={"task": "add a flag"},
                ok=True,
                summary="1 file(s) changed",
                output="report",
            ),
        ],
    )
    r.end_run()
    lines, _ = screen(sink.getvalue(), rows=30)
    assert lines == [
        "› send-to-coder add a flag",
        "    ✓ read-file cli.py — read 9 lines",
        "    memo file:cli.py — argparse entry point",
        "      Added --name to cli.py and tested it.",
        "✓ send-to-coder — 1 file(s) changed",
    ]


def test_diffs_are_coloured_and_cut_to_a_few_lines() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1,9 +1,9 @@\n" + "".join(
        f"-old {i}\n+new {i}\n" for i in range(9)
    )
    r, sink = renderer(STYLED, interval=0)
    r(
        ev.ToolCallFinished(
            agent="main",
            call_id="c",
            name="edit-file",
            args={"path": "x"},
            ok=True,
            summary="+9 -9",
            output="",
            diff=diff,
            detail="x",
        )
    )
    lines, scr = screen(sink.getvalue(), rows=20)
    assert lines[1:] == [
        "  -old 0",
        "  +new 0",
        "  -old 1",
        "  +new 1",
        "  -old 2",
        "  +new 2",
        "  … 12 more changed lines",
    ]
    assert scr.buffer[1][2].fg == "red" and scr.buffer[2][2].fg == "green"
    assert scr.buffer[0][0].fg == "green"  # ✓
    r(
        ev.ToolCallFinished(
            agent="main",
            call_id="d",
            name="bash",
            args={"command": "false"},
            ok=False,
            summary="exit 1",
            output="",
            detail="false",
        )
    )
    _, scr = screen(sink.getvalue(), rows=20)
    assert scr.buffer[8][0].data == "✗" and scr.buffer[8][0].fg == "red"


def test_reasoning_is_folded_to_three_italic_lines() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(
        r,
        [
            ev.TurnStarted(agent="main", turn=1),
            *[
                ev.ReasoningDelta(agent="main", text="step by step we consider the problem ")
                for _ in range(40)
            ],
            *stream("main", "Answer.\n"),
            ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0),
        ],
    )
    lines, scr = screen(sink.getvalue(), rows=20)
    assert lines[0].startswith("thinking: step by step")
    assert lines[2].endswith("…") and lines[3] == "" and lines[4] == "Answer."
    assert all(len(line) < COLS for line in lines)
    assert scr.buffer[0][0].italics


def test_a_cancelled_run_keeps_what_was_streamed() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(r, [ev.TurnStarted(agent="main", turn=1), *stream("main", "Partial answ")])
    r.end_run()
    lines, _ = screen(sink.getvalue())
    assert lines == ["Partial answ"]


def test_format_helpers() -> None:
    assert call_line("coder", "edit-file", "a.py", True, "+3 -1") == (
        "    ✓ edit-file a.py — +3 -1"
    )
    assert memo_line("main", "plan", "the plan") == "memo plan — the plan"
    assert tokens(950) == "950" and tokens(12_345) == "12.3k" and tokens(2_500_000) == "2.5M"
    assert status_line({"orchestrator": (3100, 412, 2000), "coder": (0, 0, 0)}, 12.34) == (
        "orchestrator 3.1k in (65% cached) / 412 out · 12.3s"
    )
    assert status_line({}, 125) == "2m 05s"
    assert diff_excerpt("--- a\n+++ b\n@@\n ctx\n-x\n+y\n") == ["-x", "+y"]
    folded = fold("word " * 100, 30, 3)
    assert len(folded) == 3 and folded[-1].endswith(" …")
    assert all(len(line) <= 30 for line in folded)
    assert fold("short\n\n text", 30) == ["short text"]


# -- terminal detection ----------------------------------------------------------------------


def test_detect_follows_the_stream_and_the_environment() -> None:
    assert detect(io.StringIO(), {"TERM": "xterm"}) == PIPE
    main, child = os.openpty()
    try:
        with open(child, "w", closefd=False) as tty:
            assert detect(tty, {"TERM": "xterm-256color"}) == STYLED
            assert detect(tty, {"TERM": "xterm", "NO_COLOR": "1"}) == NO_COLOR
            assert detect(tty, {"TERM": "dumb"}) == PIPE
    finally:
        os.close(main)
        os.close(child)


# -- confirmation ----------------------------------------------------------------------------


class Script:
    """An `Ask` that answers from a list and records the questions."""

    def __init__(self, *answers: str | type[BaseException]) -> None:
        self.answers = list(answers)
        self.questions: list[str] = []

    async def __call__(self, question: str) -> str:
        self.questions.append(question)
        answer = self.answers.pop(0)
        if isinstance(answer, type):
            raise answer()
        return answer


def request(
    tool: str = "bash", preview: str = "rm -rf build", agent: str = "main"
) -> ApprovalRequest:
    return ApprovalRequest(agent, tool, {"command": preview}, preview)


async def test_yes_always_and_no_with_feedback() -> None:
    r, sink = renderer(STYLED)
    ask = Script("y", "maybe", "a", "n", "use git clean instead")
    approver = ShellApprover(r, ask)
    assert (await approver(request())).decision == "yes"
    assert (await approver(request())).decision == "always"  # after one re-ask
    assert (await approver(request())).decision == "yes"  # no question: always
    no = await approver(request("write-file", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
    assert no.decision == "no" and no.feedback == "use git clean instead"
    assert len(ask.questions) == 5 and "[a]lways for bash" in ask.questions[0]
    lines, scr = screen(sink.getvalue(), rows=40)
    assert lines[:2] == ["? bash", "  $ rm -rf build"]
    assert "  answer y (yes), a (always) or n (no)" in lines
    assert "  +b" in lines
    plus = lines.index("  +b")
    assert scr.buffer[plus][2].fg == "green"


async def test_yes_approves_everything_and_ctrl_c_cancels_the_run() -> None:
    r, _ = renderer(PIPE)
    assert (await ShellApprover(r, Script(), yes=True)(request())).decision == "yes"
    interrupted: list[bool] = []
    with pytest.raises(asyncio.CancelledError):
        await ShellApprover(
            r, Script(KeyboardInterrupt), interrupt=lambda: interrupted.append(True)
        )(request())
    # The whole run is cancelled, not just this call: a sub-agent's task group would
    # otherwise swallow the CancelledError and the run would go on.
    assert interrupted == [True]
    no = await ShellApprover(r, Script(EOFError))(request())
    assert no.decision == "no"


async def test_questions_from_parallel_agents_are_asked_one_at_a_time() -> None:
    r, _ = renderer(PIPE)
    ask = Script("a")
    approver = ShellApprover(r, ask)
    first, second = await asyncio.gather(
        approver(request(agent="sub:a")), approver(request(agent="sub:b"))
    )
    assert {first.decision, second.decision} == {"always", "yes"}
    assert len(ask.questions) == 1


async def test_a_long_preview_is_shown_whole() -> None:
    r, sink = renderer(PIPE)
    await ShellApprover(r, Script("y"))(request("write-file", "\n".join(map(str, range(300)))))
    shown = sink.getvalue().splitlines()
    assert shown[1:301] == [f"  {n}" for n in range(300)]
    assert "more lines" not in sink.getvalue()


def test_no_posix_only_api_is_touched_at_import_time() -> None:
    """Windows: zen/ui must import there, so POSIX-only modules are imported inside functions
    that are only called off win32, and only the signal names Windows has are named."""
    import ast
    from pathlib import Path

    posix_only = {"termios", "tty", "pty", "fcntl", "resource", "grp", "pwd", "posix", "curses"}
    ui = Path(__file__).resolve().parent.parent / "zen" / "ui"
    for path in sorted(ui.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:  # module level only
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            assert not {n.split(".")[0] for n in names} & posix_only, f"{path.name}: {names}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("SIG"):
                windows_has = {"SIGINT", "SIG_IGN", "SIG_DFL"}
                assert node.attr in windows_has, f"{path.name} uses signal.{node.attr}"


def test_control_characters_from_the_model_or_tools_cannot_drive_the_terminal() -> None:
    r, sink = renderer(STYLED, interval=0)
    feed(
        r,
        [
            ev.TurnStarted(agent="main", turn=1),
            *stream("main", "Clear \x1b[2J the screen\r\n\nnext\n"),
            ev.TurnEnded(agent="main", turn=1, text="", tool_calls=1),
            ev.ToolCallFinished(
                agent="main",
                call_id="c",
                name="bash",
                args={"command": "printf '\x1b[1A'"},
                ok=True,
                summary="exit 0 \x07",
                output="",
                detail="printf '\x1b[1A'",
            ),
        ],
    )
    r.end_run()
    for seq in CONTROL.findall(sink.getvalue()):
        assert seq.endswith("m") or seq == "\x1b[2K", repr(seq)
    lines, _ = screen(sink.getvalue())
    assert lines == ["Clear � the screen", "", "next", "", "✓ bash printf '�' — exit 0 �"]


@pytest.mark.parametrize("drops", [1, 2, 3])
def test_each_block_appears_once_however_many_times_the_stream_drops(drops: int) -> None:
    r, sink = renderer(STYLED, interval=0)
    answer = "Alpha block.\n\nBeta block.\n\nGamma block.\n"
    events: list[ev.Event] = [ev.TurnStarted(agent="main", turn=1)]
    for n in range(drops):  # each failed attempt gets a little further
        cut = answer.index("Beta") if n == 0 else answer.index("Gamma") + n
        events += [
            *stream("main", answer[:cut]),
            ev.Retrying(agent="main", attempt=n + 1, delay=0.5, reason="dropped"),
        ]
    events += [*stream("main", answer), ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0)]
    feed(r, events)
    r.end_run()
    lines, _ = screen(sink.getvalue(), rows=40)
    for block in ("Alpha block.", "Beta block.", "Gamma block."):
        assert lines.count(block) == 1, lines


def test_a_command_shows_the_tail_of_its_output_and_show_has_it_all() -> None:
    from zen.ui.commands.dispatch import run_command
    from zen.ui.commands.registry import CommandContext

    r, sink = renderer(STYLED, interval=0)
    output = "\n".join(f"line {n}" for n in range(1, 21)) + "\nexit 0"
    feed(
        r,
        [
            ev.ToolCallRunning(
                agent="main", call_id="c1", name="bash", args={"command": "seq"}, detail="seq"
            ),
            ev.ToolCallFinished(
                agent="main",
                call_id="c1",
                name="bash",
                args={"command": "seq"},
                ok=True,
                summary="exit 0",
                output=output,
                detail="seq",
            ),
            ev.ToolCallFinished(
                agent="main",
                call_id="c2",
                name="bash",
                args={"command": "false"},
                ok=False,
                summary="exit 1",
                output="boom\nexit 1",
                detail="false",
            ),
            ev.ToolCallFinished(
                agent="main",
                call_id="c3",
                name="read-file",
                args={"path": "a"},
                ok=True,
                summary="read 20 lines",
                output="secret contents",
                detail="a",
            ),
        ],
    )
    lines, _ = screen(sink.getvalue(), rows=40)
    assert lines == [
        "✓ bash seq — exit 0",
        "  line 16",
        "  line 17",
        "  line 18",
        "  line 19",
        "  line 20",
        "  … 15 more lines above (/show)",
        "✗ bash false — exit 1",
        "  boom",
        "✓ read-file a — read 20 lines",
    ]
    assert "\x1b[2m" in sink.getvalue()  # dimmed
    ctx = CommandContext(None, r, None)  # type: ignore[arg-type]
    run_command(ctx, "/show 3")
    lines, _ = screen(sink.getvalue(), rows=60)
    assert lines[-22:] == ["✓ bash seq — exit 0", *(f"line {n}" for n in range(1, 21)), "exit 0"]
    run_command(ctx, "/show 9")
    assert "/show 1 to /show 3" in sink.getvalue()


async def test_an_approved_diff_is_shown_once_and_a_memo_write_is_one_line() -> None:
    r, sink = renderer(STYLED, interval=0)
    diff = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-old()\n+new()\n"
    approver = ShellApprover(r, _answers("y"))
    args = {"path": "app.py", "old": "old()", "new": "new()"}
    await approver(ApprovalRequest("main", "edit-file", args, diff))
    feed(
        r,
        [
            ev.ToolCallFinished(
                agent="main",
                call_id="c1",
                name="edit-file",
                args=dict(args),
                ok=True,
                summary="+1 -1",
                output="ok",
                diff=diff,
                detail="app.py",
            ),
            ev.ToolCallFinished(
                agent="main",
                call_id="c2",
                name="edit-file",
                args={"path": "b.py"},
                ok=True,
                summary="+1 -1",
                output="ok",
                diff=diff,
                detail="b.py",
            ),
            ev.MemoWritten(agent="main", key="plan:x", summary="the plan"),
            ev.ToolCallFinished(
                agent="main",
                call_id="c3",
                name="memo",
                args={"action": "write", "key": "plan:x"},
                ok=True,
                summary="plan:x: the plan",
                output="wrote plan:x",
                detail="write plan:x",
            ),
        ],
    )
    lines, _ = screen(sink.getvalue(), rows=40)
    assert sum(line.strip() == "+new()" for line in lines) == 2  # preview once, b.py once
    assert lines[-1] == "memo plan:x — the plan"
    assert not any("✓ memo" in line for line in lines)


def _answers(*answers: str):  # type: ignore[no-untyped-def]
    queue = list(answers)

    async def ask(_question: str) -> str:
        return queue.pop(0)

    return ask


def test_the_status_line_has_cache_hits_cost_and_context() -> None:
    assert status_line(
        {"main": (10_000, 500, 8_000)}, 2.0, cost=0.0123, context=(12_300, 128_000)
    ) == ("main 10.0k in (80% cached) / 500 out · $0.0123 · context 12.3k/128.0k (10%) · 2.0s")
    assert "cost unknown" in status_line({"main": (10, 5, 0)}, 1.0, cost=None)


def test_prices_come_from_config_then_local_then_the_table() -> None:
    from zen.llm.pricing import price_for
    from zen.settings.schema import ModelPrice

    table = price_for("gpt-4o-mini", "https://api.openai.com/v1")
    assert table is not None and table.cost(1_000_000, 1_000_000, 500_000) == pytest.approx(
        0.5 * 0.15 + 0.5 * 0.075 + 0.60
    )
    assert price_for("openai/gpt-4o-mini", "https://openrouter.ai/api/v1") == table
    assert price_for("qwen2.5-coder", "http://localhost:11434/v1").cost(10**6, 10**6) == 0
    assert price_for("mystery", "https://example.com/v1") is None
    mine = price_for(
        "mystery", "https://example.com/v1", {"mystery": ModelPrice(input=1, output=2)}
    )
    assert mine is not None and mine.cost(10**6, 10**6, 10**6) == 3.0


def test_a_changed_todo_list_is_drawn_as_a_block() -> None:
    r, sink = renderer(STYLED, interval=0)
    plan = "[x] 1. read the code\n[~] 2. fix the bug\n[ ] 3. run the tests"
    feed(
        r,
        [
            ev.ToolCallFinished(
                agent="main",
                call_id="c1",
                name="todo",
                args={"action": "update", "id": 2, "status": "in_progress"},
                ok=True,
                summary="1/3 done",
                output=plan,
                detail="update",
            ),
            ev.ToolCallFinished(
                agent="main",
                call_id="c2",
                name="todo",
                args={"action": "list"},
                ok=True,
                summary="1/3 done",
                output=plan,
                detail="list",
            ),
        ],
    )
    lines, _ = screen(sink.getvalue(), rows=20)
    assert lines == [
        "todo 1/3 done",
        "  [x] 1. read the code",
        "  [~] 2. fix the bug",
        "  [ ] 3. run the tests",
        "✓ todo list — 1/3 done",
    ]

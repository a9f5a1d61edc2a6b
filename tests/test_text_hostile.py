"""A hostile or runaway answer in the text protocol (issue 35, breaks 12 and 13).

A ```bash block quoted in prose ("never run this") emptied a workspace under `--yes`; a 79 KB
answer of unclosed fences held the event loop for 40 s under `--max-time 10` (1 MB: hours).
Through `zen -p` against the fake server, and the parsers on a megabyte of their worst shapes.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from tests.fakes.server import text
from tests.test_text_protocol import CALC, EDIT, args_for, users
from zen.agent.edits.lazy import placeholders
from zen.agent.protocols.block_ahead import Ahead
from zen.agent.protocols.block_apply import QUOTED
from zen.agent.protocols.block_parser import MARKS, lone_fence, parse
from zen.agent.protocols.edit_blocks import MAX_ANSWER, example, tried

PROSE = (
    "To clean up, you might be tempted to wipe the folder. Never run this: it deletes "
    "everything in the project.\n\n```bash\nrm -rf ./*\n```\n\nUse `git clean -n` instead."
)


def test_a_bash_block_runs_only_in_an_answer_of_blocks(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    (project / "notes.md").write_text("keep me\n")
    later = EDIT + "\nThen check nothing is left over:\n```bash\nrm -rf ./*\n```\n"
    fake = fake_llm(
        [
            text(PROSE),
            text("```bash\necho ran > ran.txt\n```\n"),  # blocks alone: runs
            text(later),  # an edit applies; the command beside prose does not run
            text("Done."),
        ]
    )
    done = run_zen("-p", "clean up calc.py", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "notes.md").read_text() == "keep me\n"  # the workspace is intact
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    assert (project / "ran.txt").read_text() == "ran\n"
    told = users(fake.requests[1])[-1]
    assert told.startswith("[zen] results of your blocks:\n1. `rm -rf ./*`: " + QUOTED), told
    assert "$ echo ran > ran.txt" in users(fake.requests[2])[-1]
    last = users(fake.requests[3])
    assert last[-1].splitlines()[1:3] == [
        "1. calc.py: +1 -1",
        "2. `rm -rf ./*`: not run (text around it)",
    ]
    assert sum(QUOTED in m for m in last) == 1  # told once a conversation


def test_a_command_quoted_in_a_final_answer_leaves_it_the_answer(
    fake_llm, run_zen, project
) -> None:
    """Told once; after that, an answer that only quotes a command is the final answer."""
    (project / "keep.txt").write_text("x\n")
    fake = fake_llm([text(PROSE), text("Understood."), text(PROSE)])
    first = run_zen("-p", "how do I clean up?", "--yes", *args_for(fake))
    assert first.code == 0, first.err
    assert first.out.strip() == "Understood." and len(fake.requests) == 2
    again = run_zen("-p", "and again?", "--yes", "--continue", *args_for(fake))
    assert again.code == 0, again.err
    assert again.out.strip() == PROSE and len(fake.requests) == 3
    assert (project / "keep.txt").exists()


def huge(n: int) -> str:
    """`n` bytes of unclosed fences, each line different (an exact repeat is stopped
    mid-stream)."""
    text = "".join(f"```py{i}\n" for i in range(n // 8))[:n]
    return text[: text.rfind("\n") + 1]  # whole lines: a last "```" would close them all


def blank(n: int) -> str:
    """`n` bytes of blank lines, not exactly periodic (see `huge`)."""
    pick = random.Random(35)
    return "".join(" " * pick.randrange(3) + "\n" for _ in range(n // 2))[:n]


SHAPES = {
    "unclosed fences": lambda n: huge(n),
    "a long fence line": lambda n: "```x" + " " * (n - 6) + "y",
    "unclosed echoes": lambda n: '<file path="a.py">\n' * (n // 19),
    "fences wrapping markers": lambda n: (
        "```x\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE\n" * ((n - 4) // 45) + "```\n"
    ),
    "fences growing": lambda n: "".join("`" * k + "x\n" for k in range(3, int((2 * n) ** 0.5) - 3)),
    "blank lines": lambda n: "\n" * n,
    "blank lines, varied": blank,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_megabyte_of_the_worst_shapes_parses_in_linear_time(shape: str) -> None:
    """Under 1 s on an idle machine (dev/bench/edit_blocks.py); the bound here allows for a
    loaded one. Before, each took minutes to hours."""
    answer = SHAPES[shape](MAX_ANSWER)
    assert len(answer.encode()) <= MAX_ANSWER
    start = time.process_time()
    parse(answer, frozenset({"a.py"}))
    lone_fence(answer)
    tried(answer)
    assert time.process_time() - start < 5


@pytest.mark.timeout(60)
def test_a_line_of_spaces_in_a_whole_file_is_checked_at_once() -> None:
    """`placeholders` (once `omissions`) took 20 s on one line of 200 spaces (nested `\\s*`)."""
    start = time.process_time()
    assert placeholders("", " " * 100_000 + "x\n" + "#" + " " * 100_000 + "rest of\n") == []
    assert time.process_time() - start < 1


@pytest.mark.parametrize(
    ("protocol", "answer"),
    [("text", huge(MAX_ANSWER)), ("auto", blank(MAX_ANSWER) + "x")],
    ids=["unclosed fences", "blank lines"],
)
def test_max_time_holds_with_a_huge_answer(
    fake_llm, run_zen, project, protocol: str, answer: str
) -> None:
    fake = fake_llm([text(answer, chunk=65536)])
    start = time.monotonic()
    done = run_zen("-p", "go", "--max-time", "10", *args_for(fake, protocol), timeout=120)
    assert time.monotonic() - start < 40, done.err  # start-up is slow on a loaded machine
    assert done.code in (0, 4), done.err  # read as a plain answer, or stopped by the deadline


def test_an_answer_over_the_cap_is_refused_with_what_to_do(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)

    def script(body: dict[str, Any]) -> Any:
        if len(body["messages"]) == 2 + len(example()):
            return text(EDIT + "\n" + huge(MAX_ANSWER + 10), chunk=65536)
        return text("Sorry.")

    fake = fake_llm(script)
    done = run_zen("-p", "fix calc.py", "--yes", *args_for(fake), timeout=120)
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC  # nothing in it was applied
    refused = users(fake.requests[1])[-1]
    assert "1. Error: your answer is 1,000,0" in refused, refused[:300]
    assert "over the 1,000,000 zen reads for blocks: nothing in it was applied or run" in refused
    assert "Send fewer blocks per answer" in refused


def test_the_index_finds_the_closing_line_a_scan_finds() -> None:
    """`Ahead.closing` against the scan it replaced, on random fence lines."""
    pick = random.Random(13)
    for _ in range(300):
        lines = [pick.choice(["```", "````", "`````", "~~~", "~~~~", " ``` ", "x", "```py"])]
        lines += [
            pick.choice(["```", "````", "`````", "~~~", "~~~~", " ``` ", "x", "```py", ""])
            for _ in range(pick.randrange(30))
        ]
        ahead = Ahead(lines, MARKS, "<")
        for start in range(len(lines) + 1):
            for mark in ("```", "````", "~~~", "~~~~~"):
                scanned = next(
                    (
                        i
                        for i in range(start, len(lines))
                        if lines[i].strip()
                        and set(lines[i].strip()) == {mark[0]}
                        and len(lines[i].strip()) >= len(mark)
                    ),
                    None,
                )
                assert ahead.closing(start, mark) == scanned, (lines, start, mark)

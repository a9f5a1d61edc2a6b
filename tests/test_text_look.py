"""Questions can look (issue 38 part 3), and the text prompt's worked example (part 5): a
named file too large to attach is named with its size and first lines, a binary file by name
and size alone; the model reads more with a ```bash block, through the bash tool."""

from __future__ import annotations

from tests.fakes.server import text
from tests.test_text_protocol import args_for, users
from zen.agent.protocols.block_files import FILE_LIMIT
from zen.agent.protocols.block_parser import parse
from zen.agent.protocols.block_paths import copied
from zen.agent.protocols.block_peek import PEEK_BYTES
from zen.agent.protocols.block_types import Command, WholeFile
from zen.agent.protocols.edit_blocks import ALL_DONE, SOME_FAILED, example
from zen.settings.prompts import load_prompt

ROWS = "id,city,temp\n" + "".join(f"{n},city{n},{n % 40}\n" for n in range(4000))


def test_a_large_named_file_comes_with_its_size_and_first_lines(fake_llm, run_zen, project):
    (project / "data.csv").write_text(ROWS)
    assert len(ROWS) > FILE_LIMIT
    (project / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0" * 10)
    fake = fake_llm([text("```bash\nwc -l data.csv\n```"), text("4001 lines.")])
    done = run_zen("-p", "how many rows has data.csv? see logo.png", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    first = users(fake.requests[0])[-1]
    shown = f"data.csv is too large to show ({len(ROWS):,} bytes, 4,001 lines); its first 10 lines"
    assert shown in first
    assert "id,city,temp\n0,city0,0\n" in first and "city10," not in first
    assert "logo.png (110 bytes) is binary: not shown." in first
    assert "\x89PNG" not in first
    ran = users(fake.requests[1])[-1]
    assert "4001 data.csv" in ran  # the bash block ran, its output came back
    assert done.out.strip() == "4001 lines."


def test_a_look_that_exits_non_zero_is_output_not_a_failure_to_fix(fake_llm, run_zen, project):
    """grep finding nothing exits 1: the model is not told to fix it (a 1.5B model then
    rewrote the data file it was asked about); a failed edit still is."""
    (project / "data.csv").write_text(ROWS)
    look = "```bash\ngrep -c nowhere data.csv\n```"
    edit = "data.csv\n<<<<<<< SEARCH\nnot there\n=======\nx\n>>>>>>> REPLACE"
    fake = fake_llm([text(look), text(edit), text("None.")])
    done = run_zen("-p", "how many rows of data.csv say nowhere?", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    ran = users(fake.requests[1])[-1]
    assert "exit 1" in ran and ran.endswith(ALL_DONE) and SOME_FAILED not in ran
    assert users(fake.requests[2])[-1].endswith(SOME_FAILED)


def test_a_peek_counts_lines_up_to_its_bound(tmp_path, monkeypatch) -> None:
    from zen.agent.protocols import block_peek

    for data, said in ((b"a\nb", "2"), (b"a\nb\n", "2"), (b"", "0"), (b"x\n" * 600, "600")):
        (tmp_path / "f").write_bytes(data)
        with (tmp_path / "f").open("rb") as f:
            assert block_peek._count_lines(f) == said
    monkeypatch.setattr(block_peek, "COUNT_BYTES", 1000)
    with (tmp_path / "f").open("rb") as f:  # 1,200 bytes: past the bound
        assert block_peek._count_lines(f) == "more than 500"


def test_a_peek_is_capped_in_bytes_and_cannot_close_its_fence(fake_llm, run_zen, project):
    line = "`" * 5 + "x" * 3 * PEEK_BYTES  # one long first line with a fence in it
    (project / "wide.txt").write_text(line + "\n" + "y\n" * FILE_LIMIT)
    fake = fake_llm([text("It is wide.")])
    done = run_zen("-p", "what is in wide.txt?", *args_for(fake))
    assert done.code == 0, done.err
    first = users(fake.requests[0])[-1]
    peek = first.split("wide.txt is too large to show", 1)[1]
    assert "x" * (PEEK_BYTES - 5) in peek and "x" * PEEK_BYTES not in peek
    assert "``````\n" + "`" * 5 in peek  # a fence longer than any run inside


def test_the_worked_example_answers_a_question_writes_a_whole_file_looks_and_runs() -> None:
    turns = example()
    assert [m["role"] for m in turns] == ["user", "assistant"] * 4
    assert '<file path="convert_miles.py">' in turns[0]["content"]
    assert parse(turns[1]["content"], frozenset({"convert_miles.py"})) == []  # words alone
    (edit,) = parse(turns[3]["content"], frozenset({"convert_miles.py"}))
    assert isinstance(edit, WholeFile) and edit.path == "convert_miles.py"
    assert "return round(miles * 1.609, 1)" in edit.content
    (look,) = parse(turns[5]["content"], frozenset({"convert_miles.py"}))
    assert isinstance(look, Command) and not look.quoted  # blocks alone: it runs
    assert look.command.strip() == "wc -l convert_miles.py"
    (run,) = parse(turns[7]["content"], frozenset({"convert_miles.py"}))
    assert isinstance(run, Command) and run.command.strip() == "python convert_miles.py"
    for said in (load_prompt("text"), *(m["content"] for m in turns)):
        assert not any(copied(line) for line in said.splitlines())
        assert "<path" not in said and "<the whole" not in said


def test_the_example_is_in_the_stable_prefix_and_never_saved(fake_llm, run_zen, project) -> None:
    fake = fake_llm([text("ok"), text("ok")])
    for task in ("one", "two"):
        assert run_zen("-p", task, *args_for(fake)).code == 0
    heads = [r["messages"][: 1 + len(example())] for r in fake.requests]
    assert heads[0] == heads[1] and heads[0][1:] == [dict(m) for m in example()]
    assert users(fake.requests[1]) == [fake.requests[1]["messages"][-1]["content"]]

"""The edit-block parser: the shapes small models write, and what is never taken for a file."""

from __future__ import annotations

import pytest

from zen.agent.edits.lazy import placeholders
from zen.agent.protocols.block_checks import lost_definitions
from zen.agent.protocols.block_parser import COPIED, lone_fence, parse
from zen.agent.protocols.block_types import Command, Malformed, Replace, WholeFile

BLOCK = "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n"
ONE = Replace("app.py", "old\n", "new\n")


@pytest.mark.parametrize(
    "head",
    [
        "app.py\n",
        "`app.py`\n",
        "**app.py**\n",
        "### app.py\n",
        "# File: app.py\n",
        "app.py:\n",
        "- `app.py`:\n",
        "app.py   \n",
        "app.py\n```python\n",
        "```python app.py\n",
        "```\napp.py\n",
        "app.py\n\n",
    ],
)
def test_the_path_line_forgives_markdown_around_it(head: str) -> None:
    closing = "```\n" if "```" in head else ""
    assert parse("Sure.\n\n" + head + BLOCK + closing + "\nDone.") == [ONE]


def test_marker_lengths_trailing_whitespace_and_crlf_are_forgiven() -> None:
    answer = "app.py\r\n<<<<< SEARCH  \r\nold   \r\n=========\r\nnew\t\r\n>>>>>>>>> REPLACE \r\n"
    assert parse(answer) == [ONE]


def test_several_blocks_share_a_fence_and_a_later_one_its_path() -> None:
    answer = (
        "app.py\n```python\n" + BLOCK + BLOCK.replace("old", "b") + "```\n\n"
        "lib/util.py\n```python\n" + BLOCK + "```\n"
    )
    assert parse(answer) == [
        ONE,
        Replace("app.py", "b\n", "new\n"),
        Replace("lib/util.py", "old\n", "new\n"),
    ]


def test_a_stray_closing_fence_does_not_swallow_the_next_file() -> None:
    answer = "app.py\n" + BLOCK + "```\n\nnew.py\n```python\nprint(1)\n```\n"
    assert parse(answer) == [ONE, WholeFile("new.py", "print(1)\n")]


def test_a_block_cut_off_or_without_a_path_is_reported_not_applied() -> None:
    (cut,) = parse("app.py\n<<<<<<< SEARCH\nold\n=======\nnew")
    assert isinstance(cut, Malformed) and "app.py" in cut.problem
    assert ">>>>>>> REPLACE" in cut.problem and "cut off" in cut.problem
    (early,) = parse("app.py\n<<<<<<< SEARCH\nold\n")
    assert isinstance(early, Malformed) and "=======" in early.problem
    undivided = parse("app.py\n<<<<<<< SEARCH\nnew\n>>>>>>> REPLACE\n" + BLOCK)
    assert undivided == [WholeFile("app.py", "new\n", undivided=True), ONE]  # no divider
    (pathless,) = parse("Here is the change:\n" + BLOCK)
    assert isinstance(pathless, Malformed) and "no file path" in pathless.problem
    nested = parse("app.py\n<<<<<<< SEARCH\nold\n" + BLOCK)
    assert isinstance(nested[0], Malformed) and nested[1] == ONE


def test_an_empty_search_is_kept_for_the_applier_to_judge() -> None:
    assert parse("new.py\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE") == [
        Replace("new.py", "", "x = 1\n")
    ]


@pytest.mark.parametrize(
    ("answer", "path"),
    [
        ("new.py\n```python\nx = 1\n```", "new.py"),
        ("src/new.py:\n\n```\nx = 1\n```", "src/new.py"),
        ("```python src/new.py\nx = 1\n```", "src/new.py"),
        ("**Makefile**\n~~~\nx = 1\n~~~", "Makefile"),
    ],
)
def test_a_fenced_block_headed_by_a_path_is_a_whole_file(answer: str, path: str) -> None:
    assert parse(answer) == [WholeFile(path, "x = 1\n")]


@pytest.mark.parametrize(
    "answer",
    [
        "Here is the function:\n```python\ndef f():\n    pass\n```",
        "In `app.py`, change it to:\n```python\ndef f():\n    pass\n```",
        "Done.\n```python\ndef f():\n    pass\n```",
        "```python\ndef f():\n    pass\n```",
        "Run it:\n```console\n$ pytest\n```",
        "no blocks at all",
    ],
)
def test_a_snippet_is_never_taken_for_a_file(answer: str) -> None:
    assert parse(answer) == []


def test_shell_blocks_are_commands_and_an_unclosed_file_is_reported() -> None:
    assert parse("```bash\npytest -q\n```\n```sh\nls\n```") == [
        Command("pytest -q"),
        Command("ls"),
    ]
    (cut,) = parse("new.py\n```python\nx = 1\n")
    assert isinstance(cut, Malformed) and cut.problem.startswith("new.py: ")


def test_a_whole_file_with_placeholders_or_missing_functions_is_caught() -> None:
    old = "def mean(xs):\n    ...\n\n\ndef median(xs):\n    return 0\n\n\nclass Stats:\n    pass\n"
    assert placeholders(old, "def mean(xs):\n    ...\n# ... rest of the code unchanged\n") == [
        "# ... rest of the code unchanged"
    ]
    assert placeholders(old, "def mean(xs):\n    ...\n// ...\n") == ["// ..."]
    assert placeholders(old, old.replace("return 0", "return 1")) == []  # its own `...` stays
    assert lost_definitions(old, "def median(xs):\n    return 1\n") == ["mean", "Stats"]
    assert lost_definitions(old, old + "\ndef mode(xs):\n    return 2\n") == []


def test_a_bash_block_holding_a_file_is_never_run() -> None:
    """Seen with Qwen2.5-Coder-1.5B: the edit written inside a ```bash fence."""
    seen = "```bash\npath/to/file.py\n=======\ndef median(xs):\n    return 0\n```"
    (block,) = parse(seen)
    assert isinstance(block, Malformed) and "edit markers" in block.problem
    (block,) = parse("```sh\nstats.py\ndef median(xs):\n    return 0\n```")
    assert isinstance(block, Malformed) and "file path" in block.problem
    assert parse("```bash\npython -m pytest -q tests/test_stats.py\n```") == [
        Command("python -m pytest -q tests/test_stats.py")
    ]


def test_a_fence_under_prose_naming_one_shown_file_is_that_file() -> None:
    """Qwen2.5-Coder-1.5B's answer on llama.cpp, word for word but shortened."""
    answer = (
        "Sure! Here's the updated `stats.py` file with the `median` function added:\n\n"
        "```python\ndef mean(xs):\n    return 1\n```\n\n"
        "And here's the updated `test_stats.py` file:\n\n```python\nimport stats\n```\n"
    )
    known = frozenset({"stats.py", "test_stats.py"})
    assert parse(answer, known) == [
        WholeFile("stats.py", "def mean(xs):\n    return 1\n"),
        WholeFile("test_stats.py", "import stats\n"),
    ]
    assert parse(answer) == []  # files the model never saw are never guessed
    both = "Compare `stats.py` with `test_stats.py`:\n```python\nx = 1\n```"
    assert parse(both, known) == []  # two files named: no guess


def test_a_copied_placeholder_is_a_format_error() -> None:
    for answer in (
        "<path of the file>\n```\nx = 1\n```",
        "calc.py\n```\n<the whole new file>\n```",
        "```\n<path of the file>\nx = 1\n```",
    ):
        (block,) = parse(answer)
        assert isinstance(block, Malformed) and block.problem == COPIED, answer
    assert parse("<b>note</b>\n```\nx = 1\n```") == []  # markup is not the placeholder
    assert parse("<div>\n```html\n<input disabled>\n```") == []


def test_a_bare_path_as_a_fences_first_line_is_its_file() -> None:
    """Qwen2.5-Coder-1.5B: the path inside the fence, after a stray divider."""
    assert parse("```\ncalc.py\nx = 1\n```") == [WholeFile("calc.py", "x = 1\n")]
    assert parse("```python\n`calc.py`\nx = 1\n```") == [WholeFile("calc.py", "x = 1\n")]
    stray = parse("```\n=======\ncalc.py\nx = 1\n```")
    assert stray == [WholeFile("calc.py", "=======\nx = 1\n")]  # the applier drops it
    assert parse("calc.py\n```\ncalc.py\nx = 1\n```") == [WholeFile("calc.py", "x = 1\n")]
    # Not a path line: a comment, another file named above, a shell block, a lone line.
    assert parse("```\n# calc.py\nx = 1\n```") == []
    assert parse("a.py\n```\nb.py\nx\n```") == [WholeFile("a.py", "b.py\nx\n")]
    (shell,) = parse("```bash\ncalc.py\nx = 1\n```")
    assert isinstance(shell, Malformed)
    assert parse("```\ncalc.py\n```") == []


def test_a_lone_bare_fence_is_offered_to_the_applier_and_nothing_else_is() -> None:
    assert lone_fence("Sure:\n```python\nx = 5\n```\nDone.") == "x = 5\n"
    assert lone_fence("```\nx = 5\n```") == "x = 5\n"
    assert lone_fence("```bash\nls\n```") is None  # a command
    assert lone_fence("```\na\n```\n```\nb\n```") is None  # two blocks: no guess
    assert lone_fence("```python calc.py\nx\n```") is None  # named: parse() has it
    assert lone_fence("```\nx = 5\n") is None  # never closed
    assert lone_fence("```\n\n```") is None
    assert lone_fence("no code at all") is None
    assert lone_fence("```\n=======\nx = 5\n```") == "=======\nx = 5\n"  # a stray divider
    broken = "```\n<path of the file>\n=======\ndef f():\n    pass\n>>>>>>> REPLACE\n```"
    assert lone_fence(broken) is None  # Qwen2.5-Coder-1.5B: half an edit block, not a file


def test_a_file_echoed_in_the_form_zen_shows_it_is_that_file() -> None:
    """Qwen2.5-Coder-1.5B answered follow-the-chain with the attachment form, fenced."""
    echoed = '<file path="style.py">\ndef f():\n    return "!"\n</file>'
    assert parse(echoed) == [WholeFile("style.py", 'def f():\n    return "!"\n')]
    assert parse(f"Here:\n```\n{echoed}\n```\nDone.") == parse(echoed)
    assert parse('<file path="a.py">\n```python\nx = 1\n```\n</file>') == [
        WholeFile("a.py", "x = 1\n")
    ]
    assert parse('<file path="a.py">\nx = 1\n') == []  # never closed: nothing
    two = '```\n<file path="a.py">\nx\n</file>\n<file path="b.py">\ny\n</file>\n```'
    assert parse(two) == [WholeFile("a.py", "x\n"), WholeFile("b.py", "y\n")]  # rename task


def test_a_path_in_angle_brackets_heading_a_fence_is_its_file() -> None:
    """Qwen2.5-Coder-1.5B answered add-cli-flag with ```, then `<count.py>`, then the file."""
    assert parse("```\n<count.py>\nx = 1\n```") == [WholeFile("count.py", "x = 1\n")]
    assert parse("```\n<b>\nx = 1\n```") == []  # markup, not a path
    assert parse("```html\n<div>\n</div>\n```") == []


@pytest.mark.parametrize(
    "answer",
    [
        "```bash\nls\n```",
        "app.py\n" + BLOCK + "\n```bash\nls\n```\n",
        "app.py\n```python\n" + BLOCK + "```\n\n```sh\nls\n```",
        "**new.py**:\n\n```python\nx = 1\n```\n```bash\nls\n```",
        "```python new.py\nx = 1\n```\n\n\n```bash\nls\n```\n",
        '<file path="a.py">\nx\n</file>\n```bash\nls\n```',  # `</file>` names no file
        "<path of the file>\n```\nx = 1\n```\n```bash\nls\n```",
    ],
)
def test_a_shell_block_among_blocks_alone_is_a_command(answer: str) -> None:
    assert parse(answer)[-1] == Command("ls")


@pytest.mark.parametrize(
    "answer",
    [
        "Never run this:\n```bash\nrm -rf ./*\n```",
        "```bash\nrm -rf ./*\n```\nThat would delete everything.",
        "app.py\n" + BLOCK + "\nthen\n```bash\nrm -rf ./*\n```",
        "```python\nprint(1)\n```\n```bash\nrm -rf ./*\n```",  # a snippet is not a block
        "Here's the updated `stats.py`:\n```python\nx\n```\n```bash\nrm -rf ./*\n```",
        "```bash\nrm -rf ./*\n```\n```python\nnever closed\n",
    ],
)
def test_a_shell_block_beside_any_other_text_is_quoted(answer: str) -> None:
    blocks = parse(answer, frozenset({"stats.py"}))
    assert Command("rm -rf ./*", quoted=True) in blocks
    assert Command("rm -rf ./*") not in blocks

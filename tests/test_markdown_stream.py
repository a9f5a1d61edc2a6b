"""The incremental markdown block splitter and the one-block renderer."""

from __future__ import annotations

import io
import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.fakes.server import long_markdown
from zen.ui.markdown_stream import BlockSplitter, render_block
from zen.ui.term import Caps, make_console

ANSWER = """# Plan
First we read the code,
then we change it.

- one
- two

  more about two

- three
Lazy continuation.

```python
def f():

    return 1
```
After the fence.

1. step
2. step with code:

   ```sh
   make

   make test
   ```
3. done

2024 was the year.
| a | b |
|---|---|
| 1 | 2 |

> quoted
> text
"""

BLOCKS = [
    "# Plan\n",
    "First we read the code,\nthen we change it.\n",
    "- one\n- two\n\n  more about two\n\n- three\nLazy continuation.\n",
    "```python\ndef f():\n\n    return 1\n```\n",
    "After the fence.\n",
    "1. step\n2. step with code:\n\n   ```sh\n   make\n\n   make test\n   ```\n3. done\n",
    "2024 was the year.\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    "> quoted\n> text\n",
]


def split(text: str, sizes: list[int]) -> list[str]:
    splitter = BlockSplitter()
    blocks: list[str] = []
    pos = 0
    i = 0
    while pos < len(text):
        size = sizes[i % len(sizes)]
        blocks += splitter.feed(text[pos : pos + size])
        pos += size
        i += 1
    return blocks + splitter.finish()


def test_blocks_of_a_typical_answer() -> None:
    assert split(ANSWER, [len(ANSWER)]) == BLOCKS


@given(st.lists(st.integers(min_value=1, max_value=40), min_size=1, max_size=20))
@settings(max_examples=200, deadline=None)
def test_chunking_never_changes_the_blocks(sizes: list[int]) -> None:
    assert split(ANSWER, sizes) == BLOCKS


@given(
    st.text(alphabet="ab -*#`~>|1.\n ", max_size=300),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=8),
)
@settings(max_examples=300, deadline=None)
def test_any_text_any_chunking_same_blocks_nothing_lost(text: str, sizes: list[int]) -> None:
    whole = split(text, [max(1, len(text))])
    assert split(text, sizes) == whole
    # every non-blank line comes out exactly once, in order
    assert [ln for b in whole for ln in b.splitlines() if ln.strip()] == [
        ln for ln in text.splitlines() if ln.strip()
    ]


def test_a_block_is_released_as_soon_as_it_is_certainly_finished() -> None:
    s = BlockSplitter()
    assert s.feed("A paragraph") == []
    assert s.feed(" goes on.\n") == []
    assert s.feed("\n") == ["A paragraph goes on.\n"]
    assert s.feed("## Heading\n") == ["## Heading\n"]
    assert s.feed("```py\nx = 1\n\n") == []  # blank lines inside a fence do not end it
    assert s.feed("```\n") == ["```py\nx = 1\n\n```\n"]


def test_a_list_ends_at_the_first_character_of_what_follows_it() -> None:
    s = BlockSplitter()
    assert s.feed("- a\n- b\n\n") == []  # a loose list may go on
    assert s.feed("-") == []  # `- c` or `---`? cannot tell yet
    s2 = BlockSplitter()
    s2.feed("- a\n\n")
    assert s2.feed("  indented") == []  # continuation of the item
    s3 = BlockSplitter()
    s3.feed("- a\n\n")
    assert s3.feed("N") == ["- a\n"]  # a paragraph: the list is done before its line ends
    s4 = BlockSplitter()
    s4.feed("1. a\n\n12")
    assert s4.feed("0") == []
    assert s4.feed(" km away") == ["1. a\n"]


def test_longer_fences_and_unclosed_fences() -> None:
    s = BlockSplitter()
    assert s.feed("````md\n```\ninner\n```\n") == []  # a shorter fence does not close it
    assert s.feed("````\n") == ["````md\n```\ninner\n```\n````\n"]
    assert s.feed("```\nnever closed\n") == []
    assert s.finish() == ["```\nnever closed\n"]


def test_inline_triple_backticks_are_not_a_fence() -> None:
    assert split("use ```x``` here\n\nnext\n", [3]) == ["use ```x``` here\n", "next\n"]


def test_tail_shows_the_line_being_streamed() -> None:
    s = BlockSplitter()
    s.feed("first line\nsecond li")
    assert s.tail(5) == "nd li"
    assert s.tail(100) == "second li"
    s.feed("ne\n")
    assert s.tail(100) == "second line"  # between lines: the last complete one


def test_cost_is_linear_even_for_one_enormous_line() -> None:
    """A 400 kB line streamed in 4-char chunks (~1 s): quadratic joining would copy ~20 GB."""
    line = "x" * 400_000
    s = BlockSplitter()
    start = time.process_time()
    for i in range(0, len(line), 4):
        s.feed(line[i : i + 4])
        s.tail(400)
    assert s.finish() == [line + "\n"]
    assert time.process_time() - start < 5


def test_a_long_answer_splits_into_its_sections() -> None:
    text = long_markdown(3000)
    blocks = split(text, [4])
    assert blocks == split(text, [len(text)])
    assert sum(b.startswith("```python") for b in blocks) == text.count("```python")
    assert all(not b.startswith("\n") and b.endswith("\n") for b in blocks)


# -- rendering one block ---------------------------------------------------------------------

STYLED = Caps(styled=True, live=True, vt=True)


def rendered(block: str, width: int = 60) -> str:
    sink = io.StringIO()
    render_block(make_console(STYLED, file=sink, width=width), block)
    return sink.getvalue()


def plain_text(ansi: str) -> str:
    return re.sub(r"\x1b\[[0-9;]*m", "", ansi)


def test_rendered_blocks_carry_no_padding_and_no_boxes() -> None:
    for block in BLOCKS:
        out = rendered(block)
        for line in out.split("\n"):
            assert not plain_text(line).endswith(" "), repr(line)
        assert not out.startswith("\n")
        assert not out.endswith("\n\n")
        assert not re.search(r"[┌┐└┘│┃┏┓┗┛╭╮╰╯]", out), out  # a table keeps its header rule


def test_a_heading_is_left_aligned_and_code_is_highlighted() -> None:
    heading = rendered("# Plan\n")
    assert plain_text(heading).startswith("Plan")
    code = rendered("```python\ndef f():\n    return 1\n```\n")
    assert "\x1b[" in code and "def" in plain_text(code)
    assert plain_text(code).splitlines()[0] == "  def f():"  # indented, no fence lines shown


def test_a_paragraph_wraps_to_the_width() -> None:
    out = plain_text(rendered("word " * 40 + "\n", width=30))
    assert all(len(line) <= 30 for line in out.splitlines())
    assert out.split() == ["word"] * 40

"""edit-file against real files: the read guard, matching, line endings, diffs and auto-memo."""

from __future__ import annotations

import asyncio
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from zen.stores.memo import AUTO, MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import ToolContext, ToolResult
from zen.tools.edit_file import EditFile
from zen.tools.read_file import ReadFile
from zen.tools.workspace import Workspace


def make_ctx(root: Path) -> ToolContext:
    return ToolContext(Workspace(root), "main", ReadTracker(), MemoStore(), TodoStore())


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "ws"
    root.mkdir()
    return make_ctx(root)


def root(ctx: ToolContext) -> Path:
    return ctx.workspace.root


async def read(ctx: ToolContext, path: str) -> ToolResult:
    tool = ReadFile()
    return await tool.execute(tool.Params.model_validate({"path": path}), ctx)


async def edit(ctx: ToolContext, **args: Any) -> ToolResult:
    tool = EditFile()
    return await tool.execute(tool.Params.model_validate(args), ctx)


async def preview(ctx: ToolContext, **args: Any) -> str | ToolResult:
    tool = EditFile()
    return await tool.preview(tool.Params.model_validate(args), ctx)


async def seed(ctx: ToolContext, name: str, data: str | bytes) -> Path:
    """Put a file in the workspace and read it with read-file, as an agent would."""
    path = root(ctx) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)
    assert (await read(ctx, name)).ok
    return path


async def test_refused_before_read(ctx: ToolContext) -> None:
    path = root(ctx) / "a.py"
    path.write_text("x = 1\n")
    result = await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 2")
    assert not result.ok
    assert "read a.py with read-file" in result.output
    assert path.read_text() == "x = 1\n"


async def test_a_read_by_another_agent_does_not_count(ctx: ToolContext) -> None:
    other = make_ctx(root(ctx))
    await seed(other, "a.py", "x = 1\n")
    result = await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 2")
    assert not result.ok and "read-file" in result.output


async def test_refused_after_an_external_change(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "x = 1\n")
    path.write_text("x = 1\ny = 2\n")
    result = await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 3")
    assert not result.ok and "changed on disk" in result.output
    assert path.read_text() == "x = 1\ny = 2\n"
    await read(ctx, "a.py")
    assert (await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 3")).ok


async def test_refused_after_a_touch_with_the_same_size(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "x = 1\n")
    st_ = path.stat()
    os.utime(path, ns=(st_.st_atime_ns, st_.st_mtime_ns + 5_000_000_000))
    result = await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 3")
    assert not result.ok and "changed on disk" in result.output


async def test_edit_replaces_and_returns_a_diff(ctx: ToolContext) -> None:
    lines = [f"line {i}" for i in range(1, 21)]
    path = await seed(ctx, "m.py", "\n".join(lines) + "\n")
    result = await edit(ctx, path="m.py", old_string="line 10\n", new_string="ten\nTEN\n")
    assert result.ok
    assert path.read_text() == "\n".join(lines[:9] + ["ten", "TEN"] + lines[10:]) + "\n"
    assert result.summary == "+2 -1"
    assert result.diff == result.output
    assert result.files_changed == ["m.py"]
    assert result.output.startswith("--- a/m.py\n+++ b/m.py\n@@ -7,7 +7,8 @@\n")
    assert "\n-line 10\n+ten\n+TEN\n" in result.output
    assert "line 6" not in result.output and "line 14" not in result.output  # 3 lines of context


async def test_not_found(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "x = 1\n")
    result = await edit(ctx, path="a.py", old_string="y = 1", new_string="y = 2")
    assert not result.ok
    assert "not found" in result.output and "context" in result.output
    assert path.read_text() == "x = 1\n"


async def test_not_found_with_line_numbers_says_to_drop_them(ctx: ToolContext) -> None:
    await seed(ctx, "a.py", "x = 1\ny = 2\n")
    result = await edit(ctx, path="a.py", old_string="1\tx = 1\n2\ty = 2", new_string="z")
    assert not result.ok and "without the line numbers" in result.output


async def test_found_many_times(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "x = 1\nx = 1\nx = 1\n")
    result = await edit(ctx, path="a.py", old_string="x = 1", new_string="x = 2")
    assert not result.ok
    assert "found 3 times" in result.output and "replace_all" in result.output
    assert path.read_text() == "x = 1\nx = 1\nx = 1\n"


async def test_replace_all(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "foo(1)\nbar\nfoo(2)\n")
    result = await edit(ctx, path="a.py", old_string="foo", new_string="baz", replace_all=True)
    assert result.ok
    assert path.read_text() == "baz(1)\nbar\nbaz(2)\n"
    assert result.output.startswith("replaced 2 occurrences\n")
    assert result.summary == "+2 -2"


async def test_same_strings_and_empty_old_are_errors(ctx: ToolContext) -> None:
    await seed(ctx, "a.py", "x = 1\n")
    same = await edit(ctx, path="a.py", old_string="x", new_string="x")
    assert not same.ok and "same" in same.output
    empty = await edit(ctx, path="a.py", old_string="", new_string="y")
    assert not empty.ok and "empty" in empty.output


async def test_missing_file(ctx: ToolContext) -> None:
    result = await edit(ctx, path="nope.py", old_string="a", new_string="b")
    assert not result.ok and "nope.py does not exist" in result.output


async def test_crlf_file_edited_with_lf_old_string_stays_crlf(ctx: ToolContext) -> None:
    path = await seed(ctx, "w.txt", b"one\r\ntwo\r\nthree\r\n")
    result = await edit(ctx, path="w.txt", old_string="one\ntwo\n", new_string="1\n2\n2b\n")
    assert result.ok
    assert path.read_bytes() == b"1\r\n2\r\n2b\r\nthree\r\n"
    assert "\r" not in result.output


async def test_old_string_starting_with_newline_never_splits_a_crlf(ctx: ToolContext) -> None:
    path = await seed(ctx, "w.txt", b"a\r\nb\r\n")
    assert (await edit(ctx, path="w.txt", old_string="\nb", new_string="\nc")).ok
    assert path.read_bytes() == b"a\r\nc\r\n"


async def test_mixed_endings_keep_their_own_lines(ctx: ToolContext) -> None:
    path = await seed(ctx, "mix.txt", b"a\r\nb\nc\r\nd\r\n")
    assert (await edit(ctx, path="mix.txt", old_string="b", new_string="B")).ok
    assert path.read_bytes() == b"a\r\nB\nc\r\nd\r\n"


async def test_trailing_whitespace_in_the_file_is_tolerated(ctx: ToolContext) -> None:
    path = await seed(ctx, "t.py", "def f():   \n    return 1\t\nf()\n")
    result = await edit(
        ctx,
        path="t.py",
        old_string="def f():\n    return 1\n",
        new_string="def f():\n    return 2\n",
    )
    assert result.ok, result.output
    assert path.read_text() == "def f():\n    return 2\nf()\n"


async def test_trailing_whitespace_in_old_string_is_tolerated(ctx: ToolContext) -> None:
    path = await seed(ctx, "t.py", b"a = 1\r\nb = 2\r\n")
    result = await edit(ctx, path="t.py", old_string="a = 1  \nb = 2 ", new_string="a = 3\nb = 4")
    assert result.ok, result.output
    assert path.read_bytes() == b"a = 3\r\nb = 4\r\n"


async def test_leading_whitespace_must_match(ctx: ToolContext) -> None:
    await seed(ctx, "t.py", "    x = 1\n")
    result = await edit(ctx, path="t.py", old_string="x = 1\n", new_string="x = 2\n")
    assert result.ok  # a plain substring: the indentation before it stays
    result = await edit(ctx, path="t.py", old_string="  x = 2 \n", new_string="x = 3\n")
    assert not result.ok and "not found" in result.output


async def test_tolerant_match_is_also_checked_for_ambiguity(ctx: ToolContext) -> None:
    await seed(ctx, "t.py", "x = 1 \ny\nx = 1\t\n")
    result = await edit(ctx, path="t.py", old_string="x = 1  \n", new_string="z\n")
    assert not result.ok and "found 2 times" in result.output


async def test_edit_that_changes_nothing_is_refused(ctx: ToolContext) -> None:
    path = await seed(ctx, "t.py", "x = 1\n")
    result = await edit(ctx, path="t.py", old_string="x = 1  ", new_string="x = 1")
    assert not result.ok and "unchanged" in result.output
    assert path.read_text() == "x = 1\n"


async def test_second_edit_after_own_edit_works(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "a\nb\n")
    assert (await edit(ctx, path="a.py", old_string="a", new_string="A")).ok
    second = await edit(ctx, path="a.py", old_string="b", new_string="BB")
    assert second.ok, second.output
    assert path.read_text() == "A\nBB\n"


async def test_mode_is_kept_and_no_temp_files_are_left(ctx: ToolContext) -> None:
    path = await seed(ctx, "run.sh", "echo a\n")
    path.chmod(0o755)
    await read(ctx, "run.sh")
    assert (await edit(ctx, path="run.sh", old_string="a", new_string="b")).ok
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert sorted(p.name for p in root(ctx).iterdir()) == ["run.sh"]


async def test_binary_and_non_utf8_files_are_refused(ctx: ToolContext) -> None:
    latin = root(ctx) / "l1.txt"
    latin.write_bytes(b"caf\xe9\n")
    await read(ctx, "l1.txt")
    result = await edit(ctx, path="l1.txt", old_string="caf", new_string="tea")
    assert not result.ok and "not UTF-8" in result.output
    assert latin.read_bytes() == b"caf\xe9\n"

    blob = root(ctx) / "b.bin"
    blob.write_bytes(b"ab\x00cd")
    ctx.read_tracker.mark_read(blob.resolve())
    result = await edit(ctx, path="b.bin", old_string="ab", new_string="xy")
    assert not result.ok and "binary" in result.output


async def test_outside_workspace_is_refused(ctx: ToolContext) -> None:
    outside = root(ctx).parent / "o.txt"
    outside.write_text("x\n")
    ctx.read_tracker.mark_read(outside)
    for path in ("../o.txt", str(outside)):
        result = await edit(ctx, path=path, old_string="x", new_string="y")
        assert not result.ok and "outside the workspace" in result.output
    assert outside.read_text() == "x\n"


async def test_preview_is_the_diff_and_changes_nothing(ctx: ToolContext) -> None:
    path = await seed(ctx, "a.py", "x = 1\n")
    stamp = ctx.read_tracker.seen[path.resolve()]
    memo = ctx.memo.read("file:a.py")
    text = await preview(ctx, path="a.py", old_string="x = 1", new_string="x = 2")
    assert "-x = 1\n+x = 2\n" in text
    assert path.read_text() == "x = 1\n"
    assert ctx.read_tracker.seen[path.resolve()] == stamp
    assert ctx.memo.read("file:a.py") is memo and memo is not None and memo.content == "x = 1"


async def test_preview_of_a_refused_edit_says_why(ctx: ToolContext) -> None:
    (root(ctx) / "a.py").write_text("x = 1\n")
    text = await preview(ctx, path="a.py", old_string="x = 1", new_string="x = 2")
    assert isinstance(text, ToolResult) and not text.ok and "read-file" in text.output


async def test_auto_memo_records_the_edit(ctx: ToolContext) -> None:
    await seed(ctx, "pkg/m.py", "a\nb\nc\n")
    result = await edit(ctx, path="pkg/m.py", old_string="b\n", new_string="B\nB2\n")
    entry = ctx.memo.read("file:pkg/m.py")
    assert entry is not None
    assert entry.author == AUTO
    assert entry.summary == "edited, +2 -1"
    assert entry.content == result.diff


async def test_agent_summary_survives_auto_memo(ctx: ToolContext) -> None:
    await seed(ctx, "m.py", "a\n")
    ctx.memo.write("file:m.py", "why", "config loader", "coder")
    result = await edit(ctx, path="m.py", old_string="a", new_string="b")
    entry = ctx.memo.read("file:m.py")
    assert entry is not None
    assert (entry.summary, entry.author, entry.content) == ("config loader", "coder", result.diff)


def test_schema_is_small_and_named() -> None:
    schema = EditFile().schema()["function"]
    assert schema["name"] == "edit-file"
    assert set(schema["parameters"]["properties"]) == {
        "path",
        "old_string",
        "new_string",
        "replace_all",
    }
    assert "read-file" in schema["description"] and "replace_all" in schema["description"]
    assert EditFile.level == "confirm"


TEXT = st.text(alphabet="ab \t\n{}é", max_size=80)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=TEXT, data=st.data(), new=TEXT, crlf=st.booleans())
def test_edit_equals_str_replace(text: str, data: st.DataObject, new: str, crlf: bool) -> None:
    """For any text and any substring that occurs once, the edit is text.replace(old, new, 1),
    written in the file's own newline style."""
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start + 1, len(text) + 1))
    old = text[start:end]
    assume(old and text.count(old) == 1 and old != new)
    newline = "\r\n" if crlf and "\n" in text else "\n"
    expected = text.replace(old, new, 1)
    assume(expected != text)

    async def scenario(root: Path) -> bytes:
        ctx = make_ctx(root)
        (root / "f.txt").write_bytes(text.replace("\n", newline).encode())
        assert (await read(ctx, "f.txt")).ok
        result = await edit(ctx, path="f.txt", old_string=old, new_string=new)
        assert result.ok, result.output
        return (root / "f.txt").read_bytes()

    with tempfile.TemporaryDirectory() as folder:
        written = asyncio.run(scenario(Path(folder)))
    assert written == expected.replace("\n", newline).encode()

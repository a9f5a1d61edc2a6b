"""read-file against real files in a real workspace: paging, refusals, tracking and auto-memo."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from zen.stores.memo import AUTO
from zen.tools.base import ToolContext, ToolResult
from zen.tools.read_file import ReadFile


def root(ctx: ToolContext) -> Path:
    return ctx.workspace.root


async def read(ctx: ToolContext, **args: Any) -> ToolResult:
    tool = ReadFile()
    return await tool.execute(tool.Params.model_validate(args), ctx)


def numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


async def test_lines_are_numbered_like_cat_n(ctx: ToolContext) -> None:
    (root(ctx) / "a.py").write_text("import os\n\tindented\nlast")
    result = await read(ctx, path="a.py")
    assert result.ok
    assert result.output == "1\timport os\n2\t\tindented\n3\tlast"
    assert result.summary == "read 3 lines"


async def test_numbers_are_right_aligned(ctx: ToolContext) -> None:
    (root(ctx) / "a.txt").write_text(numbered(12))
    lines = (await read(ctx, path="a.txt")).output.splitlines()
    assert lines[0] == " 1\tline 1"
    assert lines[11] == "12\tline 12"


async def test_big_file_comes_in_pages_with_a_next_offset(ctx: ToolContext) -> None:
    (root(ctx) / "big.txt").write_text(numbered(5000))
    first = await read(ctx, path="big.txt")
    lines = first.output.splitlines()
    assert lines[0] == "   1\tline 1"
    assert lines[1999] == "2000\tline 2000"
    assert lines[2000] == "… 3000 more lines; call again with offset=2001"
    assert len(lines) == 2001
    assert first.summary == "read lines 1-2000 of 5000"

    last = await read(ctx, path="big.txt", offset=4001)
    lines = last.output.splitlines()
    assert lines[0] == "4001\tline 4001"
    assert lines[-1] == "5000\tline 5000"
    assert "more lines" not in last.output


async def test_offset_and_limit_pick_a_window(ctx: ToolContext) -> None:
    (root(ctx) / "a.txt").write_text(numbered(10))
    result = await read(ctx, path="a.txt", offset=3, limit=2)
    assert result.output == "3\tline 3\n4\tline 4\n… 6 more lines; call again with offset=5"
    assert result.summary == "read lines 3-4 of 10"


async def test_offset_zero_means_the_start(ctx: ToolContext) -> None:
    (root(ctx) / "a.txt").write_text(numbered(2))
    assert (await read(ctx, path="a.txt", offset=0)).output == "1\tline 1\n2\tline 2"


async def test_offset_past_the_end_is_an_error(ctx: ToolContext) -> None:
    (root(ctx) / "a.txt").write_text(numbered(3))
    result = await read(ctx, path="a.txt", offset=9)
    assert not result.ok
    assert "past the end" in result.output and "3 lines" in result.output


async def test_output_budget_pages_before_the_registry_would_cut(ctx: ToolContext) -> None:
    ctx = replace(ctx, max_tool_output=1200)
    (root(ctx) / "wide.txt").write_text("".join(f"{i:03} " + "x" * 95 + "\n" for i in range(50)))
    result = await read(ctx, path="wide.txt")
    assert len(result.output) <= ctx.max_tool_output
    *body, hint = result.output.splitlines()
    shown = len(body)
    assert 1 <= shown < 50
    assert hint == f"… {50 - shown} more lines; call again with offset={shown + 1}"


async def test_long_lines_are_cut(ctx: ToolContext) -> None:
    (root(ctx) / "min.js").write_text("a" * 5000 + "\nshort\n")
    lines = (await read(ctx, path="min.js")).output.splitlines()
    assert lines[0].startswith("1\t" + "a" * 2000 + "…")
    assert "3000 more chars" in lines[0]
    assert len(lines[0]) < 2100
    assert lines[1] == "2\tshort"


async def test_crlf_is_not_shown(ctx: ToolContext) -> None:
    (root(ctx) / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert (await read(ctx, path="w.txt")).output == "1\tone\n2\ttwo"


async def test_empty_file(ctx: ToolContext) -> None:
    (root(ctx) / "e.txt").write_text("")
    result = await read(ctx, path="e.txt")
    assert result.ok and "empty" in result.output
    assert result.summary == "read 0 lines"


async def test_invalid_utf8_is_shown_with_replacement_chars(ctx: ToolContext) -> None:
    (root(ctx) / "l1.txt").write_bytes(b"caf\xe9\n")
    assert (await read(ctx, path="l1.txt")).output == "1\tcaf\ufffd"


async def test_binary_file_is_refused(ctx: ToolContext) -> None:
    path = root(ctx) / "img.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    result = await read(ctx, path="img.png")
    assert not result.ok
    assert "binary" in result.output
    assert not ctx.read_tracker.has_read(path)


async def test_nul_after_the_first_8_kib_is_still_text(ctx: ToolContext) -> None:
    (root(ctx) / "late.txt").write_bytes(b"a" * 9000 + b"\n\x00\n")
    assert (await read(ctx, path="late.txt")).ok


async def test_missing_file_says_so(ctx: ToolContext) -> None:
    result = await read(ctx, path="nope/missing.py")
    assert not result.ok
    assert "nope/missing.py does not exist" in result.output


async def test_directory_is_refused(ctx: ToolContext) -> None:
    (root(ctx) / "pkg").mkdir()
    result = await read(ctx, path="pkg")
    assert not result.ok and "directory" in result.output


async def test_dotdot_outside_is_refused(ctx: ToolContext) -> None:
    (root(ctx).parent / "secret.txt").write_text("s3cret\n")
    result = await read(ctx, path="../secret.txt")
    assert not result.ok
    assert "outside the workspace" in result.output
    assert "s3cret" not in result.output


async def test_absolute_paths(ctx: ToolContext) -> None:
    (root(ctx).parent / "secret.txt").write_text("s3cret\n")
    outside = await read(ctx, path=str(root(ctx).parent / "secret.txt"))
    assert not outside.ok and "outside the workspace" in outside.output
    (root(ctx) / "in.txt").write_text("hi\n")
    inside = await read(ctx, path=str(root(ctx) / "in.txt"))
    assert inside.ok and inside.output == "1\thi"


async def test_symlink_pointing_out_is_refused(ctx: ToolContext) -> None:
    secret = root(ctx).parent / "secret.txt"
    secret.write_text("s3cret\n")
    (root(ctx) / "link.txt").symlink_to(secret)
    result = await read(ctx, path="link.txt")
    assert not result.ok
    assert "outside the workspace" in result.output
    assert "s3cret" not in result.output


async def test_nul_in_path_is_a_clear_error(ctx: ToolContext) -> None:
    result = await read(ctx, path="a\x00b")
    assert not result.ok and "invalid path" in result.output


async def test_marks_the_file_read(ctx: ToolContext) -> None:
    path = root(ctx) / "a.txt"
    path.write_text("x\n")
    assert not ctx.read_tracker.has_read(path.resolve())
    await read(ctx, path="a.txt")
    assert ctx.read_tracker.has_read(path.resolve())
    assert ctx.read_tracker.check_edit(path.resolve(), "a.txt") is None


async def test_auto_memo_records_the_read(ctx: ToolContext) -> None:
    (root(ctx) / "src").mkdir()
    (root(ctx) / "src" / "m.py").write_text("a = 1\nb = 2\n")
    await read(ctx, path=str(root(ctx) / "src" / "m.py"))
    entry = ctx.memo.read("file:src/m.py")
    assert entry is not None
    assert entry.author == AUTO
    assert entry.content == "a = 1\nb = 2"
    assert entry.summary == "read 2 lines"


async def test_auto_memo_content_is_capped(ctx: ToolContext) -> None:
    (root(ctx) / "big.txt").write_text(numbered(3000))
    await read(ctx, path="big.txt")
    entry = ctx.memo.read("file:big.txt")
    assert entry is not None
    assert len(entry.content) < 4100
    assert entry.content.startswith("line 1\nline 2\n")
    assert entry.summary == "read lines 1-2000 of 3000"


async def test_agent_summary_survives_auto_memo(ctx: ToolContext) -> None:
    (root(ctx) / "a.py").write_text("x = 1\n")
    ctx.memo.write("file:a.py", "notes", "holds the x constant", "coder")
    await read(ctx, path="a.py")
    entry = ctx.memo.read("file:a.py")
    assert entry is not None
    assert entry.summary == "holds the x constant"
    assert entry.author == "coder"
    assert entry.content == "x = 1"


def test_schema_is_small_and_named() -> None:
    schema = ReadFile().schema()["function"]
    assert schema["name"] == "read-file"
    assert set(schema["parameters"]["properties"]) == {"path", "offset", "limit"}
    assert schema["parameters"]["required"] == ["path"]
    assert len(schema["description"]) < 200

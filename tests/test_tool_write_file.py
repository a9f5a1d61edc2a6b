"""write-file against real files: refusals, newline style, mode, atomicity, preview, auto-memo."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest

from zen.stores.memo import AUTO
from zen.tools.base import ToolContext, ToolResult
from zen.tools.files.regular import FileError
from zen.tools.files.safe_write import atomic_write
from zen.tools.write_file import WriteFile


def root(ctx: ToolContext) -> Path:
    return ctx.workspace.root


async def write(ctx: ToolContext, **args: Any) -> ToolResult:
    tool = WriteFile()
    return await tool.execute(tool.Params.model_validate(args), ctx)


async def preview(ctx: ToolContext, **args: Any) -> str | ToolResult:
    tool = WriteFile()
    return await tool.preview(tool.Params.model_validate(args), ctx)


def mark_read(ctx: ToolContext, name: str) -> None:
    """What a read-file of `name` by this agent leaves behind: overwriting needs it."""
    ctx.read_tracker.mark_read((root(ctx) / name).resolve())


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".zen-tmp")]


async def test_creates_file_and_parent_folders(ctx: ToolContext) -> None:
    result = await write(ctx, path="a/b/c.py", content="x = 1\ny = 2\n")
    path = root(ctx) / "a" / "b" / "c.py"
    assert result.ok
    assert path.read_text() == "x = 1\ny = 2\n"
    assert result.summary == "created, 2 lines"
    assert result.output == "created a/b/c.py (2 lines)"
    assert result.files_changed == ["a/b/c.py"]
    assert result.diff == ""


async def test_new_file_gets_the_usual_mode(ctx: ToolContext) -> None:
    await write(ctx, path="n.txt", content="x")
    reference = root(ctx) / "ref.txt"
    reference.write_text("x")
    assert stat.S_IMODE((root(ctx) / "n.txt").stat().st_mode) == stat.S_IMODE(
        reference.stat().st_mode
    )


async def test_existing_file_needs_overwrite(ctx: ToolContext) -> None:
    path = root(ctx) / "keep.txt"
    path.write_text("precious\n")
    result = await write(ctx, path="keep.txt", content="gone\n")
    assert not result.ok
    assert "overwrite" in result.output
    assert path.read_text() == "precious\n"
    assert ctx.memo.read("file:keep.txt") is None


async def test_overwrite_replaces_and_diffs(ctx: ToolContext) -> None:
    path = root(ctx) / "f.txt"
    path.write_text("one\ntwo\n")
    mark_read(ctx, "f.txt")
    result = await write(ctx, path="f.txt", content="one\nTWO\nthree\n", overwrite=True)
    assert result.ok
    assert path.read_text() == "one\nTWO\nthree\n"
    assert result.summary == "overwrote, 3 lines"
    assert result.files_changed == ["f.txt"]
    assert "--- a/f.txt" in result.diff and "+++ b/f.txt" in result.diff
    assert "\n-two\n" in result.diff and "\n+TWO\n" in result.diff and "\n+three\n" in result.diff


async def test_crlf_file_stays_crlf(ctx: ToolContext) -> None:
    path = root(ctx) / "win.txt"
    path.write_bytes(b"a\r\nb\r\n")
    mark_read(ctx, "win.txt")
    result = await write(ctx, path="win.txt", content="x\ny\nz\n", overwrite=True)
    assert result.ok
    assert path.read_bytes() == b"x\r\ny\r\nz\r\n"
    assert "\r" not in result.diff


async def test_lf_file_stays_lf(ctx: ToolContext) -> None:
    path = root(ctx) / "unix.txt"
    path.write_bytes(b"a\nb\n")
    mark_read(ctx, "unix.txt")
    await write(ctx, path="unix.txt", content="x\r\ny\r\n", overwrite=True)
    assert path.read_bytes() == b"x\ny\n"


async def test_new_file_keeps_the_content_as_given(ctx: ToolContext) -> None:
    await write(ctx, path="given.txt", content="x\r\ny\r\n")
    assert (root(ctx) / "given.txt").read_bytes() == b"x\r\ny\r\n"


async def test_utf8_bom_is_kept(ctx: ToolContext) -> None:
    path = root(ctx) / "bom.txt"
    path.write_bytes(b"\xef\xbb\xbfold\n")
    mark_read(ctx, "bom.txt")
    await write(ctx, path="bom.txt", content="new\n", overwrite=True)
    assert path.read_bytes() == b"\xef\xbb\xbfnew\n"


async def test_mode_is_kept(ctx: ToolContext) -> None:
    path = root(ctx) / "run.sh"
    path.write_text("echo a\n")
    path.chmod(0o755)
    mark_read(ctx, "run.sh")
    await write(ctx, path="run.sh", content="echo b\n", overwrite=True)
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert path.read_text() == "echo b\n"


async def test_no_temp_files_left_behind(ctx: ToolContext) -> None:
    await write(ctx, path="a.txt", content="1\n")
    await write(ctx, path="a.txt", content="2\n", overwrite=True)
    assert sorted(p.name for p in root(ctx).iterdir()) == ["a.txt"]


async def test_writing_through_a_symlink_keeps_the_link(ctx: ToolContext) -> None:
    real = root(ctx) / "real.txt"
    real.write_text("old\n")
    (root(ctx) / "link.txt").symlink_to(real)
    mark_read(ctx, "link.txt")
    result = await write(ctx, path="link.txt", content="new\n", overwrite=True)
    assert result.ok
    assert (root(ctx) / "link.txt").is_symlink()
    assert real.read_text() == "new\n"
    assert result.files_changed == ["real.txt"]


def test_failed_replace_removes_the_temp_file(tmp_path: Path) -> None:
    folder = tmp_path / "busy"
    folder.mkdir()
    (folder / "inside").write_text("x")
    with pytest.raises(FileError, match="busy is a directory"):
        atomic_write(folder, b"data", "busy")
    assert leftovers(tmp_path) == []
    assert (folder / "inside").read_text() == "x"


async def test_parent_that_is_a_file_is_a_clear_error(ctx: ToolContext) -> None:
    (root(ctx) / "plain").write_text("x")
    result = await write(ctx, path="plain/child.txt", content="y")
    assert not result.ok
    assert "cannot write plain/child.txt" in result.output
    assert leftovers(root(ctx)) == []


async def test_directory_is_refused(ctx: ToolContext) -> None:
    (root(ctx) / "pkg").mkdir()
    result = await write(ctx, path="pkg", content="x", overwrite=True)
    assert not result.ok and "directory" in result.output


async def test_outside_workspace_is_refused(ctx: ToolContext) -> None:
    for path in ("../escape.txt", str(root(ctx).parent / "escape.txt")):
        result = await write(ctx, path=path, content="x")
        assert not result.ok
        assert "outside the workspace" in result.output
    assert not (root(ctx).parent / "escape.txt").exists()


async def test_symlink_pointing_out_is_refused(ctx: ToolContext) -> None:
    target = root(ctx).parent / "target.txt"
    target.write_text("safe\n")
    (root(ctx) / "out.txt").symlink_to(target)
    result = await write(ctx, path="out.txt", content="pwned\n", overwrite=True)
    assert not result.ok and "outside the workspace" in result.output
    assert target.read_text() == "safe\n"


async def test_written_file_counts_as_read(ctx: ToolContext) -> None:
    await write(ctx, path="w.txt", content="x\n")
    path = (root(ctx) / "w.txt").resolve()
    assert ctx.read_tracker.check_edit(path, "w.txt") is None


async def test_auto_memo_records_the_write(ctx: ToolContext) -> None:
    await write(ctx, path="m.py", content="a\nb\nc\n")
    entry = ctx.memo.read("file:m.py")
    assert entry is not None
    assert (entry.author, entry.content, entry.summary) == (AUTO, "a\nb\nc\n", "created, 3 lines")
    await write(ctx, path="m.py", content="z" * 10_000, overwrite=True)
    entry = ctx.memo.read("file:m.py")
    assert entry is not None
    assert entry.summary == "overwrote, 1 lines"
    assert len(entry.content) < 4100


async def test_agent_summary_survives_auto_memo(ctx: ToolContext) -> None:
    ctx.memo.write("file:m.py", "plan", "the entry point", "orchestrator")
    await write(ctx, path="m.py", content="print(1)\n")
    entry = ctx.memo.read("file:m.py")
    assert entry is not None
    assert entry.summary == "the entry point"
    assert entry.content == "print(1)\n"


async def test_preview_of_a_new_file_shows_all_of_it(ctx: ToolContext) -> None:
    content = "".join(f"row {i}\n" for i in range(1, 301))
    text = await preview(ctx, path="new/p.txt", content=content)
    assert text == "create new/p.txt (300 lines)\n" + content
    assert "more lines" not in text
    assert not (root(ctx) / "new").exists()
    assert ctx.memo.entries == {} and ctx.read_tracker.seen == {}


async def test_preview_of_an_overwrite_is_a_diff(ctx: ToolContext) -> None:
    path = root(ctx) / "f.txt"
    path.write_text("old\n")
    before = os.stat(path)
    mark_read(ctx, "f.txt")
    text = await preview(ctx, path="f.txt", content="new\n", overwrite=True)
    assert "-old\n+new" in text
    assert path.read_text() == "old\n"
    assert os.stat(path).st_mtime_ns == before.st_mtime_ns
    assert ctx.memo.entries == {}


async def test_preview_of_a_refused_overwrite_says_why(ctx: ToolContext) -> None:
    (root(ctx) / "f.txt").write_text("old\n")
    text = await preview(ctx, path="f.txt", content="new\n")
    assert isinstance(text, ToolResult) and not text.ok and "overwrite" in text.output


def test_schema_is_small_and_named() -> None:
    schema = WriteFile().schema()["function"]
    assert schema["name"] == "write-file"
    assert set(schema["parameters"]["properties"]) == {"path", "content", "overwrite"}
    assert "overwrite" in schema["description"]
    assert WriteFile.level == "confirm"

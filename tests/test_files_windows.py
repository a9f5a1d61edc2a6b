"""File tools where Windows differs: files held open by another program, read-only files,
temp names near the 260-character limit, CRLF. Tests that need Windows skip elsewhere."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from zen.tools.base import ToolContext, ToolResult
from zen.tools.files.safe_write import _temp_name
from zen.tools.read_file import ReadFile
from zen.tools.write_file import WriteFile

windows = pytest.mark.skipif(
    sys.platform != "win32", reason="sharing violations exist only on Windows"
)


async def run(tool: Any, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


async def overwrite(ctx: ToolContext, name: str, content: str) -> ToolResult:
    assert (await run(ReadFile(), ctx, path=name)).ok
    return await run(WriteFile(), ctx, path=name, content=content, overwrite=True)


def leftovers(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".zen-tmp")]


def hold(path: Path, seconds: float) -> threading.Thread:
    """Keep `path` open (Python opens without FILE_SHARE_DELETE: no rename over it) a while."""
    opened = threading.Event()

    def keep() -> None:
        with open(path, "rb"):
            opened.set()
            threading.Event().wait(seconds)

    thread = threading.Thread(target=keep, daemon=True)
    thread.start()
    opened.wait(5)
    return thread


@windows
async def test_a_file_held_for_a_moment_is_written_after_a_retry(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "held.txt"
    path.write_bytes(b"old\n")
    assert (await run(ReadFile(), ctx, path="held.txt")).ok
    thread = hold(path, 0.3)  # antivirus or the indexer, letting go quickly
    result = await run(WriteFile(), ctx, path="held.txt", content="new\n", overwrite=True)
    thread.join()
    assert result.ok, result.output
    assert path.read_bytes() == b"new\n"
    assert leftovers(ctx.workspace.root) == []


@windows
async def test_a_file_held_open_gets_a_clear_error_and_no_temp_file(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "held.txt"
    path.write_bytes(b"old\n")
    assert (await run(ReadFile(), ctx, path="held.txt")).ok
    thread = hold(path, 3)
    result = await run(WriteFile(), ctx, path="held.txt", content="new\n", overwrite=True)
    thread.join()
    assert not result.ok and "another program has it open" in result.output
    assert "WinError" not in result.output and "PermissionError" not in result.output
    assert path.read_bytes() == b"old\n"
    assert leftovers(ctx.workspace.root) == []


async def test_a_new_file_is_written_and_leaves_no_temp_file(ctx: ToolContext) -> None:
    """On Windows the temp file used to stay open while it was renamed: a sharing violation,
    and a `.zen-tmp` left behind."""
    result = await run(WriteFile(), ctx, path="n.txt", content="é\n")
    assert result.ok, result.output
    assert (ctx.workspace.root / "n.txt").read_bytes() == "é\n".encode()  # no CRLF added
    assert (await overwrite(ctx, "n.txt", "b\n")).ok
    assert (ctx.workspace.root / "n.txt").read_bytes() == b"b\n"
    assert leftovers(ctx.workspace.root) == []


async def test_a_read_only_file_is_refused_with_the_way_to_change_it(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "frozen.txt"
    path.write_text("keep\n")
    path.chmod(0o444)
    try:
        result = await overwrite(ctx, "frozen.txt", "lose\n")
        assert not result.ok and "is read-only" in result.output
        assert ("attrib -r" if os.name == "nt" else "chmod u+w") in result.output
        assert path.read_text() == "keep\n" and leftovers(ctx.workspace.root) == []
    finally:
        path.chmod(0o644)


def test_the_temp_name_does_not_grow_with_the_file_name(tmp_path: Path) -> None:
    long = tmp_path / ("n" * 120 + ".py")
    assert len(str(_temp_name(long))) < len(str(long))
    assert len(_temp_name(tmp_path / "a.py").name) == 15

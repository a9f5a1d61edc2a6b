"""Paths Windows spells its own way: `\\\\?\\` long paths, device names (CON, nul.txt), `src\\`
in @mentions. Tests that need Windows skip elsewhere."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from zen.tools.base import ToolContext, ToolResult
from zen.tools.read_file import ReadFile
from zen.tools.workspace import reserved_part, without_verbatim_prefix
from zen.tools.write_file import WriteFile
from zen.ui.mentions import path_candidates

windows = pytest.mark.skipif(sys.platform != "win32", reason="Windows path rules")


async def run(tool: Any, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


def test_the_verbatim_prefix_is_the_same_path() -> None:
    assert without_verbatim_prefix("\\\\?\\C:\\ws\\a.py") == "C:\\ws\\a.py"
    assert without_verbatim_prefix("\\\\?\\UNC\\host\\share\\a") == "\\\\host\\share\\a"
    assert without_verbatim_prefix("src/a.py") == "src/a.py"


def test_device_names_are_found_in_any_part_case_and_extension() -> None:
    for path, part in [("CON", "CON"), ("nul.txt", "nul.txt"), ("src\\Aux.py", "Aux.py")]:
        assert reserved_part(path) == part
    for path in ("console.py", "src/null.txt", "com10", "a/lpt.txt"):
        assert reserved_part(path) is None


@windows
async def test_a_verbatim_path_inside_the_workspace_is_accepted(ctx: ToolContext) -> None:
    long = "\\\\?\\" + str(ctx.workspace.root)
    (ctx.workspace.root / "a.txt").write_bytes(b"hello\n")
    read = await run(ReadFile(), ctx, path=f"{long}\\a.txt")
    assert read.ok and "hello" in read.output, read.output
    wrote = await run(WriteFile(), ctx, path=f"{long}\\new.txt", content="x\n")
    assert wrote.ok, wrote.output
    assert (ctx.workspace.root / "new.txt").read_bytes() == b"x\n"


@windows
@pytest.mark.parametrize("name", ["CON", "nul.txt", "src/aux.py", "LPT1"])
async def test_device_names_get_a_message_that_says_so(ctx: ToolContext, name: str) -> None:
    for result in (
        await run(ReadFile(), ctx, path=name),
        await run(WriteFile(), ctx, path=name, content="x\n"),
    ):
        assert not result.ok and "reserved device name on Windows" in result.output
        assert "outside the workspace" not in result.output


@pytest.mark.skipif(sys.platform == "win32", reason="Windows reserves these names")
async def test_elsewhere_such_names_are_ordinary_files(ctx: ToolContext) -> None:
    assert (await run(WriteFile(), ctx, path="con.txt", content="x\n")).ok


@windows
def test_mention_completion_takes_backslashes_and_any_case(ctx: ToolContext) -> None:
    (ctx.workspace.root / "src" / "deep").mkdir(parents=True)
    (ctx.workspace.root / "src" / "App.py").write_text("")
    assert list(path_candidates(ctx.workspace, "src\\")) == [
        ("src\\App.py", False),
        ("src\\deep", True),
    ]
    assert list(path_candidates(ctx.workspace, "SRC\\ap")) == [("SRC\\App.py", False)]


def test_mention_completion_with_slashes(ctx: ToolContext) -> None:
    (ctx.workspace.root / "src").mkdir()
    (ctx.workspace.root / "src" / "app.py").write_text("")
    assert list(path_candidates(ctx.workspace, "src/")) == [("src/app.py", False)]

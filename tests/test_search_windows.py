"""glob and grep where Windows differs: backslash and absolute patterns, CRLF line ends."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from zen.tools.base import ToolContext, ToolResult
from zen.tools.glob import Glob
from zen.tools.grep import Grep, find_rg

RG = find_rg()
windows = pytest.mark.skipif(
    sys.platform != "win32", reason="a backslash is a glob escape, not a separator, off Windows"
)


def make(root: Path, files: dict[str, bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


async def run(tool: Any, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


def listed(result: ToolResult) -> set[str]:
    assert result.ok, result.output
    return set(result.output.splitlines()) - {"no files match"}


TREE = {"src/a.py": b"", "src/deep/b.py": b"", "c.py": b"", "src/d.txt": b""}


@windows
async def test_glob_takes_backslash_patterns(ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    assert listed(await run(Glob(), ctx, pattern="src\\*.py")) == {"src/a.py"}
    assert listed(await run(Glob(), ctx, pattern="src\\**\\*.py")) == {
        "src/a.py",
        "src/deep/b.py",
    }


@windows
async def test_glob_takes_an_absolute_windows_pattern_in_any_case(ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    root = str(ctx.workspace.root)
    for pattern in (f"{root}\\src\\*.py", f"{root.upper()}\\src\\*.py", f"{root}/src/*.py"):
        found = listed(await run(Glob(), ctx, pattern=pattern))
        assert found == {"src/a.py"}, pattern


@pytest.mark.parametrize("rg", ["rg", "python"])
async def test_grep_dollar_matches_crlf_lines(ctx: ToolContext, rg: str) -> None:
    if rg == "rg" and RG is None:
        pytest.skip("ripgrep is not installed (pip install 'zen-code[rg]')")
    make(ctx.workspace.root, {"w.txt": b"alpha end\r\nbeta\r\nend here\r\n"})
    result = await run(Grep(rg=RG if rg == "rg" else None), ctx, pattern="end$")
    assert result.ok and result.output == "w.txt:1:alpha end", result.output


@windows
@pytest.mark.parametrize("rg", ["rg", "python"])
async def test_grep_glob_filter_takes_backslashes(ctx: ToolContext, rg: str) -> None:
    if rg == "rg" and RG is None:
        pytest.skip("ripgrep is not installed (pip install 'zen-code[rg]')")
    make(ctx.workspace.root, {"src/deep/b.py": b"needle\n", "b.py": b"needle\n"})
    result = await run(Grep(rg=RG if rg == "rg" else None), ctx, pattern="needle", glob="src\\**")
    assert result.ok and result.output == "src/deep/b.py:1:needle", result.output

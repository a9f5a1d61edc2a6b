"""grep with the real ripgrep binary and with the pure-Python fallback: same files, same output."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from zen.tools.base import ToolContext, ToolResult
from zen.tools.grep import Grep, GrepParams, find_rg

RG = find_rg()


@pytest.fixture(params=["rg", "python"])
def tool(request: pytest.FixtureRequest) -> Grep:
    if request.param == "rg":
        if RG is None:
            pytest.skip("ripgrep is not installed (pip install 'zen-code[rg]')")
        return Grep(rg=RG)
    return Grep(rg=None)


def make(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


async def grep(tool: Grep, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


TREE: dict[str, str | bytes] = {
    ".gitignore": "build/\n*.log\n/secret.txt\n",
    "a.py": "import os\nTODO: one\nx = 1\n",
    "a/b.py": "def f():\n    # todo two\n    return 1\n",
    "a.txt": "TODO three\n",
    "build/gen.py": "TODO ignored dir\n",
    "app.log": "TODO ignored file\n",
    "secret.txt": "TODO anchored ignore\n",
    "sub/secret.txt": "TODO not anchored here\n",
    "sub/.gitignore": "*.md\n!keep.md\n",
    "sub/x.md": "TODO nested ignore\n",
    "sub/keep.md": "TODO re-included\n",
    ".github/ci.yml": "# TODO hidden dir\n",
    ".git/config": "TODO git internals\n",
    "bin.dat": b"TODO\x00binary\n",
    "ctx.txt": "l1\nl2\nTODO c1\nl4\nl5\nl6\nl7\nl8\nTODO c2\nl10\nTODO c3\n",
    "crlf.txt": "TODO windows\r\nnext\r\n",
}


def test_find_rg_prefers_the_interpreters_scripts_folder() -> None:
    import sysconfig

    beside = Path(sysconfig.get_path("scripts")) / "rg"
    if beside.is_file():
        assert str(beside) == RG


async def test_matches_are_path_line_text_sorted_by_path(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="TODO")
    assert result.ok
    assert result.output.splitlines() == [
        ".github/ci.yml:1:# TODO hidden dir",
        "a.py:2:TODO: one",
        "a.txt:1:TODO three",
        "crlf.txt:1:TODO windows",
        "ctx.txt:3:TODO c1",
        "ctx.txt:9:TODO c2",
        "ctx.txt:11:TODO c3",
        "sub/keep.md:1:TODO re-included",
        "sub/secret.txt:1:TODO not anchored here",
    ]
    assert result.summary == "9 lines in 7 files"


async def test_directory_entries_sort_like_ripgrep(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"a.py": "hit\n", "a/b.py": "hit\n", "a-b.py": "hit\n"})
    result = await grep(tool, ctx, pattern="hit")
    assert result.output.splitlines() == ["a/b.py:1:hit", "a-b.py:1:hit", "a.py:1:hit"]


async def test_ignore_case(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="todo (two|one)", ignore_case=True)
    assert result.output.splitlines() == ["a/b.py:2:    # todo two"]
    strict = await grep(tool, ctx, pattern="todo (two|one)")
    assert strict.output.splitlines() == ["a/b.py:2:    # todo two"]
    assert (await grep(tool, ctx, pattern="TODO: ONE", ignore_case=True)).output == (
        "a.py:2:TODO: one"
    )


async def test_glob_filters_file_names_and_paths(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    by_name = await grep(tool, ctx, pattern="TODO|todo", glob="*.py")
    assert by_name.output.splitlines() == ["a/b.py:2:    # todo two", "a.py:2:TODO: one"]
    by_path = await grep(tool, ctx, pattern="TODO", glob="sub/*.txt")
    assert by_path.output.splitlines() == ["sub/secret.txt:1:TODO not anchored here"]
    negated = await grep(tool, ctx, pattern="TODO", glob="!*.txt", path="sub")
    assert negated.output.splitlines() == ["sub/keep.md:1:TODO re-included"]


async def test_a_glob_does_not_bring_back_ignored_files(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="TODO", glob="*.log")
    assert result.output == "no matches"
    md = await grep(tool, ctx, pattern="TODO", glob="*.md")
    assert md.output.splitlines() == ["sub/keep.md:1:TODO re-included"]


async def test_context_lines_and_separators(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="TODO c", path="ctx.txt", context=1)
    assert result.output.splitlines() == [
        "ctx.txt-2-l2",
        "ctx.txt:3:TODO c1",
        "ctx.txt-4-l4",
        "--",
        "ctx.txt-8-l8",
        "ctx.txt:9:TODO c2",
        "ctx.txt-10-l10",
        "ctx.txt:11:TODO c3",
    ]
    assert result.summary == "3 lines in 1 file"


async def test_path_narrows_and_paths_stay_workspace_relative(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    assert (await grep(tool, ctx, pattern="TODO", path="sub")).output.splitlines() == [
        "sub/keep.md:1:TODO re-included",
        "sub/secret.txt:1:TODO not anchored here",
    ]
    assert (await grep(tool, ctx, pattern="todo", path="a/b.py")).output == (
        "a/b.py:2:    # todo two"
    )


async def test_a_file_named_explicitly_is_searched_even_if_ignored(
    tool: Grep, ctx: ToolContext
) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="TODO", path="app.log")
    assert result.output == "app.log:1:TODO ignored file"
    inside = await grep(tool, ctx, pattern="TODO", path="build")
    assert inside.output == "build/gen.py:1:TODO ignored dir"


async def test_matching_lines_are_capped_with_a_note(ctx: ToolContext) -> None:
    hits = "".join(f"hit {n}\n" for n in range(4))
    make(ctx.workspace.root, {f"f{i}.txt": hits for i in range(3)})
    outputs = []
    for rg in ([RG] if RG else []) + [None]:
        result = await grep(Grep(rg=rg, limit=5), ctx, pattern="hit")
        lines = result.output.splitlines()
        assert lines[:5] == [
            "f0.txt:1:hit 0",
            "f0.txt:2:hit 1",
            "f0.txt:3:hit 2",
            "f0.txt:4:hit 3",
            "f1.txt:1:hit 0",
        ]
        assert "stopped at 5 matching lines" in lines[5]
        assert result.summary == "5+ lines in 2 files"
        outputs.append(result.output)
    assert len(set(outputs)) == 1


async def test_long_lines_are_cut(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"min.js": "x" * 5000 + "needle\n"})
    result = await grep(tool, ctx, pattern="needle")
    assert result.output.startswith("min.js:1:xxx") and result.output.endswith("…")
    assert len(result.output) < 400


async def test_no_matches_is_ok(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="nothing-like-this")
    assert result.ok and result.output == "no matches" and result.summary == "no matches"


async def test_bad_regex_is_a_clear_error(tool: Grep, ctx: ToolContext) -> None:
    make(ctx.workspace.root, TREE)
    result = await grep(tool, ctx, pattern="foo(")
    assert not result.ok
    assert "regex" in result.output.lower()
    assert "Traceback" not in result.output


async def test_refusals(tool: Grep, ctx: ToolContext, tmp_path: Path) -> None:
    make(tmp_path, {"outside.txt": "TODO outside\n"})
    outside = await grep(tool, ctx, pattern="TODO", path=str(tmp_path))
    assert not outside.ok and "outside the workspace" in outside.output
    escape = await grep(tool, ctx, pattern="TODO", path="../outside.txt")
    assert not escape.ok and "outside the workspace" in escape.output
    missing = await grep(tool, ctx, pattern="TODO", path="nope")
    assert not missing.ok and "does not exist" in missing.output


@pytest.mark.skipif(RG is None, reason="ripgrep is not installed")
@pytest.mark.parametrize(
    "args",
    [
        {"pattern": "TODO"},
        {"pattern": "todo", "ignore_case": True, "context": 2},
        {"pattern": "l[0-9]+", "context": 1},
        {"pattern": "TODO", "glob": "**/*.{md,txt}"},
        {"pattern": "TODO", "glob": "!*.md"},
        {"pattern": "^next$"},
        {"pattern": "return", "path": "a"},
    ],
)
async def test_ripgrep_and_the_fallback_agree(ctx: ToolContext, args: dict[str, Any]) -> None:
    make(ctx.workspace.root, TREE)
    with_rg = await grep(Grep(rg=RG), ctx, **args)
    fallback = await grep(Grep(rg=None), ctx, **args)
    assert with_rg.output == fallback.output
    assert with_rg.summary == fallback.summary


async def test_a_broken_ripgrep_falls_back_to_python(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"a.txt": "hit\n"})
    tool = Grep(rg=str(ctx.workspace.root / "no-such-rg"))
    assert (await grep(tool, ctx, pattern="hit")).output == "a.txt:1:hit"
    assert tool.rg is None


@pytest.mark.skipif(sys.platform == "win32", reason="the stand-in ripgrep is a /bin/sh script")
async def test_ripgrep_runs_under_the_one_rule_for_children(
    ctx: ToolContext, tmp_path: Path
) -> None:
    """Marked, so its whole tree can be found and killed; a deadline; output read as it comes
    (`run_child`): a stand-in ripgrep says which mark it was given and leaves a daemon behind."""
    seen = tmp_path / "marks"
    rg = tmp_path / "rg"
    rg.write_text(f'#!/bin/sh\necho "$ZEN_RUN" >> {seen}\n(sleep 300 &)\n')
    rg.chmod(0o755)
    (ctx.workspace.root / "a.py").write_text("x = 1\n")
    result = await Grep(rg=str(rg)).execute(GrepParams(pattern="x"), ctx)
    assert result.ok, result.output
    marks = seen.read_text().split()
    assert len(marks) == 2 and all(m.startswith(f"{os.getpid()}-") for m in marks)  # list, search
    assert not [p for p in _processes_marked(marks[1])], "its daemon outlived it"


def _processes_marked(mark: str) -> list[int]:
    """Pids whose environment carries `ZEN_RUN=mark` (Linux's /proc; none elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            if f"ZEN_RUN={mark}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found

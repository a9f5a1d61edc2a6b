"""glob against real trees: .gitignore (nested, negated, in parents), `**`, ordering and the cap."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from zen.tools.base import ToolContext, ToolResult
from zen.tools.glob import Glob
from zen.tools.ignore import PathGlob


def make(root: Path, files: dict[str, str], mtime: float | None = None) -> None:
    for i, (rel, text) in enumerate(files.items()):
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if mtime is not None:  # later entries are newer
            os.utime(path, (mtime + i, mtime + i))


async def glob(ctx: ToolContext, tool: Glob | None = None, **args: Any) -> ToolResult:
    tool = tool or Glob()
    return await tool.execute(tool.Params.model_validate(args), ctx)


def listed(result: ToolResult) -> set[str]:
    assert result.ok, result.output
    return set(result.output.splitlines())


async def test_double_star_recurses_and_single_star_stays_in_a_directory(
    ctx: ToolContext,
) -> None:
    make(ctx.workspace.root, {"a.py": "", "src/b.py": "", "src/deep/c.py": "", "src/d.txt": ""})
    assert listed(await glob(ctx, pattern="**/*.py")) == {"a.py", "src/b.py", "src/deep/c.py"}
    assert listed(await glob(ctx, pattern="src/*.py")) == {"src/b.py"}
    assert listed(await glob(ctx, pattern="src/**")) == {"src/b.py", "src/deep/c.py", "src/d.txt"}
    assert listed(await glob(ctx, pattern="/*.py")) == {"a.py"}


async def test_a_bare_name_pattern_matches_at_any_depth(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"a.py": "", "src/deep/c.py": "", "src/c.pyc": ""})
    assert listed(await glob(ctx, pattern="*.py")) == {"a.py", "src/deep/c.py"}
    assert listed(await glob(ctx, pattern="*.{py,pyc}")) == {"a.py", "src/deep/c.py", "src/c.pyc"}


async def test_path_narrows_the_search_and_results_stay_workspace_relative(
    ctx: ToolContext,
) -> None:
    make(ctx.workspace.root, {"a.py": "", "src/b.py": "", "src/deep/c.py": ""})
    assert listed(await glob(ctx, pattern="*.py", path="src")) == {"src/b.py", "src/deep/c.py"}
    assert listed(await glob(ctx, pattern="deep/*.py", path="src")) == {"src/deep/c.py"}


async def test_gitignore_is_respected_without_git(ctx: ToolContext) -> None:
    root = ctx.workspace.root
    make(
        root,
        {
            ".gitignore": "build/\n*.log\n!keep.log\n/top.txt\n",
            "build/out.py": "",
            "app.log": "",
            "keep.log": "",
            "top.txt": "",
            "src/top.txt": "",
            "src/x.py": "",
        },
    )
    found = listed(await glob(ctx, pattern="**"))
    assert found == {".gitignore", "keep.log", "src/top.txt", "src/x.py"}


async def test_nested_gitignore_overrides_its_parent(ctx: ToolContext) -> None:
    root = ctx.workspace.root
    make(
        root,
        {
            ".gitignore": "*.gen\n",
            "a.gen": "",
            "lib/b.gen": "",
            "lib/.gitignore": "!b.gen\nlocal/\n",
            "lib/local/c.py": "",
            "lib/d.py": "",
            "local/e.py": "",
        },
    )
    found = listed(await glob(ctx, pattern="**/*.{gen,py}"))
    assert found == {"lib/b.gen", "lib/d.py", "local/e.py"}


async def test_parent_gitignore_applies_when_searching_a_subdirectory(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {".gitignore": "src/gen/\n", "src/gen/a.py": "", "src/b.py": ""})
    assert listed(await glob(ctx, pattern="*.py", path="src")) == {"src/b.py"}


async def test_an_ignored_directory_named_as_path_is_still_searched(ctx: ToolContext) -> None:
    make(
        ctx.workspace.root,
        {
            ".gitignore": "node_modules/\n*.map\n",
            "node_modules/pkg/index.js": "",
            "node_modules/pkg/i.map": "",
        },
    )
    assert (await glob(ctx, pattern="*.js")).output == "no files match"
    found = listed(await glob(ctx, pattern="**", path="node_modules"))
    assert found == {"node_modules/pkg/index.js"}


async def test_git_directory_is_skipped_and_hidden_files_are_found(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {".git/config": "", ".git/HEAD": "", ".github/ci.yml": "", "a": ""})
    assert listed(await glob(ctx, pattern="**")) == {".github/ci.yml", "a"}


async def test_symlinks_are_not_followed(ctx: ToolContext, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    make(outside, {"secret.py": ""})
    make(ctx.workspace.root, {"a.py": ""})
    (ctx.workspace.root / "link").symlink_to(outside, target_is_directory=True)
    (ctx.workspace.root / "l.py").symlink_to(outside / "secret.py")
    assert listed(await glob(ctx, pattern="**/*.py")) == {"a.py"}


async def test_newest_first_then_by_path(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"old.py": "", "mid.py": "", "new.py": ""}, mtime=1_000_000)
    make(ctx.workspace.root, {"b.py": "", "a.py": ""})
    for name in ("a.py", "b.py"):
        os.utime(ctx.workspace.root / name, (500, 500))
    result = await glob(ctx, pattern="*.py")
    assert result.output.splitlines() == ["new.py", "mid.py", "old.py", "a.py", "b.py"]
    assert result.summary == "5 files"


async def test_results_are_capped_with_a_count_of_the_rest(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {f"f{i:03}.txt": "" for i in range(25)}, mtime=1_000_000)
    result = await glob(ctx, Glob(limit=10), pattern="*.txt")
    lines = result.output.splitlines()
    assert lines[:10] == [f"f{i:03}.txt" for i in range(24, 14, -1)]
    assert lines[10] == "… 15 more (narrow the pattern or path)"
    assert result.summary == "25 files"


async def test_no_match_is_an_ok_result(ctx: ToolContext) -> None:
    result = await glob(ctx, pattern="*.rs")
    assert result.ok and result.output == "no files match"


async def test_an_absolute_pattern_inside_the_search_path_is_accepted(ctx: ToolContext) -> None:
    make(ctx.workspace.root, {"src/a.py": "", "b.py": ""})
    pattern = f"{ctx.workspace.root}/src/*.py"
    assert listed(await glob(ctx, pattern=pattern)) == {"src/a.py"}


async def test_refusals(ctx: ToolContext, tmp_path: Path) -> None:
    make(ctx.workspace.root, {"f.txt": ""})
    outside = await glob(ctx, pattern="*", path=str(tmp_path))
    assert not outside.ok and "outside the workspace" in outside.output
    not_dir = await glob(ctx, pattern="*", path="f.txt")
    assert not not_dir.ok and "not a directory" in not_dir.output
    bad = await glob(ctx, pattern="*.{py")
    assert not bad.ok and "bad glob" in bad.output


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("*.py", "a/b/c.py", True),
        ("*.py", "c.pyc", False),
        ("a/*.py", "a/b/c.py", False),
        ("a/**/*.py", "a/c.py", True),
        ("a/**/*.py", "a/b/c/d.py", True),
        ("**/b/*", "a/b/c", True),
        ("a/**", "a/b/c", True),
        ("a/**", "a", False),
        ("?.md", "x/a.md", True),
        ("[ab].md", "c.md", False),
        ("[!ab].md", "c.md", True),
        ("*.{js,ts}", "x/y.ts", True),
        ("!*.py", "a.py", False),
        ("!*.py", "a.txt", True),
        ("\\*.md", "*.md", True),
    ],
)
def test_glob_dialect(pattern: str, path: str, expected: bool) -> None:
    assert PathGlob(pattern).matches(path) is expected


def test_the_log_line_shows_the_pattern() -> None:
    assert Glob().key_arg({"pattern": "*.py"}) == "*.py"
    assert Glob().key_arg({"pattern": "*.py", "path": "src"}) == "*.py in src"

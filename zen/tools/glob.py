"""`glob`: find files by name pattern, newest first.

Results are sorted by modification time, newest first (ties by path), as Claude Code does: the
files a task is about are usually the ones just edited, and when the cap cuts the list it keeps
those. The pattern dialect is ripgrep's `--glob`, shared with grep's `glob` filter
(zen.tools.ignore.PathGlob), so one pattern means the same thing in both tools.
"""

from __future__ import annotations

import os
from pathlib import Path

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.files.text import off_loop
from zen.tools.ignore import GitIgnore, PathGlob
from zen.tools.workspace import PathError

LIMIT = 200


class GlobParams(Params):
    pattern: str
    path: str | None = None


class Glob(Tool):
    name = "glob"
    Params = GlobParams
    read_only = True
    claude_name = "Glob"
    acp_kind = "search"

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit

    async def execute(self, params: GlobParams, ctx: ToolContext) -> ToolResult:
        try:
            base = ctx.workspace.resolve(params.path or ".")
        except PathError as exc:
            return ToolResult.error(str(exc))
        if not base.is_dir():
            return ToolResult.error(f"{params.path} is not a directory")
        pattern = _relative_pattern(params.pattern.strip(), base)
        try:
            glob = PathGlob(pattern)
        except ValueError as exc:
            return ToolResult.error(str(exc))
        found = await off_loop(_find, base, glob)  # abandoned on Ctrl-C
        if not found:
            return ToolResult(True, "no files match", summary="no files match")
        shown = [ctx.workspace.show(p) for p in found[: self.limit]]
        more = len(found) - len(shown)
        if more:
            shown.append(f"… {more} more (narrow the pattern or path)")
        noun = "file" if len(found) == 1 else "files"
        return ToolResult(True, "\n".join(shown), summary=f"{len(found)} {noun}")


def _relative_pattern(pattern: str, base: Path) -> str:
    """Models sometimes put the directory in the pattern as an absolute path: accept it (on
    Windows with either slash, in any case, as its file system does)."""
    prefix = os.path.join(base, "")
    if os.name == "nt":
        pattern, prefix = pattern.replace("\\", "/"), prefix.replace("\\", "/")
        if pattern[: len(prefix)].lower() == prefix.lower():
            return "/" + pattern[len(prefix) :]
    elif pattern.startswith(prefix):
        return "/" + pattern[len(prefix) :]
    return pattern


def _find(base: Path, glob: PathGlob) -> list[Path]:
    stamped: list[tuple[float, str, Path]] = []
    for path, rel in GitIgnore().walk(base, glob.may_enter):
        if glob.matches(rel):
            try:
                mtime = path.stat().st_mtime
            except OSError:
                continue
            stamped.append((-mtime, rel, path))
    stamped.sort()
    return [path for _, _, path in stamped]

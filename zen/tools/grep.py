"""`grep`: regex search over the workspace, with ripgrep when it is installed.

ripgrep is found beside the interpreter first (the `zen[rg]` extra puts it in the venv's
scripts folder, which pipx and uv tool keep off PATH), then on PATH. Without it a pure-Python
search walks the same files in the same order (zen.tools.ignore) and feeds the same formatter,
so the model sees one output format either way: `path:line:text` for matches, `path-line-text`
for context, `--` between separate groups.
"""

from __future__ import annotations

import asyncio
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import Field

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.child import run_child
from zen.tools.files.regular import kind_of
from zen.tools.files.text import off_loop
from zen.tools.grep_lines import Line, Stop, search_file
from zen.tools.grep_rg import (
    ERR_LIMIT,
    RG_TIMEOUT,
    RgLines,
    find_rg,
    glob_escape,
    special_files,
)
from zen.tools.ignore import RG_IGNORE_FLAGS, GitIgnore, PathGlob
from zen.tools.workspace import PathError

__all__ = ["Grep", "GrepParams", "Line", "find_rg"]

LIMIT = 200
"""Matching lines shown before the output is cut."""
MAX_CONTEXT = 10
MAX_LINE = 300
"""Characters kept of one line (minified files have lines of megabytes)."""


class GrepParams(Params):
    pattern: str
    path: str | None = None
    glob: str | None = None
    ignore_case: bool = False
    context: int = Field(0, description="lines around matches")


@dataclass
class _Collector:
    """Turns the lines either backend finds into the output, stopping at the cap."""

    show: Callable[[Path], str]
    limit: int
    separators: bool
    out: list[str] = field(default_factory=list)
    matches: int = 0
    files: set[Path] = field(default_factory=set)
    capped: bool = False
    abandoned: bool = False
    _last: tuple[Path, int] | None = None

    def add(self, line: Line) -> None:
        if line.is_match:
            if self.matches == self.limit:
                self.capped = True
                raise Stop
            self.matches += 1
            self.files.add(line.path)
        last = self._last
        if self.separators and last and (last[0] != line.path or last[1] + 1 != line.number):
            self.out.append("--")
        self._last = (line.path, line.number)
        text = line.text.rstrip("\r\n")
        if len(text) > MAX_LINE:
            text = text[:MAX_LINE] + "…"
        mark = ":" if line.is_match else "-"
        self.out.append(f"{self.show(line.path)}{mark}{line.number}{mark}{text}")

    def result(self) -> ToolResult:
        if not self.matches:
            return ToolResult(True, "no matches", summary="no matches")
        if self.capped:
            self.out.append(
                f"[stopped at {self.limit} matching lines; narrow the pattern, path or glob]"
            )
        lines = "line" if self.matches == 1 else "lines"
        files = "file" if len(self.files) == 1 else "files"
        more = "+" if self.capped else ""
        summary = f"{self.matches}{more} {lines} in {len(self.files)} {files}"
        return ToolResult(True, "\n".join(self.out), summary=summary)


class Grep(Tool):
    name = "grep"
    Params = GrepParams
    read_only = True
    claude_name = "Grep"
    acp_kind = "search"

    def __init__(self, rg: str | None | Literal["auto"] = "auto", limit: int = LIMIT) -> None:
        """`rg`: a ripgrep path, None for the pure-Python search, "auto" to look for one."""
        self._rg = rg
        self.limit = limit

    @property
    def rg(self) -> str | None:
        if self._rg == "auto":
            self._rg = find_rg()
        return self._rg

    async def execute(self, params: GrepParams, ctx: ToolContext) -> ToolResult:
        try:
            target = ctx.workspace.resolve(params.path or ".")
        except PathError as exc:
            return ToolResult.error(str(exc))
        problem = _unsearchable(target, params.path or ".")
        if problem:
            return ToolResult.error(problem)
        try:
            glob = PathGlob(params.glob) if params.glob else None
        except ValueError as exc:
            return ToolResult.error(str(exc))
        context = max(0, min(params.context, MAX_CONTEXT))
        collector = _Collector(ctx.workspace.show, self.limit, separators=context > 0)
        search = _Search(target, params.pattern, glob, params.ignore_case, context)
        error = await self._run(search, collector)
        if error:
            return ToolResult.error(error)
        return collector.result()

    async def _run(self, search: _Search, collector: _Collector) -> str | None:
        rg = self.rg
        if rg is not None:
            try:
                return await search.with_rg(rg, collector)
            except OSError:
                self._rg = None  # a binary that will not start: use Python from now on
        try:
            return await off_loop(search.with_python, collector)
        except asyncio.CancelledError:
            collector.abandoned = True  # the abandoned thread stops at the next file
            raise


@dataclass
class _Search:
    target: Path
    pattern: str
    glob: PathGlob | None
    ignore_case: bool
    context: int

    async def with_rg(self, rg: str, collector: _Collector) -> str | None:
        """Feed ripgrep's JSON lines to the collector; an error message if ripgrep failed."""
        cwd = self.target if self.target.is_dir() else self.target.parent
        target = "./" if self.target.is_dir() else "./" + self.target.name
        args = await self._rg_args(rg, cwd, target)
        if args is None:
            return await off_loop(self.with_python, collector)
        whitelists = bool(self.glob and not self.glob.negated and self.target.is_dir())
        lines = RgLines(collector.add, cwd, whitelists)
        done = await run_child(
            args, cwd=cwd, env=os.environ, timeout=RG_TIMEOUT, limit=ERR_LIMIT, watch=lines.feed
        )
        if done.timed_out:
            if not collector.matches:
                return f"grep took over {RG_TIMEOUT:g} s; narrow the path or the glob"
            collector.capped = True
        stderr = done.err.data().decode("utf-8", "replace").strip() if done.err else ""
        if done.code == 2 and not collector.matches and not collector.capped:
            return stderr or "ripgrep failed"
        return None

    async def _rg_args(self, rg: str, cwd: Path, target: str) -> list[str] | None:
        """ripgrep's command line; None when the special files could not be listed (then the
        Python search runs instead)."""
        walk = [rg, "--no-config", *RG_IGNORE_FLAGS]
        if self.glob:
            walk += ["--glob", self.glob.pattern]
        if self.target.is_dir():
            # ripgrep opens FIFOs and devices it meets and blocks on them: list the files it
            # would search (without opening any), and exclude the special ones by name.
            specials = await special_files([*walk, "--files", "--", target], cwd)
            if specials is None:
                return None
            for rel in specials:
                walk += ["--glob", "!/" + glob_escape(rel)]
        args = [*walk, "--json", "--sort", "path", "--crlf"]  # `$` matches CRLF lines too
        if self.ignore_case:
            args.append("--ignore-case")
        if self.context:
            args += ["--context", str(self.context)]
        args += ["--regexp", self.pattern, "--", target]
        return args

    def with_python(self, collector: _Collector) -> str | None:
        flags = re.IGNORECASE if self.ignore_case else 0
        try:
            regex = re.compile(self.pattern, flags)
        except re.error as exc:
            return f"bad regex {self.pattern!r}: {exc}"
        try:
            for path, rel in GitIgnore().walk(self.target):
                if collector.abandoned:
                    break
                if self.glob and self.target.is_dir() and not self.glob.matches(rel):
                    continue
                for line in search_file(path, regex, self.context):
                    collector.add(line)
        except Stop:
            pass
        return None


def _unsearchable(target: Path, shown: str) -> str | None:
    """Why `target` cannot be searched: missing, or a FIFO, socket or device (reading one
    would block forever or never end), checked without opening it."""
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return f"{shown} does not exist"
    if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
        return None
    return f"{shown} is {kind_of(mode)}, not a regular file; grep only searches regular files"

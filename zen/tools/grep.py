"""`grep`: regex search over the workspace, with ripgrep when it is installed.

ripgrep is found beside the interpreter first (the `zen[rg]` extra puts it in the venv's
scripts folder, which pipx and uv tool keep off PATH), then on PATH. Without it a pure-Python
search walks the same files in the same order (zen.tools.ignore) and feeds the same formatter,
so the model sees one output format either way: `path:line:text` for matches, `path-line-text`
for context, `--` between separate groups.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import re
import shutil
import stat
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Literal

from pydantic import Field

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.child import run_child
from zen.tools.files.regular import kind_of
from zen.tools.files.text import BINARY_PROBE, off_loop
from zen.tools.ignore import RG_IGNORE_FLAGS, GitIgnore, PathGlob
from zen.tools.workspace import PathError

LIMIT = 200
"""Matching lines shown before the output is cut."""
MAX_CONTEXT = 10
MAX_LINE = 300
"""Characters kept of one line (minified files have lines of megabytes)."""
RG_LINE_LIMIT = 2**22
"""Bytes of one ripgrep JSON line; a match in a longer line is skipped rather than held."""
RG_TIMEOUT = 300.0
"""Seconds a ripgrep run may take (it goes through `run_child`, like every child)."""
ERR_LIMIT = 64 * 1024
"""Bytes kept of ripgrep's stderr (and of its stdout, which the collector reads as it comes)."""
LISTING_LIMIT = 32 * 2**20
"""Bytes of `rg --files`: past that the special files are not looked for by name."""


def find_rg() -> str | None:
    """The ripgrep binary: beside the interpreter first, then on PATH."""
    import sysconfig

    exe = "rg.exe" if os.name == "nt" else "rg"
    local = Path(sysconfig.get_path("scripts")) / exe
    if local.is_file():
        return str(local)
    return shutil.which("rg")


class GrepParams(Params):
    pattern: str
    path: str | None = None
    glob: str | None = None
    ignore_case: bool = False
    context: int = Field(0, description="lines around matches")


@dataclass(frozen=True)
class Line:
    path: Path
    number: int
    text: str
    is_match: bool


class _Stop(Exception):
    """Raised by the collector when the cap is reached."""


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
                raise _Stop
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
        lines = _RgLines(self, collector, cwd)
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
            specials = await _special_files([*walk, "--files", "--", target], cwd)
            if specials is None:
                return None
            for rel in specials:
                walk += ["--glob", "!/" + _glob_escape(rel)]
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
                for line in _search_file(path, regex, self.context):
                    collector.add(line)
        except _Stop:
            pass
        return None


class _RgLines:
    """ripgrep's JSON lines, as they come, into the collector; True (stop ripgrep) once it is
    full. A line over RG_LINE_LIMIT is dropped rather than held."""

    def __init__(self, search: _Search, collector: _Collector, cwd: Path) -> None:
        self.collector = collector
        self.cwd = cwd
        # A whitelisting glob overrides .gitignore in ripgrep; check those files ourselves.
        whitelists = search.glob and not search.glob.negated and search.target.is_dir()
        self.recheck = GitIgnore() if whitelists else None
        self.partial = bytearray()
        self.dropping = False
        self.stopped = False

    def feed(self, chunk: bytes) -> bool:
        if self.stopped:
            return True
        *complete, rest = chunk.split(b"\n")
        for piece in complete:
            line, self.partial = self.partial + piece, bytearray()
            if self.dropping:
                self.dropping = False
                continue
            try:
                self._add(bytes(line))
            except _Stop:
                self.stopped = True
                return True
        self.partial += rest
        if len(self.partial) > RG_LINE_LIMIT:
            self.partial, self.dropping = bytearray(), True
        return False

    def _add(self, raw: bytes) -> None:
        line = _rg_line(raw, self.cwd)
        if line is None or (self.recheck and self.recheck.ignored(line.path, self.cwd)):
            return
        self.collector.add(line)


def _rg_line(raw: bytes, cwd: Path) -> Line | None:
    try:
        event = json.loads(raw)
    except ValueError:
        return None
    kind = event.get("type")
    if kind not in ("match", "context"):
        return None
    data = event["data"]
    where = data["path"]  # undecodable bytes kept (surrogateescape) so the path is real
    path = where["text"] if "text" in where else os.fsdecode(base64.b64decode(where["bytes"]))
    if path.startswith("./"):
        path = path[2:]
    return Line(cwd / path, data["line_number"], _rg_text(data["lines"]), kind == "match")


def _rg_text(value: dict[str, str]) -> str:
    """ripgrep sends text that is not valid UTF-8 as base64 `bytes`."""
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", "replace")


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


SPECIALS_MAX = 1000
"""Special files excluded one by one from a ripgrep run; beyond that the Python search runs."""


async def _special_files(args: list[str], cwd: Path) -> list[str] | None:
    """Paths (relative to `cwd`) that `rg --files` lists but are no regular files; None when
    there are too many to exclude by name."""
    done = await run_child(
        args, cwd=cwd, env=os.environ, timeout=RG_TIMEOUT, limit=LISTING_LIMIT, stop_at_limit=True
    )
    if done.cut_short or done.timed_out:
        return None  # too many files to exclude by name
    listing = done.out.data()
    found = await off_loop(_not_regular, cwd, listing)
    return None if len(found) > SPECIALS_MAX else found


def _not_regular(cwd: Path, listing: bytes) -> list[str]:
    """The listed paths whose directory entry is not a regular file (d_type: no stat)."""
    by_dir: dict[str, set[str]] = {}
    for raw in listing.split(b"\n"):
        if raw:
            rel = os.fsdecode(raw).removeprefix("./")
            folder, _, name = rel.rpartition("/")
            by_dir.setdefault(folder, set()).add(name)
    found: list[str] = []
    for folder, names in by_dir.items():
        try:
            with os.scandir(cwd / folder if folder else cwd) as entries:
                for entry in entries:
                    if entry.name in names and not entry.is_file(follow_symlinks=False):
                        found.append(f"{folder}/{entry.name}" if folder else entry.name)
        except OSError:
            continue
    return found


def _glob_escape(rel: str) -> str:
    return re.sub(r"([\\*?\[\]{}!])", r"\\\1", rel)


READ_CHUNK = 1 << 16
_OPEN_FLAGS = (
    getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
)
"""Never wait on a FIFO, never leak the fd to a child, never translate line ends (Windows)."""


def _search_file(path: Path, regex: re.Pattern[str], context: int) -> Iterator[Line]:
    """Matches in one file, streamed: memory stays at one line plus `context` lines, and a
    file swapped for a FIFO since the walk is neither waited on nor read."""
    try:
        fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    except OSError:
        return
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return
        if _OPEN_FLAGS & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        head = f.read(BINARY_PROBE)
        if b"\0" in head:
            return  # binary, as ripgrep decides
        f.seek(0)
        before: deque[tuple[int, str]] = deque(maxlen=context)
        after = 0
        last_shown = 0
        for number, raw in enumerate(_bounded_lines(f), 1):
            text = raw.decode("utf-8-sig" if number == 1 else "utf-8", "replace")
            text = text.removesuffix("\n").removesuffix("\r")  # `$` matches CRLF lines too
            if regex.search(text):
                for n, held in before:
                    if n > last_shown:
                        yield Line(path, n, held, False)
                before.clear()
                yield Line(path, number, text, True)
                last_shown, after = number, context
            elif after:
                yield Line(path, number, text, False)
                last_shown, after = number, after - 1
            elif context:
                before.append((number, text))


def _bounded_lines(f: BinaryIO) -> Iterator[bytes]:
    """Lines of at most RG_LINE_LIMIT bytes; the rest of a longer line is skipped."""
    while line := f.readline(RG_LINE_LIMIT):
        if not line.endswith(b"\n"):
            while rest := f.readline(READ_CHUNK):
                if rest.endswith(b"\n"):
                    break
        yield line

"""`grep`'s ripgrep backend: finding ripgrep, its command line's special-file exclusions,
and its JSON output turned into `Line`s as it comes."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from zen.tools.child import run_child
from zen.tools.files.text import off_loop
from zen.tools.grep_lines import RG_LINE_LIMIT, Line, Stop
from zen.tools.ignore import GitIgnore

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


class RgLines:
    """ripgrep's JSON lines, as they come, into the collector; True (stop ripgrep) once it is
    full. A line over RG_LINE_LIMIT is dropped rather than held."""

    def __init__(self, add: Callable[[Line], None], cwd: Path, recheck: bool) -> None:
        """`add` raises `Stop` when full; `recheck`: a whitelisting glob overrides
        .gitignore in ripgrep, so each file found is checked against it here."""
        self.add = add
        self.cwd = cwd
        self.recheck = GitIgnore() if recheck else None
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
            except Stop:
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
        self.add(line)


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


SPECIALS_MAX = 1000
"""Special files excluded one by one from a ripgrep run; beyond that the Python search runs."""


async def special_files(args: list[str], cwd: Path) -> list[str] | None:
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


def glob_escape(rel: str) -> str:
    return re.sub(r"([\\*?\[\]{}!])", r"\\\1", rel)

"""read-file: numbered lines of a text file, a page at a time, and the mark that allows edits."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import BinaryIO

from pydantic import Field

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.files.auto_memo import remember
from zen.tools.files.regular import FileError, Target, open_regular, regular_stat
from zen.tools.files.targets import needs_confirm_to_read, target
from zen.tools.files.text import BINARY_PROBE, decode_loose, off_loop

DEFAULT_LIMIT = 2000
MAX_LINE = 2000
"""Characters shown of one line: a minified file must not eat the whole page."""
RAW_LINE = MAX_LINE * 4
"""Bytes of one line kept for display (UTF-8 needs at most 4 per character); the rest of a
megabyte-long line is skipped, not held."""
HINT_ROOM = 200
"""Output kept free under max_tool_output so the next-page hint is never capped away."""


class ReadFileParams(Params):
    path: str
    offset: int = Field(1, ge=0, description="first line, 1-based")
    limit: int = Field(DEFAULT_LIMIT, ge=1)


@dataclass
class Page:
    first: int
    lines: list[str] = field(default_factory=list)
    total: int = 0

    @property
    def last(self) -> int:
        return self.first + len(self.lines) - 1


class ReadFile(Tool):
    name = "read-file"
    Params = ReadFileParams
    level = "auto"
    read_only = True
    claude_name = "Read"
    acp_kind = "read"
    file_arg = True

    def must_confirm(self, params: ReadFileParams, ctx: ToolContext) -> bool:
        return needs_confirm_to_read(ctx, params.path)

    async def execute(self, params: ReadFileParams, ctx: ToolContext) -> ToolResult:
        try:
            t = target(ctx, params.path)
            budget = max(ctx.max_tool_output - HINT_ROOM, HINT_ROOM)
            page = await off_loop(_read_page, t, max(params.offset, 1), params.limit, budget)
        except FileError as exc:
            return ToolResult.error(str(exc))
        ctx.read_tracker.mark_read(t.path)
        return page_result(ctx, t.shown, page)


def page_result(ctx: ToolContext, shown: str, page: Page) -> ToolResult:
    """What the model sees of a page read (from disk or from an editor's buffer)."""
    if page.total == 0:
        remember(ctx, shown, "", "read 0 lines (empty)")
        return ToolResult(True, f"({shown} is empty)", "read 0 lines")
    whole = page.first == 1 and page.last == page.total
    summary = (
        f"read {page.total} lines"
        if whole
        else f"read lines {page.first}-{page.last} of {page.total}"
    )
    remember(ctx, shown, "\n".join(page.lines), summary)
    return ToolResult(True, _render(page), summary)


def _read_page(t: Target, first: int, limit: int, budget: int) -> Page:
    """Lines `first`.. of the file, stopping at `limit` lines or `budget` characters of output.

    Runs in a worker thread. The file must be regular (checked before it is opened) and is
    streamed in bounded pieces, so a huge log or a one-line minified file costs one pass and
    one page of memory.
    """
    regular_stat(t)
    page = Page(first)
    width = len(str(first + limit - 1))
    used, full = 0, False
    try:
        with os.fdopen(open_regular(t), "rb") as f:
            if b"\0" in f.read(BINARY_PROBE):
                raise FileError(f"{t.shown} is a binary file; read-file only shows text")
            f.seek(0)
            for number, (raw, extra) in enumerate(_lines(f), 1):
                page.total = number
                if number < first or full:
                    continue  # outside the page: only counted
                line = _cut(decode_loose(raw).rstrip("\n").removesuffix("\r"), extra)
                cost = width + 2 + len(line)
                if len(page.lines) >= limit or (page.lines and used + cost > budget):
                    full = True
                    continue
                page.lines.append(line)
                used += cost
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None
    if page.total and first > page.total:
        raise FileError(f"offset {first} is past the end of {t.shown} ({page.total} lines)")
    return page


def _lines(f: BinaryIO) -> Iterator[tuple[bytes, int]]:
    """Each line's first RAW_LINE bytes and how many more bytes it had."""
    while head := f.readline(RAW_LINE):
        extra = 0
        if not head.endswith(b"\n"):
            while rest := f.readline(1 << 16):
                extra += len(rest)
                if rest.endswith(b"\n"):
                    extra -= 1
                    break
        yield head, extra


def _cut(line: str, extra_bytes: int = 0) -> str:
    if len(line) <= MAX_LINE and not extra_bytes:
        return line
    if extra_bytes:
        more = len(line) - MAX_LINE + extra_bytes
        return f"{line[:MAX_LINE]}… [line cut, about {more} more chars]"
    return f"{line[:MAX_LINE]}… [line cut, {len(line) - MAX_LINE} more chars]"


def _render(page: Page) -> str:
    """`cat -n` style: right-aligned number, tab, line; then how to read the next page."""
    width = len(str(page.last))
    out = "\n".join(f"{n:>{width}}\t{line}" for n, line in enumerate(page.lines, page.first))
    rest = page.total - page.last
    if rest > 0:
        out += f"\n… {rest} more lines; call again with offset={page.last + 1}"
    return out

"""zen's file tools through the editor: `fs/read_text_file` and `fs/write_text_file`.

Where the client offers them, read-file, write-file and edit-file read what the editor holds
(unsaved buffers included) and write through it (the edit appears in the editor). Only the
transport changes: the tools keep their names, schemas and messages, and every guard stays in
zen — the path is confined to the workspace (symlinks resolved) and never inside `.git/` before
the editor is asked anything, a special file on disk is refused unopened, an edit needs a read
first, and a stale read is caught by the text's hash (an editor buffer has no mtime). The
registry frames every call as before: permission, hooks, and the checkpoint copy before a
change. Where the client offers only one of the two, the other goes to the disk.
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.tools.base import ToolContext, ToolResult
from zen.tools.edit_file import TOO_BIG, EditFile, EditFileParams, find, splice
from zen.tools.files.auto_memo import remember
from zen.tools.files.diffs import Diff, unified_diff
from zen.tools.files.regular import FileError, Target, regular_stat
from zen.tools.files.safe_write import write_off_loop
from zen.tools.files.targets import path_lock, target, writable_target
from zen.tools.files.text import (
    count_lines,
    decode_strict,
    newline_of,
    read_existing,
    with_newlines,
)
from zen.tools.read_file import HINT_ROOM, Page, ReadFile, ReadFileParams, _cut, page_result
from zen.tools.write_file import WriteFile, WriteFileParams, written_result

CLIENT_TIMEOUT = 30.0
"""Seconds the editor may take to read or write one file."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass
class ClientFiles:
    """The editor's file system for one session (read and/or write), with what each agent
    saw of each file, by hash."""

    conn: Any
    session_id: str
    reads: bool
    writes: bool
    seen: dict[int, tuple[Any, dict[Path, str]]] = field(default_factory=dict)

    # -- what an agent saw ------------------------------------------------------------------

    def _seen(self, ctx: ToolContext) -> dict[Path, str]:
        tracker = ctx.read_tracker
        held = self.seen.get(id(tracker))
        if held is None or held[0] is not tracker:  # the tracker is held, so ids stay unique
            held = self.seen[id(tracker)] = (tracker, {})
        return held[1]

    def saw(self, ctx: ToolContext, t: Target, text: str) -> None:
        self._seen(ctx)[t.path] = digest(text)
        ctx.read_tracker.mark_read(t.path)

    def check_fresh(self, ctx: ToolContext, t: Target, text: str, verb: str) -> None:
        """Refuse a change from no read, or from a read of other text than there is now."""
        known = self._seen(ctx).get(t.path)
        if known is None:
            raise FileError(f"read {t.shown} with read-file before {verb} it")
        if known != digest(text):
            raise FileError(
                f"{t.shown} changed since you read it; read-file it again before {verb} it"
            )

    # -- transport --------------------------------------------------------------------------

    async def read(self, t: Target, limit: int) -> str | None:
        """The file's text as the editor has it (None: there is no such file)."""
        on_disk = t.path.exists() or t.path.is_symlink()
        if on_disk:
            regular_stat(t)  # a FIFO or a device is refused before anyone opens it
        if not self.reads:
            if not on_disk:
                return None
            return decode_strict(read_existing(t, limit, TOO_BIG), t.shown)
        try:
            answer = await asyncio.wait_for(
                self.conn.read_text_file(session_id=self.session_id, path=str(t.path)),
                CLIENT_TIMEOUT,
            )
        except asyncio.TimeoutError:
            raise FileError(
                f"the editor did not give {t.shown} within {CLIENT_TIMEOUT:g} s"
            ) from None
        except Exception as e:
            if not on_disk:
                return None
            raise FileError(f"the editor could not read {t.shown}: {e}") from None
        text = answer.content
        if not isinstance(text, str):
            raise FileError(f"the editor sent no text for {t.shown}")
        if len(text) > limit:
            raise FileError(f"{t.shown} is above the {limit:,} character limit{TOO_BIG}")
        return text

    async def write(self, t: Target, text: str) -> None:
        if not self.writes:
            await write_off_loop(t, text.encode("utf-8"))
            return
        try:
            await asyncio.wait_for(
                self.conn.write_text_file(
                    session_id=self.session_id, path=str(t.path), content=text
                ),
                CLIENT_TIMEOUT,
            )
        except asyncio.TimeoutError:
            raise FileError(
                f"the editor did not confirm writing {t.shown} within {CLIENT_TIMEOUT:g} s; "
                "read-file it to see what it holds"
            ) from None
        except Exception as e:
            raise FileError(f"the editor could not write {t.shown}: {e}") from None


def client_file_tools(files: ClientFiles) -> dict[str, Any]:
    """The three file tools over `files`, to replace the session's built-in ones."""
    tools: list[Any] = [ClientReadFile(files), ClientWriteFile(files), ClientEditFile(files)]
    return {tool.name: tool for tool in tools}


class ClientReadFile(ReadFile):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def execute(self, params: ReadFileParams, ctx: ToolContext) -> ToolResult:
        try:
            t = target(ctx, params.path)
            text = await self.files.read(t, ctx.max_edit_bytes)
            if text is None:
                raise FileError(f"{t.shown} does not exist")
            if "\0" in text[:8192]:
                raise FileError(f"{t.shown} is a binary file; read-file only shows text")
            budget = max(ctx.max_tool_output - HINT_ROOM, HINT_ROOM)
            page = page_of(text, max(params.offset, 1), params.limit, budget, t.shown)
        except FileError as exc:
            return ToolResult.error(str(exc))
        self.files.saw(ctx, t, text)
        return page_result(ctx, t.shown, page)


def page_of(text: str, first: int, limit: int, budget: int, shown: str) -> Page:
    """Lines `first`.. of `text`, as read-file pages a file on disk."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    page = Page(first, total=len(lines))
    if page.total and first > page.total:
        raise FileError(f"offset {first} is past the end of {shown} ({page.total} lines)")
    width = len(str(first + limit - 1))
    used = 0
    for raw in lines[first - 1 :]:
        line = _cut(raw.removesuffix("\r"))
        cost = width + 2 + len(line)
        if len(page.lines) >= limit or (page.lines and used + cost > budget):
            break
        page.lines.append(line)
        used += cost
    return page


@dataclass(frozen=True)
class _Plan:
    target: Target
    text: str
    diff: Diff | None
    count: int = 1


class ClientEditFile(EditFile):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def preview(self, params: EditFileParams, ctx: ToolContext) -> str | ToolResult:
        try:
            plan = await self._plan(params, ctx)
        except FileError as exc:
            return ToolResult.error(str(exc))
        return plan.diff.text if plan.diff else ""

    async def execute(self, params: EditFileParams, ctx: ToolContext) -> ToolResult:
        async with path_lock(ctx, params.path):
            try:
                plan = await self._plan(params, ctx)
                await self.files.write(plan.target, plan.text)
            except FileError as exc:
                return ToolResult.error(str(exc))
            t, diff = plan.target, plan.diff
            assert diff is not None
            self.files.saw(ctx, t, plan.text)
        remember(ctx, t.shown, diff.text, f"edited, {diff.stat}")
        head = f"replaced {plan.count} occurrences\n" if plan.count > 1 else ""
        return ToolResult(
            True, head + diff.text, diff.stat, diff=diff.text, files_changed=[t.shown]
        )

    async def _plan(self, params: EditFileParams, ctx: ToolContext) -> _Plan:
        t = writable_target(ctx, params.path)
        if not params.old_string:
            raise FileError(
                "old_string is empty; give the text to replace (write-file creates files)"
            )
        if params.old_string == params.new_string:
            raise FileError("old_string and new_string are the same; nothing to change")
        before = await self.files.read(t, ctx.max_edit_bytes)
        if before is None:
            raise FileError(f"{t.shown} does not exist; create it with write-file")
        self.files.check_fresh(ctx, t, before, "editing")
        spans = find(before, params.old_string)
        if not spans:
            raise FileError(
                f"old_string not found in {t.shown}; copy it exactly from read-file output "
                "(whole lines, with a little surrounding context)"
            )
        if len(spans) > 1 and not params.replace_all:
            raise FileError(
                f"old_string found {len(spans)} times in {t.shown}; include more surrounding "
                "lines to pick one, or set replace_all: true to change every one"
            )
        after = splice(before, spans, with_newlines(params.new_string, newline_of(before)))
        if after == before:
            raise FileError(f"the edit leaves {t.shown} unchanged")
        return _Plan(t, after, unified_diff(before, after, t.shown), len(spans))


class ClientWriteFile(WriteFile):
    def __init__(self, files: ClientFiles) -> None:
        self.files = files

    async def preview(self, params: WriteFileParams, ctx: ToolContext) -> str | ToolResult:
        try:
            plan = await self._plan(params, ctx)
        except FileError as exc:
            return ToolResult.error(str(exc))
        if plan.diff is not None:
            return plan.diff.text or f"overwrite {plan.target.shown} (no change)"
        body = plan.text.replace("\r\n", "\n")
        return f"create {plan.target.shown} ({count_lines(plan.text)} lines)\n{body}"

    async def execute(self, params: WriteFileParams, ctx: ToolContext) -> ToolResult:
        async with path_lock(ctx, params.path):
            try:
                plan = await self._plan(params, ctx)
                await self.files.write(plan.target, plan.text)
            except FileError as exc:
                return ToolResult.error(str(exc))
            self.files.saw(ctx, plan.target, plan.text)
        return written_result(ctx, plan.target.shown, plan.text, plan.diff)

    async def _plan(self, params: WriteFileParams, ctx: ToolContext) -> _Plan:
        t = writable_target(ctx, params.path)
        before = await self.files.read(t, ctx.max_edit_bytes)
        if before is None:
            return _Plan(t, params.content, None)
        if not params.overwrite:
            raise FileError(
                f"{t.shown} already exists; to replace it pass overwrite: true "
                "(or change part of it with edit-file)"
            )
        self.files.check_fresh(ctx, t, before, "overwriting")
        text = with_newlines(params.content, newline_of(before))
        if before.startswith("\ufeff") and not text.startswith("\ufeff"):
            text = "\ufeff" + text
        return _Plan(t, text, unified_diff(before, text, t.shown))

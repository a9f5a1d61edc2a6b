"""write-file: create a file, or replace one only when asked to, without breaking its style."""

from __future__ import annotations

from dataclasses import dataclass

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.files.auto_memo import remember
from zen.tools.files.diffs import Diff, unified_diff
from zen.tools.files.regular import FileError, Target, regular_stat
from zen.tools.files.safe_write import write_off_loop
from zen.tools.files.targets import needs_confirm_to_write, path_lock, writable_target
from zen.tools.files.text import (
    count_lines,
    decode_loose,
    is_binary,
    newline_of,
    off_loop,
    read_existing,
    with_newlines,
)


class WriteFileParams(Params):
    path: str
    content: str
    overwrite: bool = False


@dataclass(frozen=True)
class WritePlan:
    target: Target
    data: bytes
    text: str
    """The content as it will be on disk (the old file's newline style applied)."""
    diff: Diff | None
    """Against the old file; None when the file is new."""


class WriteFile(Tool):
    name = "write-file"
    Params = WriteFileParams
    level = "confirm"
    writes = True
    claude_name = "Write"
    acp_kind = "edit"
    file_arg = True

    def must_confirm(self, params: WriteFileParams, ctx: ToolContext) -> bool:
        return needs_confirm_to_write(ctx, params.path)

    async def preview(self, params: WriteFileParams, ctx: ToolContext) -> str | ToolResult:
        try:
            plan = await off_loop(_plan, params, ctx)
        except FileError as exc:
            return ToolResult.error(str(exc))
        if plan.diff is not None:
            return plan.diff.text or f"overwrite {plan.target.shown} (no change)"
        body = plan.text.replace("\r\n", "\n")  # whole: the approval shows all that is written
        return f"create {plan.target.shown} ({count_lines(plan.text)} lines)\n{body}"

    async def execute(self, params: WriteFileParams, ctx: ToolContext) -> ToolResult:
        async with path_lock(ctx, params.path):
            try:
                plan = await off_loop(_plan, params, ctx)
                await write_off_loop(plan.target, plan.data)
            except FileError as exc:
                return ToolResult.error(str(exc))
            ctx.read_tracker.mark_read(plan.target.path)
        return written_result(ctx, plan.target.shown, plan.text, plan.diff)


def written_result(ctx: ToolContext, shown: str, text: str, diff: Diff | None) -> ToolResult:
    """What the model sees of a write (to disk or to an editor's buffer); no diff: created."""
    verb = "created" if diff is None else "overwrote"
    summary = f"{verb}, {count_lines(text)} lines"
    remember(ctx, shown, text, summary)
    return ToolResult(
        True,
        f"{verb} {shown} ({count_lines(text)} lines)",
        summary,
        diff=diff.text if diff else "",
        files_changed=[shown],
    )


def _plan(params: WriteFileParams, ctx: ToolContext) -> WritePlan:
    """What the write will put on disk; touches nothing, so preview can use it too.

    Runs in a worker thread. The old file is checked without opening it (a FIFO or a device
    is refused) and read only up to `max_edit_bytes`; a larger one is replaced without a diff.
    """
    t = writable_target(ctx, params.path)
    exists = t.path.exists() or t.path.is_symlink()
    if exists:
        regular_stat(t)  # a directory, FIFO or device is refused before anything else
    refusal = ctx.read_tracker.check_write_overwrite(t.path, t.shown, params.overwrite)
    if refusal:
        raise FileError(refusal)
    if not exists:
        return WritePlan(t, params.content.encode("utf-8"), params.content, None)
    size = regular_stat(t).st_size
    if size > ctx.max_edit_bytes:
        added = count_lines(params.content)
        diff = Diff(f"{t.shown} ({size:,} bytes) replaced by {added} lines\n", added, 0)
        return WritePlan(t, params.content.encode("utf-8"), params.content, diff)
    old = read_existing(t, ctx.max_edit_bytes)
    if is_binary(old):
        diff = Diff(f"binary file {t.shown} replaced by text\n", count_lines(params.content), 0)
        return WritePlan(t, params.content.encode("utf-8"), params.content, diff)
    before = decode_loose(old)
    text = with_newlines(params.content, newline_of(before))
    if before.startswith("\ufeff") and not text.startswith("\ufeff"):
        text = "\ufeff" + text  # keep the byte-order mark some Windows tools insist on
    return WritePlan(t, text.encode("utf-8"), text, unified_diff(before, text, t.shown))

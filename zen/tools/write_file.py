"""write-file: create a file, or replace one only when asked to, without breaking its style."""

from __future__ import annotations

from dataclasses import dataclass

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.files import (
    Diff,
    FileError,
    Target,
    atomic_write,
    count_lines,
    decode_loose,
    is_binary,
    newline_of,
    path_lock,
    read_existing,
    remember,
    target,
    unified_diff,
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

    async def preview(self, params: WriteFileParams, ctx: ToolContext) -> str | ToolResult:
        try:
            plan = _plan(params, ctx)
        except FileError as exc:
            return ToolResult.error(str(exc))
        if plan.diff is not None:
            return plan.diff.text or f"overwrite {plan.target.shown} (no change)"
        body = plan.text.replace("\r\n", "\n")  # whole: the approval shows all that is written
        return f"create {plan.target.shown} ({count_lines(plan.text)} lines)\n{body}"

    async def execute(self, params: WriteFileParams, ctx: ToolContext) -> ToolResult:
        async with path_lock(ctx, params.path):
            try:
                plan = _plan(params, ctx)
                atomic_write(plan.target.path, plan.data, plan.target.shown)
            except FileError as exc:
                return ToolResult.error(str(exc))
            t = plan.target
            ctx.read_tracker.mark_written(t.path)
        verb = "created" if plan.diff is None else "overwrote"
        summary = f"{verb}, {count_lines(plan.text)} lines"
        remember(ctx, t.shown, plan.text, summary)
        return ToolResult(
            True,
            f"{verb} {t.shown} ({count_lines(plan.text)} lines)",
            summary,
            diff=plan.diff.text if plan.diff else "",
            files_changed=[t.shown],
        )


def _plan(params: WriteFileParams, ctx: ToolContext) -> WritePlan:
    """What the write will put on disk; touches nothing, so preview can use it too."""
    t = target(ctx, params.path)
    if t.path.is_dir():
        raise FileError(f"{t.shown} is a directory, not a file")
    refusal = ctx.read_tracker.check_write_overwrite(t.path, t.shown, params.overwrite)
    if refusal:
        raise FileError(refusal)
    if not t.path.exists():
        return WritePlan(t, params.content.encode("utf-8"), params.content, None)
    old = read_existing(t)
    if is_binary(old):
        diff = Diff(f"binary file {t.shown} replaced by text\n", count_lines(params.content), 0)
        return WritePlan(t, params.content.encode("utf-8"), params.content, diff)
    before = decode_loose(old)
    text = with_newlines(params.content, newline_of(before))
    if before.startswith("\ufeff") and not text.startswith("\ufeff"):
        text = "\ufeff" + text  # keep the byte-order mark some Windows tools insist on
    return WritePlan(t, text.encode("utf-8"), text, unified_diff(before, text, t.shown))

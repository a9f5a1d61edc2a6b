"""`send-to-coder`: hand one precise task to a fresh Coder (dual mode)."""

from __future__ import annotations

from pydantic import Field

from zen.tools.base import Params, Tool, ToolContext, ToolResult

CHANGED_NOTHING = "changed nothing: the task asked for a change and the Coder changed no file"


class SendToCoderParams(Params):
    task: str = Field(description="[goal] [files] [requirements] [refs]")
    context: str | None = None


class SendToCoder(Tool):
    name = "send-to-coder"
    Params = SendToCoderParams
    level = "auto"
    writes = True
    nests = True

    async def execute(self, params: SendToCoderParams, ctx: ToolContext) -> ToolResult:
        if ctx.run.delegate is None:
            return ToolResult.error("send-to-coder is only available in dual mode")
        done = await ctx.run.delegate(params.task, params.context, ctx.call_id)
        lines = [done.report.strip() or "(the Coder gave no report)"]
        lines.append("files changed: " + (", ".join(done.files_changed) or "none"))
        if done.changed_nothing:
            lines.append(CHANGED_NOTHING)
        lines.append("memo keys written: " + (", ".join(done.memo_keys) or "none"))
        if done.checkpoint:
            lines.append(f"checkpoint: {done.checkpoint}")
        summary = f"{len(done.files_changed)} file(s) changed" if done.ok else "coder failed"
        return ToolResult(
            ok=done.ok,
            output="\n".join(lines),
            summary=summary,
            files_changed=done.files_changed,
        )

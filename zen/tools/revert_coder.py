"""`revert-coder`: the Orchestrator rejects a Coder's work (dual mode, checkpoints on).

The files go back to the snapshot taken before that Coder ran; the memo keeps an
`attempt:<n>` note with what was tried and why it was rejected, for the next Coder.
"""

from __future__ import annotations

from zen.tools.base import Params, Tool, ToolContext, ToolResult


class RevertCoderParams(Params):
    checkpoint: str
    why: str


class RevertCoder(Tool):
    name = "revert-coder"
    Params = RevertCoderParams
    level = "auto"
    acp_kind = "edit"
    needs = "checkpoints"

    def key_arg(self, args: dict[str, object]) -> str:
        return str(args.get("checkpoint", ""))

    async def execute(self, params: RevertCoderParams, ctx: ToolContext) -> ToolResult:
        if ctx.run.delegate is None:
            return ToolResult.error("revert-coder is only available in dual mode")
        if not params.why.strip():
            return ToolResult.error("say why the work is rejected: the next Coder needs it")
        return await ctx.run.delegate.revert(params.checkpoint, params.why.strip())

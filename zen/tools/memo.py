"""`memo`: read and write the shared blackboard (ctx.memo) that agents hand work over with.

What an agent writes is announced to the user as a `MemoWritten` event carrying its summary,
so the blackboard is never a hidden channel.
"""

from __future__ import annotations

from typing import Literal

from zen.base.events import MemoWritten
from zen.base.text import clip
from zen.tools.base import Params, Tool, ToolContext, ToolResult

SUMMARY_CHARS = 100


class MemoParams(Params):
    action: Literal["write", "read", "list", "delete"]
    key: str | None = None
    content: str | None = None
    summary: str | None = None


class Memo(Tool):
    name = "memo"
    Params = MemoParams
    acp_kind = "think"

    def may_change_files(self, args: dict[str, object]) -> bool:
        return False  # it writes zen's own store, not the workspace

    def key_arg(self, args: dict[str, object]) -> str:
        return f"{args.get('action', '')} {args.get('key') or ''}".strip()

    async def execute(self, params: MemoParams, ctx: ToolContext) -> ToolResult:
        memo = ctx.memo
        if params.action == "list":
            index = memo.index_text()
            count = len(memo.entries)
            return ToolResult(True, index or "(memo is empty)", summary=f"{count} entries")
        key = (params.key or "").strip()
        if not key:
            return ToolResult.error(f"memo {params.action} needs `key`")
        if params.action == "write":
            if not params.content:
                return ToolResult.error("memo write needs `content`")
            summary = _one_line(params.summary or params.content)
            memo.write(key, params.content, summary, ctx.agent, run=ctx.run.id)
            ctx.run.emit(MemoWritten(agent=ctx.agent, key=key, summary=summary))
            return ToolResult(True, f"wrote {key}", summary=f"{key}: {summary}")
        entry = memo.read(key)
        if entry is None:
            known = ", ".join(e.key for e in memo.index()) or "none"
            return ToolResult.error(f"no memo entry {key!r} (keys: {known})")
        if params.action == "delete":
            memo.delete(key)
            return ToolResult(True, f"deleted {key}", summary=f"deleted {key}")
        header = f"{entry.key} — {entry.summary} ({entry.author})"
        return ToolResult(True, f"{header}\n\n{entry.content}", summary=f"read {key}")


def _one_line(text: str) -> str:
    """The first non-blank line, cut to SUMMARY_CHARS."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return clip(line, SUMMARY_CHARS)

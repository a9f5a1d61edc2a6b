"""spawn-agents: split a wide task across sub-agents that run at the same time.

Each sub-agent starts from a fresh context with only its own prompt, so the caller's
conversation stays small and the sub-agents' reading never lands in it: only their reports do.
The runner lives in the agent layer and comes in through the run context (`ctx.run.spawn`).
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from zen.tools.base import Delegation, Params, SubTask, Tool, ToolContext, ToolResult


class SpawnAgentsParams(Params):
    tasks: list[SubTask] = Field(min_length=1)


class SpawnAgents(Tool):
    name = "spawn-agents"
    Params = SpawnAgentsParams
    level = "confirm"
    writes = True  # a code sub-agent edits
    claude_name = "Task"
    nests = True
    needs = "parallel_agents"

    def key_arg(self, args: dict[str, Any]) -> str:
        tasks = args.get("tasks")
        if not isinstance(tasks, list):
            return ""
        names = [str(t.get("description", "?")) for t in tasks if isinstance(t, dict)]
        return f"{len(tasks)} agents: " + ", ".join(names)

    async def preview(self, params: SpawnAgentsParams, ctx: ToolContext) -> str:
        return "\n".join(f"{t.type}: {t.description}" for t in params.tasks)

    async def execute(self, params: SpawnAgentsParams, ctx: ToolContext) -> ToolResult:
        if ctx.run.spawn is None:
            return ToolResult.error("spawn-agents is not available in this session")
        done = await ctx.run.spawn(params.tasks, ctx.call_id)
        pairs = zip(params.tasks, done, strict=True)
        sections = [_section(n, task, d) for n, (task, d) in enumerate(pairs, 1)]
        failed = sum(not d.ok for d in done)
        files = list(dict.fromkeys(f for d in done for f in d.files_changed))
        summary = f"{len(done) - failed} done" + (f", {failed} failed" if failed else "")
        return ToolResult(
            ok=failed < len(done),
            output="\n\n".join(sections),
            summary=summary,
            files_changed=files,
        )


def _section(n: int, task: SubTask, done: Delegation) -> str:
    status = "done" if done.ok else "FAILED"
    lines = [f"## {n}. {task.description} ({task.type}): {status}"]
    lines.append(done.report.strip() or "(no report)")
    if done.files_changed:
        lines.append("files changed: " + ", ".join(done.files_changed))
    if done.memo_keys:
        lines.append("memo keys written: " + ", ".join(done.memo_keys))
    return "\n".join(lines)

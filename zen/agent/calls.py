"""Running a turn's tool calls: consecutive read-only calls together, the rest in order, each
framed by its events; every call is answered, even when the run is cancelled midway, so the
next request never carries a dangling call. One job, out of the loop that decides what runs."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, Protocol

from zen.agent.edits import syntax_check
from zen.agent.runaway import Runaways
from zen.base import events as ev
from zen.llm.types import ToolCall
from zen.tools.base import RunContext, ToolContext, ToolResult
from zen.tools.files.text import off_loop
from zen.tools.registry import ToolRegistry, parse_arguments

CUT_CALL = (
    "Not run: your output was cut at max_tokens before this call was complete. Make smaller "
    "steps: write or edit a large file in several calls, or send less in one call."
)


class Caller(Protocol):
    """What running calls needs of the agent (`loop.Agent`)."""

    name: str
    ctx: ToolContext
    registry: ToolRegistry
    runaways: Runaways
    files_changed: list[str]
    messages: list[dict[str, Any]]

    def add(self, message: dict[str, Any]) -> None: ...


class Calls:
    def __init__(self, agent: Caller) -> None:
        self.agent = agent
        self.started: set[str] = set()
        """Calls of the current turn that began to run (for the cancellation message)."""

    async def run_all(self, calls: list[ToolCall], run: RunContext) -> dict[str, ToolResult]:
        """Run one turn's calls: consecutive read-only calls together, the rest in order.

        Results are appended in call order. If the run is cancelled midway, every call still
        gets a result message, so the next request never carries a dangling tool call.
        """
        results: dict[str, ToolResult] = {}
        broken: dict[str, str] = {}
        self.started = set()
        frame = run.frame
        if frame is not None and not any(self.agent.registry.may_change_files(c) for c in calls):
            frame = None
        try:
            if frame is not None:  # inside the try: a Ctrl-C here still answers every call
                await frame.before()
            batch: list[ToolCall] = []
            for call in calls:
                if self.agent.registry.is_read_only(call):
                    batch.append(call)
                    continue
                await self._run_batch(batch, results, run)
                batch = []
                await self._run_batch([call], results, run)
            await self._run_batch(batch, results, run)
            broken = await self._syntax(calls, results)
        finally:
            for call in calls:
                result = results.get(call.id)
                if result:
                    content = result.output + broken.get(call.id, "")
                elif call.id in self.started:
                    content = "Cancelled by the user while running; it may have partly run."
                else:
                    content = "Cancelled by the user before it ran."
                self.agent.add({"role": "tool", "tool_call_id": call.id, "content": content})
            if frame is not None:
                await frame.after()
        return results

    async def _syntax(
        self, calls: list[ToolCall], results: dict[str, ToolResult]
    ) -> dict[str, str]:
        """The syntax check of the files the turn's calls changed, added to the result of the
        last call that changed one (`edits.syntax_check`)."""
        changing = [c.id for c in calls if c.id in results and results[c.id].files_changed]
        if not changing:
            return {}
        files = [f for i in changing for f in results[i].files_changed]
        root, messages = self.agent.ctx.workspace.root, self.agent.messages
        said = await off_loop(syntax_check.report, root, files, messages)
        return {changing[-1]: f"\n\n{said}"} if said else {}

    def refuse(self, calls: list[ToolCall], emit: ev.Emit) -> None:
        """A reply cut at max_tokens: its calls are answered, never run half-formed."""
        emit(
            ev.Notice(
                agent=self.agent.name,
                text="output cut at max_tokens: its tool calls were not run",
                level="warning",
            )
        )
        for call in calls:
            self.agent.messages.append(
                {"role": "tool", "tool_call_id": call.id, "content": CUT_CALL}
            )

    async def _run_batch(
        self, batch: list[ToolCall], results: dict[str, ToolResult], run: RunContext
    ) -> None:
        if not batch:
            return
        outcomes = await asyncio.gather(*(self.run_one(c, run) for c in batch))
        results.update(zip((c.id for c in batch), outcomes, strict=True))

    async def run_one(self, call: ToolCall, run: RunContext) -> ToolResult:
        """One call through the registry, framed by its events."""
        agent = self.agent
        args = parse_arguments(call.arguments)
        shown = args if isinstance(args, dict) else {}
        detail = agent.registry.detail(call.name, shown)
        self.started.add(call.id)
        run.emit(
            ev.ToolCallRunning(
                agent=agent.name, call_id=call.id, name=call.name, args=shown, detail=detail
            )
        )
        refusal = agent.runaways.repeated_call(call, agent.name, run.emit)
        if refusal is not None:
            result = ToolResult.error(refusal)
        else:
            ctx = replace(agent.ctx, run=run, call_id=call.id)  # delegations link their record
            result = await agent.registry.call(call, ctx, run.approver)
        changed = agent.files_changed
        changed.extend(f for f in result.files_changed if f not in changed)
        run.emit(
            ev.ToolCallFinished(
                agent=agent.name,
                call_id=call.id,
                name=call.name,
                args=shown,
                ok=result.ok,
                summary=result.summary,
                output=result.output,
                diff=result.diff,
                detail=detail,
                malformed=result.malformed,
                origin=call.origin,
            )
        )
        return result

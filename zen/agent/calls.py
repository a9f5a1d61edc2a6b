"""Running one turn's tool calls: consecutive read-only calls together, the rest in order, each
through the registry and framed by its events. An edit block is a `Step`: planned when its turn
comes, it runs its call through the same door (`one`).

The loop (`Agent._run_calls`) owns what surrounds them: the checkpoints, the result messages in
call order, and an answer for every call when the run is cancelled midway. This knows only what
running a call needs, given to it: the agent's name, registry, tool context and runaways, and
the list of files its run changed, kept as calls finish (so a failed run still tells).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import replace

from zen.agent.protocols.base import Call, Step
from zen.agent.runaway import Runaways
from zen.base import events as ev
from zen.llm.types import ToolCall
from zen.tools.base import RunContext, ToolContext, ToolResult
from zen.tools.registry import ToolRegistry, parse_arguments


class Calls:
    def __init__(
        self,
        agent: str,
        registry: ToolRegistry,
        ctx: ToolContext,
        runaways: Runaways,
        changed: list[str],
    ) -> None:
        self.agent, self.registry, self.ctx, self.runaways = agent, registry, ctx, runaways
        self.changed = changed
        self.started: set[str] = set()
        """Calls of the current turn that began to run (for the cancellation message)."""
        self.outcomes: list[ToolResult] = []
        """The current turn's results through the door, an edit block's calls included (its
        step's result is a line of its own: a declined edit would not show there)."""

    async def run(
        self, calls: Sequence[Call], run: RunContext, results: dict[str, ToolResult]
    ) -> None:
        """Run `calls` into `results` (by id): consecutive read-only calls side by side, the
        rest one at a time, in order. Cancelled, `results` holds those that finished."""
        self.started, self.outcomes = set(), []
        batch: list[ToolCall] = []
        for call in calls:
            if isinstance(call, ToolCall) and self.registry.is_read_only(call):
                batch.append(call)
                continue
            await self._batch(batch, run, results)
            batch = []
            if isinstance(call, Step):
                results[call.id] = await call.run(lambda c: self.one(c, run))
            else:
                await self._batch([call], run, results)
        await self._batch(batch, run, results)

    async def _batch(
        self, batch: list[ToolCall], run: RunContext, results: dict[str, ToolResult]
    ) -> None:
        if batch:
            outcomes = await asyncio.gather(*(self.one(c, run) for c in batch))
            results.update(zip((c.id for c in batch), outcomes, strict=True))

    async def one(self, call: ToolCall, run: RunContext, model: bool = True) -> ToolResult:
        """One call through the registry, framed by its events (edit blocks come this way);
        a call repeated `loop_limit` times in a row is refused, not run. `model`: the model
        asked for it (zen's own, such as the test command, is no part of its runaways)."""
        args = parse_arguments(call.arguments)
        shown = args if isinstance(args, dict) else {}
        detail = self.registry.detail(call.name, shown)
        self.started.add(call.id)
        run.emit(
            ev.ToolCallRunning(
                agent=self.agent, call_id=call.id, name=call.name, args=shown, detail=detail
            )
        )
        refusal = self.runaways.repeated_call(call, self.agent, run.emit) if model else None
        if refusal is not None:
            result = ToolResult.error(refusal)
        else:
            ctx = replace(self.ctx, run=run, call_id=call.id)  # delegations link their record
            result = await self.registry.call(call, ctx, run.approver)
        self.changed.extend(f for f in result.files_changed if f not in self.changed)
        self.outcomes.append(result)
        run.emit(
            ev.ToolCallFinished(
                agent=self.agent,
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

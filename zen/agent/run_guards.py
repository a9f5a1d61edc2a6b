"""What stands around one task of the top agent: the user's prompt hooks before it, the time
and budget limits while it runs.

The hooks may add context to the task or block it before the model is called; the limits
cancel a running task the way Ctrl-C does (its calls closed, its partial answer kept), then
say which limit stopped it; waits meanwhile say the limit's end when it comes first.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Coroutine
from typing import Any

from zen.agent.loop import RunResult
from zen.agent.session_models import SessionModels
from zen.base import events as ev
from zen.tools.hooks import Hooks


class RunLimit(Exception):
    """The task reached a limit the user set: one line for the user. Not an `LLMError`: the
    model did not fail, and retrying would not help."""


class TimeLimit(RunLimit):
    """The task ran out of its time (`max_time`): one line, exit 4 in `-p`."""


class BudgetLimit(RunLimit):
    """The task cost more than `max_budget_usd`: one line, its own exit code in `-p`."""


class PromptHooks:
    """The user's SessionStart and UserPromptSubmit hooks, before each task."""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        self.start: str | None = "startup"
        """SessionStart hooks fire before the next task with this source; None: they have."""

    async def __call__(self, task: str, emit: ev.Emit, agent: str) -> str | None:
        """The task with what the hooks add, or None when a hook blocked the prompt (the
        model is not called)."""
        hooks, context = self.hooks, []
        if not hooks:
            return task
        if self.start and hooks.wants("SessionStart"):
            said = await hooks.run("SessionStart", emit, agent, source=self.start)
            context += said.context
        self.start = None
        if hooks.wants("UserPromptSubmit"):
            said = await hooks.run("UserPromptSubmit", emit, agent, prompt=task)
            if said.block:
                emit(
                    ev.Notice(
                        agent=agent,
                        text=f"prompt blocked by a hook: {said.reason}",
                        level="warning",
                    )
                )
                return None
            context += said.context
        return "\n\n".join([task, *context])


def capped_waits(emit: ev.Emit, max_time: float | None) -> ev.Emit:
    """Waits say when they give up; under `max_time` that is the task's end when it comes
    sooner (a 3 s task must not say "giving up after 300s")."""
    if max_time is None:
        return emit
    loop = asyncio.get_running_loop()
    deadline = loop.time() + max_time

    def capped(event: ev.Event) -> None:
        if isinstance(event, ev.Waiting) and event.what != "retry":
            end = event.elapsed + max(0.0, deadline - loop.time())
            if end < event.limit:
                event = dataclasses.replace(event, limit=float(round(end)))
        emit(event)

    return capped


class RunLimits:
    """`max_time` and `max_budget_usd` for one task: past either, the run is cancelled the way
    Ctrl-C cancels it (its calls closed, its partial answer kept), then `stopped()` says
    which limit stopped it. With a limit set the run goes in a task of its own, so the
    cancellation is the limit's alone (`models` counts the cost and calls the stop)."""

    def __init__(self, models: SessionModels) -> None:
        self.models = models
        self.why = ""
        self.limit, self.budget = models.config.max_time, models.config.max_budget_usd
        self._handle: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        """The loop time `max_time` ends at, set by the first `start`."""

    def start(self, run: Coroutine[Any, Any, RunResult]) -> Awaitable[RunResult]:
        """`run`, to await: as it is, or in a task the limits can cancel (a task in two runs,
        an escalated one, calls this twice: the deadline is the first call's)."""
        limit, budget = self.limit, self.budget
        if limit is None and budget is None:
            return run
        task = asyncio.ensure_future(run)

        def stop(reason: str) -> None:
            self.why = self.why or reason
            task.cancel()

        if limit is not None:  # a second part of the task (an escalation) keeps its deadline
            loop = asyncio.get_running_loop()
            self._deadline = self._deadline or loop.time() + limit
            if self._handle is not None:
                self._handle.cancel()
            self._handle = loop.call_at(self._deadline, stop, "time")
        self.models.stop_run = stop if budget is not None else None
        return task

    def stopped(self) -> RunLimit | None:
        """After the run was cancelled: the error naming the limit that stopped it, or None
        when it was not (only) a limit (Ctrl-C: the cancellation goes on)."""
        me = asyncio.current_task()
        if not self.why or (me is not None and getattr(me, "cancelling", lambda: 0)()):
            return None
        if self.why == "budget":
            return BudgetLimit(
                f"stopped after spending ${self.models.run_cost or 0:.4f} (max_budget_usd "
                f"${self.budget:g}; raise it with --max-budget-usd)"
            )
        return TimeLimit(f"stopped after {self.limit:g} s (max_time; raise it with --max-time)")

    def end(self) -> None:
        self.models.stop_run = None
        if self._handle is not None:
            self._handle.cancel()

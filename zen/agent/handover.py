"""Dual mode with one model: a direct run that grew long becomes orchestrated.

With one model for every role, delegating buys no cheaper tokens, so a task triage can call
neither a question nor small starts direct: the single agent's prompt and tools, on the
session's conversation, exactly as single mode would run it. Only evidence turns it into
orchestration: before a request, the conversation holds more than `ESCALATE_AT` of the window
(`Opening.escalate_at`; the loop ends the run `escalated`). Then, once per task:

1. a compaction (`Compactor.compact(run, "handover")`, one counted request) writes what the
   run learned into the memo as the `task:*` and `file:*` notes every compaction writes, and
   restarts the conversation from them alone: the raw reads are gone;
2. the user sees `triage: direct → large`;
3. the Orchestrator takes the conversation over (its own system prompt and tools: one
   uncached prefix, counted like any request), told the task is now orchestrated, and
   delegates the rest to the Coder as on the large path.

The Orchestrator then holds the session's conversation; the next task is triaged again, and a
direct one is the single agent's once more (`Session`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from zen.agent.loop import Agent, Opening, RunResult
from zen.agent.triage import LINES, Decision, asks_for_change
from zen.tools.base import RunContext


async def orchestrate(
    direct: Agent,
    done: RunResult,
    decision: Decision,
    task: str,
    run: RunContext,
    orchestrator: Callable[[], Agent],
) -> tuple[Decision, RunResult]:
    """The rest of `task` after the direct agent's run ended `escalated` (`done`): its notes to
    the memo, the line shown, the Orchestrator's run (`orchestrator` builds it on the same
    conversation). The escalated decision, and the task's result across both runs."""
    later = replace(decision, escalated=True)
    if direct.compactor is not None:
        await direct.compactor.compact(run, "handover")
    agent = orchestrator()
    run.emit(later.event(agent.name))
    wanted = asks_for_change(task) and not done.files_changed  # the direct run's count too
    result = await agent.run(task, run, Opening(note=LINES["escalated"]), wanted)
    files = list(dict.fromkeys([*done.files_changed, *result.files_changed]))
    return later, replace(result, turns=done.turns + result.turns, files_changed=files)

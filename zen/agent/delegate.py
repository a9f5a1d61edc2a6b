"""Run a fresh agent on one task and hand back what it did.

The dual mode's Coder and spawn-agents' sub-agents are both delegates: each has its role's
system prompt and tools, its own ReadTracker, the shared memo, and one user message. The tools
that delegate get a `Crew` from their run, which makes the delegates (the session builds it, so
delegation never reaches back into the session). What comes back is a `Delegation`: the final
report, the files changed and the memo keys the delegate's run wrote (the memo is shared, so
those keys are how the caller finds its notes; entries record the run that wrote them, so a
later delegate that only reads a file is never credited with another's note about it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from zen.base import events as ev
from zen.stores.memo import MemoStore
from zen.tools.base import Approver, Delegation, RunContext

if TYPE_CHECKING:
    from zen.agent.loop import Agent
    from zen.agent.roles import Role


class MakeAgent(Protocol):
    def __call__(self, role: Role, name: str, call_id: str = "") -> Agent:
        """A fresh agent of `role` named `name`, its messages saved as a child record of the
        session, linked to the tool call `call_id` that started it."""
        ...


@dataclass(frozen=True)
class Crew:
    """What a run hands the tools that delegate (`send-to-coder`, `spawn-agents`): how to make
    a delegate, the memo it shares, and where the run's events and approvals go."""

    make: MakeAgent
    memo: MemoStore
    emit: ev.Emit
    approver: Approver


async def run_delegate(
    agent: Agent, memo: MemoStore, message: str, run: RunContext, change: bool = False
) -> Delegation:
    """Run `agent` to the end; its turn limit is a failed delegation, not an exception.
    `change`: its task asks for a change (`Agent.run`)."""
    result = await agent.run(message, run, change=change)
    keys = memo.written_by(run.id)
    unchanged = result.changed_nothing
    if result.stop == "max_turns":
        report = f"Hit its turn limit ({agent.max_turns}) before finishing."
        return Delegation(report, result.files_changed, keys, ok=False, changed_nothing=unchanged)
    return Delegation(result.text, result.files_changed, keys, changed_nothing=unchanged)

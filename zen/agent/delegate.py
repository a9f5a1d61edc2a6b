"""Run a fresh agent on one task and hand back what it did.

The dual mode's Coder and spawn-agents' sub-agents are both delegates: built from the session
with their own system prompt, tools and ReadTracker, the shared memo, and one user message.
What comes back is a `Delegation`: the final report, the files changed and the memo keys the
delegate wrote (the memo is shared, so those keys are how the caller finds its notes).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from zen import events as ev
from zen.agent.loop import Agent
from zen.tools.base import Approver, Delegation

if TYPE_CHECKING:
    from zen.agent.prompt import PromptFacts
    from zen.agent.session import Session


def build_delegate(
    session: Session,
    name: str,
    *,
    model_role: str,
    tools: list[str],
    prompt: Callable[[PromptFacts], str],
    emit: ev.Emit,
    approver: Approver,
    call_id: str = "",
) -> Agent:
    """`prompt` builds the system prompt from the session's facts (again after a compaction,
    which re-reads the project instructions): a delegate near its window compacts too. Its
    messages are saved as a child record of the session, linked to the tool call that
    started it."""
    return Agent(
        name,
        session.client(model_role),
        session.registry(tools),
        session.context(name, emit),
        prompt(session.facts),
        max_turns=session.config.coder_max_turns,
        approver=approver,
        log=session.child_log(name, call_id),
        context=session.context_policy(model_role, prompt),
    )


async def run_delegate(agent: Agent, session: Session, message: str) -> Delegation:
    """Run `agent` to the end; its turn limit is a failed delegation, not an exception."""
    started = time.time()
    result = await agent.run(message)
    keys = memo_keys(session, agent.name, started)
    if result.stop == "max_turns":
        report = f"Hit its turn limit ({agent.max_turns}) before finishing."
        return Delegation(report, result.files_changed, keys, ok=False)
    return Delegation(result.text, result.files_changed, keys)


def memo_keys(session: Session, author: str, since: float) -> list[str]:
    return [e.key for e in session.memo.index() if e.author == author and e.time >= since]

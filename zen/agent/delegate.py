"""Run a fresh agent on one task and hand back what it did.

The dual mode's Coder and spawn-agents' sub-agents are both delegates: built from the session
with their role's system prompt and tools, their own ReadTracker, the shared memo, and one user
message. What comes back is a `Delegation`: the final report, the files changed and the memo
keys the delegate's run wrote (the memo is shared, so those keys are how the caller finds its
notes; entries record the run that wrote them, so a later delegate that only reads a file is
never credited with another's note about it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zen.agent.loop import Agent
from zen.tools.base import Delegation, RunContext

if TYPE_CHECKING:
    from zen.agent.roles import Role
    from zen.agent.session import Session


def build_delegate(session: Session, role: Role, name: str, *, call_id: str = "") -> Agent:
    """An agent of `role` named `name`. Its system prompt is rebuilt from the session's facts
    after a compaction (which re-reads the project instructions): a delegate near its window
    compacts too. Its messages are saved as a child record of the session, linked to the tool
    call that started it."""
    model = session.model_role(role)
    names = role.tool_names(session.collaboration)
    prompt = session.prompt_builder(role, names)
    return Agent(
        name,
        session.client(model),
        session.registry(names),
        session.context(name),
        prompt(session.facts),
        max_turns=role.max_turns(session.config),
        top=role.top,
        log=session.child_log(name, call_id),
        context=session.context_policy(model, prompt),
    )


async def run_delegate(agent: Agent, session: Session, message: str, run: RunContext) -> Delegation:
    """Run `agent` to the end; its turn limit is a failed delegation, not an exception."""
    result = await agent.run(message, run)
    keys = session.memo.written_by(run.id)
    if result.stop == "max_turns":
        report = f"Hit its turn limit ({agent.max_turns}) before finishing."
        return Delegation(report, result.files_changed, keys, ok=False)
    return Delegation(result.text, result.files_changed, keys)

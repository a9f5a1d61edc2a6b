"""Dual mode: each `send-to-coder` call runs a fresh Coder.

The Coder starts from its own system prompt and one user message (the task, the optional
context and the memo index); the Orchestrator's history never reaches it. It shares the
session's memo but keeps its own ReadTracker, so it must read a file itself before editing it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zen import events as ev
from zen.agent.delegate import build_delegate, run_delegate
from zen.agent.prompt import system_prompt
from zen.agent.roles import CODER
from zen.prompts import load_prompt, render
from zen.tools.base import Approver, Delegation

if TYPE_CHECKING:
    from zen.agent.session import Session


class CoderDelegator:
    def __init__(self, session: Session, emit: ev.Emit, approver: Approver) -> None:
        self.session = session
        self.emit = emit
        self.approver = approver

    async def __call__(self, task: str, context: str | None) -> Delegation:
        session = self.session
        mode = session.collaboration
        coder = build_delegate(
            session, "coder", model_role="coder", tools=CODER[mode],
            # No planning layer: a Coder's task is one step of the Orchestrator's plan.
            prompt=lambda facts: system_prompt("coder", facts, variant=mode),
            emit=self.emit, approver=self.approver,
        )
        message = render(
            load_prompt("coder-task"),
            task=task.strip(),
            context=f"Context:\n{context.strip()}\n" if context and context.strip() else "",
            memo=session.memo.index_text() or "(empty)",
        )
        return await run_delegate(coder, session, message)

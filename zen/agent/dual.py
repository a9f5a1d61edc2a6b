"""Dual mode: each `send-to-coder` call runs a fresh Coder.

The Coder starts from its own system prompt and one user message: the task, the optional
context, the notes that concern the task in full (`plan:*` entries and the `file:*` notes of
the files the task names) and the index of the rest of the memo. The Orchestrator's history
never reaches it. With the notes in hand it reads only the lines it edits instead of whole
files. It shares the session's memo but keeps its own ReadTracker, so it must still read a
file itself before editing it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from zen import events as ev
from zen.agent.delegate import build_delegate, run_delegate
from zen.agent.prompt import system_prompt
from zen.agent.roles import CODER
from zen.prompts import load_prompt, render
from zen.stores.memo import AUTO, MemoEntry, MemoStore
from zen.tools.base import Approver, Delegation

if TYPE_CHECKING:
    from zen.agent.session import Session


class CoderDelegator:
    def __init__(self, session: Session, emit: ev.Emit, approver: Approver) -> None:
        self.session = session
        self.emit = emit
        self.approver = approver

    async def __call__(self, task: str, context: str | None, call_id: str = "") -> Delegation:
        session = self.session
        mode = session.collaboration
        coder = build_delegate(
            session, "coder", model_role="coder", tools=CODER[mode],
            # No planning layer: a Coder's task is one step of the Orchestrator's plan.
            prompt=lambda facts: system_prompt("coder", facts, variant=mode),
            emit=self.emit, approver=self.approver, call_id=call_id,
        )
        context = context.strip() if context else ""
        notes = task_notes(session.memo, f"{task}\n{context}")
        rest = [e for e in session.memo.index() if e not in notes]
        message = render(
            load_prompt("coder-task"),
            task=task.strip(),
            context=f"Context:\n{context}\n" if context else "",
            notes="Notes for this task:\n" + "".join(
                f"[{e.key}]\n{e.content.strip()}\n" for e in notes) if notes else "",
            memo="\n".join(e.line() for e in rest) or "(empty)",
        )
        return await run_delegate(coder, session, message)


def task_notes(memo: MemoStore, text: str) -> list[MemoEntry]:
    """What the Coder gets in full: every `plan:*` entry, and the `file:*` notes an agent wrote
    about a file the task or its context names (raw auto-memo excerpts stay in the index)."""
    chosen = []
    for entry in memo.index():
        if entry.key.startswith("plan:"):
            chosen.append(entry)
        elif entry.key.startswith("file:") and entry.author != AUTO:
            path = re.escape(entry.key[len("file:"):])
            if re.search(rf"(?<![\w./-]){path}(?![\w/-])", text):
                chosen.append(entry)
    return chosen

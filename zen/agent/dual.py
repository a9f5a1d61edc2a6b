"""Dual mode: each `send-to-coder` call runs a fresh Coder.

The Coder starts from its own system prompt and one user message: the task, the optional
context, the notes that concern the task in full (`plan:*` entries and the `file:*` notes of
the files the task names) and the index of the rest of the memo. The Orchestrator's history
never reaches it. With the notes in hand it reads only the lines it edits instead of whole
files. It shares the session's memo but keeps its own ReadTracker, so it must still read a
file itself before editing it.

Each Coder run is a transaction when checkpoints are on: a snapshot before it runs, whose id
the result carries. `revert-coder` restores the files to that snapshot and writes an
`attempt:<n>` memo note (what was tried, why it was rejected); the next Coder gets the note in
full with its task, so it does not repeat the attempt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from zen.agent.delegate import build_delegate, run_delegate
from zen.agent.roles import CODER
from zen.base import events as ev
from zen.base.text import clip
from zen.settings.prompts import load_prompt, render
from zen.stores.memo import AUTO, MemoEntry, MemoStore
from zen.tools.base import Approver, Delegation, RunContext, ToolResult

if TYPE_CHECKING:
    from zen.agent.session import Session

NOTE_LIMIT = 160
"""Characters of the task and of the reason in an attempt's one-line summary."""


@dataclass(frozen=True)
class Attempt:
    task: str
    delegation: Delegation


class CoderDelegator:
    """The Orchestrator's `send-to-coder` and `revert-coder` for one of its runs (`run`: that
    run's id, which the attempt notes it writes record)."""

    def __init__(self, session: Session, emit: ev.Emit, approver: Approver, run: str) -> None:
        self.session = session
        self.emit = emit
        self.approver = approver
        self.run = run

    async def __call__(self, task: str, context: str | None, call_id: str = "") -> Delegation:
        session = self.session
        coder = build_delegate(session, CODER, CODER.name, call_id=call_id)
        context = context.strip() if context else ""
        notes = task_notes(session.memo, f"{task}\n{context}")
        rest = [e for e in session.memo.index() if e not in notes]
        message = render(
            load_prompt("coder-task"),
            task=task.strip(),
            context=f"Context:\n{context}\n" if context else "",
            notes="Notes for this task:\n"
            + "".join(f"[{e.key}]\n{e.content.strip()}\n" for e in notes)
            if notes
            else "",
            memo="\n".join(e.line() for e in rest) or "(empty)",
        )
        checkpoint = await self._checkpoint()
        run = RunContext(emit=self.emit, approver=self.approver)
        done = await run_delegate(coder, session, message, run)
        if checkpoint is None:
            return done
        done = replace(done, checkpoint=checkpoint)
        session.coder_runs[checkpoint] = Attempt(task.strip(), done)
        return done

    async def _checkpoint(self) -> str | None:
        run = self.session.current_run
        if run is None:
            return None
        taken = await run.record("coder")
        return taken.id if taken else None

    async def revert(self, checkpoint: str, reason: str) -> ToolResult:
        session = self.session
        attempt = session.coder_runs.get(checkpoint.strip())
        store = session.checkpoints
        target = store.find(checkpoint) if store else None
        if store is None or attempt is None or target is None:
            known = ", ".join(session.coder_runs) or "none"
            return ToolResult.error(f"no Coder checkpoint {checkpoint!r} (this session's: {known})")
        from zen.checkpoints.safe_git import CheckpointError

        try:
            plan = await store.plan(target)
            restored = await store.apply(plan, skip=set(plan.conflicts), run=session.run_id)
        except (CheckpointError, OSError) as exc:
            return ToolResult.error(f"could not restore the files: {exc}")
        session.attempts += 1
        key = f"attempt:{session.attempts}"
        files = ", ".join(attempt.delegation.files_changed) or "none"
        session.memo.write(
            key,
            f"Task: {attempt.task}\nFiles it changed: {files}\n"
            f"Its report: {attempt.delegation.report.strip()}\nRejected because: {reason}",
            f"tried: {_short(attempt.task)}; rejected: {_short(reason)}",
            session.role,
            run=self.run,
        )
        lines = [
            f"Restored {len(restored)} file(s) to before that Coder ran: "
            + (", ".join(restored) or "nothing had changed")
        ]
        if plan.conflicts:
            lines.append("Kept, changed outside zen since: " + ", ".join(plan.conflicts))
        lines.append(f"memo {key} records the attempt for the next Coder.")
        return ToolResult(
            True,
            "\n".join(lines),
            f"reverted {len(restored)} file(s), {key}",
            files_changed=restored,
        )


def _short(text: str) -> str:
    line = " ".join(text.split())
    return clip(line, NOTE_LIMIT)


def task_notes(memo: MemoStore, text: str) -> list[MemoEntry]:
    """What the Coder gets in full: every `plan:*` entry, and the `file:*` notes an agent wrote
    about a file the task or its context names (raw auto-memo excerpts stay in the index)."""
    chosen = []
    for entry in memo.index():
        if entry.key.startswith(("plan:", "attempt:")):
            chosen.append(entry)
        elif entry.key.startswith("file:") and entry.author != AUTO:
            path = re.escape(entry.key[len("file:") :])
            if re.search(rf"(?<![\w./-]){path}(?![\w/-])", text):
                chosen.append(entry)
    return chosen

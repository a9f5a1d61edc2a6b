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
from dataclasses import dataclass, field, replace

from zen.agent.checkpointing import RunCheckpoints
from zen.agent.delegate import Crew, run_delegate
from zen.agent.roles import CODER
from zen.agent.triage import asks_for_change
from zen.base.text import clip
from zen.settings.prompts import load_prompt, render
from zen.stores.memo import AUTO, MemoEntry, MemoStore
from zen.tools.base import Delegation, RunContext, ToolResult

NOTE_LIMIT = 160
"""Characters of the task and of the reason in an attempt's one-line summary."""


@dataclass(frozen=True)
class Attempt:
    task: str
    delegation: Delegation


@dataclass
class CoderLedger:
    """The session's Coder runs, kept across its tasks."""

    runs: dict[str, Attempt] = field(default_factory=dict)
    """Each Coder run by the checkpoint taken before it."""
    attempts: int = 0
    """Coder attempts the Orchestrator rejected (the memo's `attempt:<n>` notes)."""


class CoderDelegator:
    """The Orchestrator's `send-to-coder` and `revert-coder` for one of its runs (`run`: that
    run's id, which the attempt notes it writes record; `frame`: its checkpoints, when on;
    `agent`: the Orchestrator's name, the notes' author)."""

    def __init__(
        self, crew: Crew, ledger: CoderLedger, frame: RunCheckpoints | None, run: str, agent: str
    ) -> None:
        self.crew = crew
        self.ledger = ledger
        self.frame = frame
        self.run = run
        self.agent = agent

    async def __call__(self, task: str, context: str | None, call_id: str = "") -> Delegation:
        crew = self.crew
        coder = crew.make(CODER, CODER.name, call_id)
        context = context.strip() if context else ""
        notes = task_notes(crew.memo, f"{task}\n{context}")
        rest = [e for e in crew.memo.index() if e not in notes]
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
        run = RunContext(emit=crew.emit, approver=crew.approver)
        done = await run_delegate(coder, crew.memo, message, run, asks_for_change(task))
        if checkpoint is None:
            return done
        done = replace(done, checkpoint=checkpoint)
        self.ledger.runs[checkpoint] = Attempt(task.strip(), done)
        return done

    async def _checkpoint(self) -> str | None:
        if self.frame is None:
            return None
        taken = await self.frame.record("coder")
        return taken.id if taken else None

    async def revert(self, checkpoint: str, reason: str) -> ToolResult:
        ledger = self.ledger
        attempt = ledger.runs.get(checkpoint.strip())
        frame = self.frame
        store = frame.store if frame is not None else None
        target = store.find(checkpoint) if store else None
        if frame is None or store is None or attempt is None or target is None:
            known = ", ".join(ledger.runs) or "none"
            return ToolResult.error(f"no Coder checkpoint {checkpoint!r} (this session's: {known})")
        from zen.checkpoints.safe_git import CheckpointError

        try:
            plan = await store.plan(target)
            restored = await store.apply(plan, skip=set(plan.conflicts), run=frame.run)
        except (CheckpointError, OSError) as exc:
            return ToolResult.error(f"could not restore the files: {exc}")
        ledger.attempts += 1
        key = f"attempt:{ledger.attempts}"
        files = ", ".join(attempt.delegation.files_changed) or "none"
        self.crew.memo.write(
            key,
            f"Task: {attempt.task}\nFiles it changed: {files}\n"
            f"Its report: {attempt.delegation.report.strip()}\nRejected because: {reason}",
            f"tried: {_short(attempt.task)}; rejected: {_short(reason)}",
            self.agent,
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

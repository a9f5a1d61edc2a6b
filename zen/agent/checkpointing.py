"""Checkpoints around a run's turns: a snapshot before and after every turn that may change
files, so any of them can be rewound.

A snapshot that fails (no space, git timed out) is one warning, once per session; the run goes
on, because losing a checkpoint is better than losing the user's task.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from zen.base import events as ev
from zen.base.preamble import label as said
from zen.base.redaction import scrub
from zen.checkpoints.safe_git import CheckpointError

if TYPE_CHECKING:
    from zen.checkpoints.store import Checkpoint, CheckpointStore


class RunCheckpoints:
    """The checkpoints of one run (one user message); the loop calls `before` and `after`."""

    def __init__(
        self,
        store: CheckpointStore,
        emit: ev.Emit,
        label: str,
        agent: str,
        warned: list[bool],
        run: str,
        session: str = "",
    ) -> None:
        self.store = store
        self.emit = emit
        self.label = scrub(said(label))  # the task's words, kept on disk with the checkpoint
        self.agent = agent
        self.run = run
        """The run's id (`RunContext.id`), shared by its checkpoints and its memo notes."""
        self.session = session
        """The saved session's id, recorded with each checkpoint (`zen diff`)."""
        self.first: Checkpoint | None = None
        self.last: Checkpoint | None = None
        self._warned = warned
        """Shared by the session's runs: one warning per session is enough."""

    async def before(self) -> None:
        checkpoint = await self.record("before")
        if self.first is None:
            self.first = checkpoint

    async def after(self) -> None:
        self.last = await self.record("after") or self.last

    async def changed(self) -> list[str]:
        """The paths the run's turns changed, however (bash too), from its checkpoints; empty
        if it took none or they cannot be compared."""
        if self.first is None or self.last is None:
            return []
        try:
            return [c.path for c in await self.store.repo.changes(self.first.tree, self.last.tree)]
        except (CheckpointError, OSError):
            return []

    async def record(self, kind: str) -> Checkpoint | None:
        try:
            return await self.store.record(kind, self.run, self.label, self.session)
        except (CheckpointError, OSError) as exc:
            if not self._warned[0]:
                self._warned[0] = True
                self.emit(
                    ev.Notice(
                        agent=self.agent,
                        text=f"checkpoint failed, /undo may not cover this turn: {exc}",
                        level="warning",
                    )
                )
            return None

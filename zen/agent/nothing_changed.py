"""A task that asked for a change and ends with no file changed is not a success (issue 38).

Whether the task asked is triage's rule (`triage.asks_for_change`: an edit verb in the user's
words), decided by the caller, no request. When such a run is about to end with nothing
changed, the agent is told once (`prompts/nothing-changed.md`, with `nudge_unchanged` on) and
gets a turn to act. If it still changes nothing, the run's result says so
(`RunResult.changed_nothing`: `-p`'s JSON, the Coder's report to the Orchestrator) and the
user sees one line.

Not after the user declined a call in the task: the nudge would send the model back to what
they refused (and, in `-p` without `--yes`, to another refusal).

Changed means a file tool's record of writes (a Coder's included), else the run's checkpoints
(what bash changed), when it has them.
"""

from __future__ import annotations

from collections.abc import Iterable

from zen.base import events as ev
from zen.settings.prompts import load_prompt
from zen.tools.base import RunContext, ToolResult

LINE = "the task asked for a change, but no file changed"


class NothingChanged:
    """One agent's watch, reset at each task (`new_run`)."""

    def __init__(self, agent: str, files_changed: list[str], nudge: bool = False) -> None:
        self.agent, self.files_changed = agent, files_changed
        self.nudging = nudge
        """`nudge_unchanged`: tell the agent once before the run ends (off: only report)."""
        self.wanted = self.told = self.declined = False

    def new_run(self, wanted: bool) -> None:
        self.wanted, self.told, self.declined = wanted, False, False

    def saw(self, results: Iterable[ToolResult]) -> None:
        """A turn's call results: one the user declined means no nudge in this task."""
        self.declined |= any(r.summary.startswith("declined: ") for r in results)

    async def nudge(self, run: RunContext) -> str | None:
        """The message that sends the agent back to work once, or None."""
        if not (self.nudging and self.wanted) or self.told or self.declined:
            return None
        if await self._changed(run):
            return None
        self.told = True
        return load_prompt("nothing-changed")

    async def ended(self, run: RunContext) -> bool:
        """Whether the run ends with nothing changed though asked to (said in one line)."""
        if not self.wanted or await self._changed(run):
            return False
        run.emit(ev.Notice(agent=self.agent, text=LINE, level="warning", after_answer=True))
        return True

    async def _changed(self, run: RunContext) -> bool:
        if self.files_changed:
            return True
        frame = run.frame
        changed = getattr(frame, "changed", None)  # the run's checkpoints (`RunCheckpoints`)
        return bool(changed and await changed())

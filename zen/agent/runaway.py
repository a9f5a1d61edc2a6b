"""A run's runaways: a model repeating itself, within one answer or call after call.

The client stops an answer whose end repeats one piece of text (`llm/repetition.py`); the same
call with the same arguments `loop_limit` times in a row is refused, not run. The first runaway
of a run is told to the model once and the run goes on; the second ends it (stop "runaway").
An answer of edit blocks identical to the last one applied is not applied again: it stands as
the answer, and the run ends.

Told, not deleted: Hermes (PR #6784) found that cutting the repeats out of the context works
where a nudge alone fails, but that rewrites the conversation and costs the cached prefix every
turn relies on. Here a runaway answer never enters the conversation (only its text before the
repeats), a refused call gets a result saying why, and a nudge that fails costs one more turn,
not the task's deadline: the second runaway ends the run.
"""

from __future__ import annotations

from zen.base import events as ev
from zen.base.text import clip
from zen.llm.types import ToolCall

ENDS_RUN = 2
"""The runaway that ends a run."""
STREAM_NOTE = (
    "zen stopped your last answer: it kept repeating the same text. Do not write it again; "
    "take the next step another way, or answer briefly."
)
STOP_MARK = "[stopped: the model kept repeating itself]"


class Runaways:
    """Counts one run's runaways, and the run of identical calls in a row."""

    def __init__(self, loop_limit: int) -> None:
        self.loop_limit = loop_limit
        self.count = 0
        self._last: tuple[str, str] | None = None
        self._repeats = 0
        self._blocks = ""
        """The last answer of edit blocks read in this run."""

    def new_run(self) -> None:
        self.count, self._last, self._repeats, self._blocks = 0, None, 0, ""

    @property
    def ended(self) -> bool:
        """The run must end: this was its second runaway."""
        return self.count >= ENDS_RUN

    def repeated_call(self, call: ToolCall, agent: str, emit: ev.Emit) -> str | None:
        """The refusal for a call made `loop_limit` times in a row (a runaway), else None."""
        if not self.loop_limit:
            return None
        signature = (call.name, call.arguments.strip())
        self._repeats = self._repeats + 1 if signature == self._last else 1
        self._last = signature
        if self._repeats < self.loop_limit:
            return None
        self._counted(
            f"the model made the same {clip(call.name, 60)} call {self._repeats} times in a "
            "row: not run (loop_limit)",
            agent,
            emit,
        )
        return (
            f"you made this exact {call.name} call {self._repeats} times in a row; you are "
            "looping. Use the result you already have or try something different."
        )

    def repeated_blocks(self, answer: str, agent: str, emit: ev.Emit) -> bool:
        """True (and said) for the same edit blocks as the last answer: not applied again."""
        answer = answer.strip()
        if answer == self._blocks:
            stop = "the model sent the same blocks again: stopped"
            emit(ev.Notice(agent=agent, text=stop, level="warning"))
            return True
        self._blocks = answer
        return False

    def stopped_answer(self, agent: str, emit: ev.Emit) -> None:
        """The client stopped an answer that repeated itself (finish_reason "repetition")."""
        self._counted(
            "stopped the model's answer: it kept repeating the same text (repeat_limit)",
            agent,
            emit,
        )

    def _counted(self, what: str, agent: str, emit: ev.Emit) -> None:
        self.count += 1
        if self.ended:
            what += "; a second runaway in this task, so the task ends"
        emit(ev.Notice(agent=agent, text=what, level="warning"))

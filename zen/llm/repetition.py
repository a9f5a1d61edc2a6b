"""Runaway output caught while it streams: an answer whose end repeats one piece of text.

Small models fall into loops: the same line, or the same block of lines, until `max_tokens` or
a deadline (4,558 tokens in a row in zen's own bench; a 92-line block 32 times in llama.cpp
#26039). The guard watches each stream of one answer (its text, its reasoning, each call's
arguments) and trips when the stream's end is one piece repeated `limit` times, covering at
least `MIN_SPAN` characters; the client then hangs up instead of reading on. Legitimately
repetitive output is not exactly periodic (a table's rows, a generated file's lines differ
somewhere), and short exact runs (a rule line of dashes) stay under `MIN_SPAN`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from zen.base.events import Event, ReasoningDelta, TextDelta, ToolCallArgsDelta
from zen.llm.types import AssistantTurn

REPETITION = "repetition"
"""The finish_reason zen gives an answer it stopped for repeating itself."""
MIN_SPAN = 2000
"""Characters (~500 tokens) a run of repeats must cover before it counts."""
MAX_PERIOD = 4000
"""The longest repeated piece looked for (a block of ~90 short lines)."""
NEEDLE = 50
"""The end of the stream searched for earlier in it: each earlier place is a candidate period."""
CANDIDATES = 16
CHECK_EVERY = 256
"""Characters of new output between two checks (each check reads at most a window)."""


def repeated_tail(text: str, limit: int) -> tuple[int, int] | None:
    """(start, period) of the run at the end of `text` that repeats one piece at least `limit`
    times over at least `MIN_SPAN` characters; None when the end is no such run."""
    n = len(text)
    if limit < 2 or n < MIN_SPAN:
        return None
    needle = text[n - NEEDLE :]
    end = n - 1
    for _ in range(CANDIDATES):  # nearest first: the shortest period that fits wins
        pos = text.rfind(needle, 0, end)
        if pos < 0:
            return None
        period = n - NEEDLE - pos
        span = max(limit * period, MIN_SPAN)
        if period > MAX_PERIOD or span > n:
            return None
        if text[n - span : n - period] == text[n - span + period :]:
            start = n - span
            while start > 0 and text[start - 1] == text[start - 1 + period]:
                start -= 1
            return start, period
        end = pos + NEEDLE - 1
    return None


@dataclass(frozen=True)
class Trip:
    stream: str
    """"content", "reasoning", or the id of the call whose arguments ran away."""
    start: int
    """Where in that stream the repeats began."""
    period: int


class _Stream:
    def __init__(self) -> None:
        self.pending: list[str] = []
        self.pending_size = 0
        self.tail = ""
        self.size = 0


class RepetitionGuard:
    """Watches one answer's events; `watch` says True once it ran away (see `tripped`)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.window = limit * MAX_PERIOD + NEEDLE
        self.tripped: Trip | None = None
        self._streams: dict[str, _Stream] = {}

    def watch(self, event: Event) -> bool:
        if isinstance(event, TextDelta):
            key, piece = "content", event.text
        elif isinstance(event, ReasoningDelta):
            key, piece = "reasoning", event.text
        elif isinstance(event, ToolCallArgsDelta):
            key, piece = event.call_id, event.delta
        else:
            return False
        s = self._streams.get(key)
        if s is None:
            s = self._streams[key] = _Stream()
        s.pending.append(piece)
        s.pending_size += len(piece)
        if s.pending_size < CHECK_EVERY:
            return False
        s.tail = (s.tail + "".join(s.pending))[-self.window :]
        s.size += s.pending_size
        s.pending, s.pending_size = [], 0
        found = repeated_tail(s.tail, self.limit)
        if found is None:
            return False
        self.tripped = Trip(key, s.size - len(s.tail) + found[0], found[1])
        return True


def stopped_turn(turn: AssistantTurn, trip: Trip) -> AssistantTurn:
    """The turn as the conversation keeps it: the repeats cut off, no calls (their arguments
    are unfinished), finish_reason `REPETITION`."""
    content, reasoning = turn.content, turn.reasoning
    if trip.stream == "content":
        content = content[: trip.start].rstrip()
    elif trip.stream == "reasoning":
        reasoning = reasoning[: trip.start].rstrip()
    return replace(
        turn, content=content, reasoning=reasoning, tool_calls=[], finish_reason=REPETITION
    )

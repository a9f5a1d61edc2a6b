"""Counting a run's tool calls by how they came: the server's native calls, calls recovered
from the model's text, and malformed ones (no such tool, arguments that do not parse or
validate). `zen -p --output-format json` reports the counts, so scripts and `zen bench` can
tell a model that calls tools well from one that needs rescuing."""

from __future__ import annotations

from dataclasses import dataclass, field

from zen.base import events as ev


@dataclass
class CallTally:
    """An emit wrapper: passes every event on and counts finished tool calls, all agents'."""

    inner: ev.Emit
    counts: dict[str, int] = field(
        default_factory=lambda: {"native": 0, "recovered": 0, "malformed": 0}
    )

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.ToolCallFinished):
            if event.malformed:
                self.counts["malformed"] += 1
            elif event.origin == "native":
                self.counts["native"] += 1
            else:
                self.counts["recovered"] += 1
        self.inner(event)

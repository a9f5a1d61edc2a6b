"""Typed events: the only channel from the agent core to the front-ends.

The core never prints. It calls an `Emit` callback with one of these; the one-shot printer,
the JSON streamer and the interactive shell each render them their own way. Every event names
the `agent` that produced it ("main", "orchestrator", "coder", or a sub-agent's description),
so a front-end can nest coder activity under its `send-to-coder` call.

Events are keyword-only (`Notice(agent=..., text=...)`): several carry adjacent strings
(`summary`, `output`, `diff`, `detail`) that positional arguments could swap silently.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True, kw_only=True)
class Event:
    agent: str

    @property
    def kind(self) -> str:
        return type(self).__name__

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, **asdict(self)}


@dataclass(frozen=True, kw_only=True)
class TurnStarted(Event):
    turn: int


@dataclass(frozen=True, kw_only=True)
class TextDelta(Event):
    text: str


@dataclass(frozen=True, kw_only=True)
class ReasoningDelta(Event):
    text: str


@dataclass(frozen=True, kw_only=True)
class ToolCallStarted(Event):
    """The model began a tool call; its arguments are still streaming."""

    call_id: str
    name: str


@dataclass(frozen=True, kw_only=True)
class ToolCallArgsDelta(Event):
    call_id: str
    name: str
    delta: str


@dataclass(frozen=True, kw_only=True)
class ToolCallRunning(Event):
    """The call's arguments are complete and it is about to execute."""

    call_id: str
    name: str
    args: dict[str, Any]
    detail: str = ""
    """What the call is about, as its tool puts it (`*.py in src`, the command)."""


@dataclass(frozen=True, kw_only=True)
class ToolCallFinished(Event):
    call_id: str
    name: str
    args: dict[str, Any]
    ok: bool
    summary: str
    output: str
    diff: str = ""
    detail: str = ""
    origin: str = "native"
    """"native": the server's tool call; "text": recovered from the model's text."""
    malformed: bool = False
    """The call named no known tool or its arguments failed to parse or validate."""


@dataclass(frozen=True, kw_only=True)
class MemoWritten(Event):
    """An agent (not auto-memo) wrote a memo entry; its summary is for the user."""

    key: str
    summary: str


@dataclass(frozen=True, kw_only=True)
class Usage(Event):
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int = 0
    estimated: bool = False
    """The server sent no usage; these are zen's estimate (UTF-8 bytes / 4)."""
    cost_usd: float | None = None
    """What this request cost, when the model's price is known (zen/llm/pricing.py)."""


@dataclass(frozen=True, kw_only=True)
class Retrying(Event):
    attempt: int
    delay: float
    reason: str
    """Why the attempt failed, or "the same error" when it repeats the previous attempt's."""


@dataclass(frozen=True, kw_only=True)
class Waiting(Event):
    """zen has been waiting `elapsed` seconds (of at most `limit`) on `what`; sent about once
    a second once a wait passes two seconds, so front-ends can say what is slow."""

    what: str
    elapsed: float
    limit: float


@dataclass(frozen=True, kw_only=True)
class TurnEnded(Event):
    turn: int
    text: str
    tool_calls: int
    finish_reason: str = ""


@dataclass(frozen=True, kw_only=True)
class Compacting(Event):
    """The model is writing the task's state into the memo (a live line, not a log line)."""


@dataclass(frozen=True, kw_only=True)
class Compacted(Event):
    """The conversation was compacted: one log line, `compacted: 91,400 → 12,800 tokens`."""

    before: int
    after: int
    memo_keys: int
    """Memo entries after a memo compaction; 0 when only old tool outputs were dropped."""
    reason: str = "auto"
    """auto (the threshold), overflow (the server said too long), manual (/compact) or
    handover (a direct run became orchestrated, `agent/handover.py`)."""

    @property
    def line(self) -> str:
        keys = f"{self.memo_keys} key{'' if self.memo_keys == 1 else 's'}"
        how = f"memo: {keys}" if self.memo_keys else "old tool outputs dropped"
        done = "compacted" if self.after < self.before else "compacted, but no shorter"
        return f"{done}: {self.before:,} → {self.after:,} tokens ({how})"


@dataclass(frozen=True, kw_only=True)
class Notice(Event):
    """A one-line note for the user (a warning, a mode switch, a server that failed)."""

    text: str
    level: str = "info"
    after_answer: bool = False
    """Advice about the run (the server dropped the tools): front-ends show it once the
    answer is on screen, never between its lines."""


@dataclass(frozen=True, kw_only=True)
class Triaged(Notice):
    """Dual mode's triage of a task (`text` is its one line): `path` is `question`, `small`,
    `direct` or `large`; `escalated`: the small path failed, or the direct run grew long, and
    the task went to the large one."""

    path: str
    files: tuple[str, ...] = ()
    escalated: bool = False


@dataclass(frozen=True, kw_only=True)
class SandboxUnavailable(Notice):
    """`auto` found no working sandbox, so bash commands run unsandboxed: said to the user
    once (the model reads it in the command's result), with `text` saying why."""

    level: str = "warning"


@dataclass(frozen=True, kw_only=True)
class Error(Event):
    message: str


Emit = Callable[[Event], None]


def ignore(_event: Event) -> None:
    """An Emit that drops everything (for agents nobody watches)."""


@dataclass
class EventLog:
    """An Emit that keeps every event: for tests and for `--output-format json`."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        self.events.append(event)

"""The conversation with the top agent: its messages (one `Transcript`, held here and nowhere
else), the user's turns in it, the files read in it, and the agent that continues it.

The agent is built at the next message that needs it (`build`) and dropped (`reset`) when the
agent mode, collaboration, work mode or a model changes: the conversation and its reads stay,
and the rebuilt agent works on the same transcript.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zen.agent.context import ContextSplit, Window, split
from zen.agent.loop import Agent
from zen.agent.protocols.edit_blocks import from_zen
from zen.agent.transcript import Transcript
from zen.base.preamble import asked, words
from zen.stores.read_tracker import ReadTracker


@dataclass(frozen=True)
class Turn:
    """One user message of this session: where it starts in the history, and its run's
    checkpoints (`run` is empty when checkpoints are off or the message came from a resumed
    session); `label` is what the user asked, without the facts framed before it."""

    index: int
    run: str
    label: str


class Conversation:
    def __init__(
        self,
        build: Callable[[Transcript, ReadTracker], Agent],
        fork: Callable[[int], None],
    ) -> None:
        self.transcript = Transcript()
        """The messages, which the top agent adds to and saves."""
        self.turns: list[Turn] = []
        self.reads = ReadTracker()
        """The top agent's reads survive a mode or model switch, as its conversation does."""
        self.top: Agent | None = None
        """The agent that continues the conversation, once built."""
        self._build = build
        """The top agent for the current modes and model, continuing these messages."""
        self._fork = fork
        """The record forks before this message index (a rewind)."""

    @property
    def history(self) -> list[dict[str, Any]]:
        """The messages after the system prompt (a copy)."""
        return self.transcript.history

    def agent(self) -> Agent:
        if self.top is None:
            self.top = self._build(self.transcript, self.reads)
        return self.top

    def reset(self) -> None:
        """The agent is rebuilt at the next message (its modes or model changed)."""
        self.top = None

    def load(
        self, messages: list[dict[str, Any]], reads: dict[Path, tuple[int, int]] | None = None
    ) -> None:
        """Start over from `messages` (a resumed session's; none: a new session)."""
        self.transcript = Transcript(messages)
        self.turns = [
            Turn(i, "", asked(str(m.get("content", ""))))
            for i, m in enumerate(messages)
            if m.get("role") == "user"
            and isinstance(m.get("content"), str)
            and not from_zen(m.get("content"))
        ]
        self.reads = ReadTracker()
        self.reads.seen.update(reads or {})
        self.top = None

    def note_read(self, path: Path) -> None:
        """The user attached this whole file to a message: the top agent has read it."""
        self.reads.mark_read(path)

    def context_now(self) -> tuple[int, int | None]:
        """Tokens the top agent's next request holds and its window when known without
        asking the server (for the status line and `/usage`; `/context` asks)."""
        agent = self.top
        if agent is None or agent.compactor is None or len(self.transcript) < 2:
            return 0, None
        known = agent.compactor.policy.window.known
        return self._split(agent, known or Window(0, "assumed")).used, (
            known.tokens if known else None
        )

    async def learn_window(self) -> None:
        """After a run: the top agent's window, asked of its server once (2 s deadline) when
        neither config nor provider table gives it, so the first status line shows it too."""
        agent = self.top
        if agent is not None and agent.compactor is not None and len(self.transcript) >= 2:
            await agent.compactor.policy.window.get()

    async def context_split(self) -> ContextSplit:
        """What the top agent's next request holds, by part (for `/context`)."""
        agent = self.agent()
        assert agent.compactor is not None
        return self._split(agent, await agent.compactor.policy.window.get())

    def _split(self, agent: Agent, window: Window) -> ContextSplit:
        """The one count of "context used", by part: every figure the user sees comes here."""
        tools, transcript = agent.wire_tools(), self.transcript
        prompt = transcript.measured_prompt if transcript.counted else None
        return split(transcript.messages, tools, window, transcript.tokens(tools), prompt)

    def rewind(self, turn: Turn) -> bool:
        """Continue from just before `turn`'s message: it and everything after leave the
        conversation (the memo and todos stay: they are the session's notes). In the store
        the session forks, so the undone messages remain there as a branch.

        False when a compaction has since folded that message into a summary."""
        found = [
            i
            for i, m in enumerate(self.transcript.history)
            if m.get("role") == "user" and _asked(m.get("content"), turn.label)
        ]
        if turn not in self.turns or not found:
            return False
        index = min(found, key=lambda i: abs(i - turn.index))
        self._fork(index)
        self.transcript.cut(index)
        self.turns = self.turns[: self.turns.index(turn)]
        self.top = None  # rebuilt from the shorter history at the next message
        return True


def _asked(content: Any, label: str) -> bool:
    """The message of a turn: its text (with or without the facts framed before it), or that
    with the files attached for edit blocks (before it; after it in older sessions)."""
    if not isinstance(content, str):
        return False
    return any(
        text == label or text.startswith(label + '\n\n<file path="')
        for text in (content, asked(content), words(content))
    )

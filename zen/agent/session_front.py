"""What front ends ask of a session beside running tasks: its id, messages and turns, usage and
context, a compaction or a rewind, a file the user attached, a command the user typed, a role's
model, the saved sessions and the project notes.

`FrontDoor` is a base class of `Session`: the shell, `-p` and `zen acp` call these methods and
never the session's parts (`conversation`, `record`, `models`, `builder`, `memo_keeper`), so a
part can change without a front end changing with it (`tests/test_front_door.py` checks).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zen.agent.context import ContextSplit
from zen.base import events as ev
from zen.llm.types import TokenUsage
from zen.settings.schema import ModelSettings
from zen.tools.base import RunContext, Tool, ToolResult

if TYPE_CHECKING:
    from zen.agent.builder import AgentBuilder
    from zen.agent.checkpointing import RunCheckpoints
    from zen.agent.conversation import Conversation, Turn
    from zen.agent.memo_keeper import MemoKeeper
    from zen.agent.record import Record
    from zen.agent.session_models import SessionModels
    from zen.llm.served import Served
    from zen.settings.extensions import Extension
    from zen.stores.memo import MemoStore
    from zen.stores.sessions import SessionStore
    from zen.tools.sandbox.runner import Sandbox


@dataclass(frozen=True)
class Status:
    """Tokens and cost so far, by role, and how full the next request is."""

    usage: dict[str, TokenUsage]
    cost_usd: float | None
    """The session's cost; None when some request's price is unknown."""
    run_cost: float | None
    """The current (or last) task's cost; None when a price was unknown."""
    run_usage: dict[str, TokenUsage]
    """The current (or last) task's tokens, by role."""
    context: tuple[int, int | None]
    """Tokens the next request holds and the window when known without asking (0: none yet)."""


@dataclass(frozen=True)
class NotesState:
    """The project notes as `/memo` and the greeting tell them."""

    offered: int
    """Notes from earlier sessions this one was offered."""
    dropped: int | None
    """Notes dropped because their files changed; None: no store, so no notes."""


class FrontDoor:
    conversation: Conversation
    record: Record
    models: SessionModels
    builder: AgentBuilder
    memo_keeper: MemoKeeper
    current_run: RunCheckpoints | None
    memo: MemoStore

    @property
    def role(self) -> str:
        raise NotImplementedError

    @property
    def id(self) -> str | None:
        """The session's id in the store (None: not saved, or no task yet)."""
        return self.record.id

    @property
    def store(self) -> SessionStore | None:
        """The session store (None: sessions are not being saved)."""
        return self.record.store

    @property
    def history(self) -> list[dict[str, object]]:
        """The conversation after the system prompt (a copy)."""
        return self.conversation.history

    @property
    def turns(self) -> list[Turn]:
        """The user's messages of this session, oldest first (a copy)."""
        return list(self.conversation.turns)

    @property
    def sandbox(self) -> Sandbox:
        """Where bash runs (`/sandbox` switches its mode)."""
        return self.builder.sandbox

    @property
    def skills(self) -> list[Extension]:
        return self.builder.skills

    async def compact(self, emit: ev.Emit, focus: str = "") -> ev.Compacted | None:
        """`/compact [focus]`: the top agent's conversation into the memo, now."""
        if not self.conversation.history:
            return None
        return await self.conversation.agent().compact(
            RunContext(emit=self.models.counting(emit)), focus
        )

    def open_record(self) -> str | None:
        """Create the session's record before its first task (an ACP client names the
        session when it opens it); the first task gives it its title."""
        self.record.open("", self.role, self.memo)
        return self.record.id

    def status(self) -> Status:
        return Status(
            dict(self.models.usage),
            self.models.cost_usd,
            self.models.run_cost,
            dict(self.models.run_usage),
            self.conversation.context_now(),
        )

    def settings(self, role: str | None = None) -> ModelSettings:
        """The model settings `role` runs on (default: the agent the user talks to)."""
        return self.models.settings(role or self.role)

    async def served(self, role: str) -> tuple[str, Served] | None:
        """What `role`'s endpoint serves, with its base URL: the lookup its first request
        makes, made now if it has not been. None: no answer to keep. A bad setting raises
        `ConfigError`."""
        configured = self.models.configured(role)
        found = await self.models.served.get(configured)
        return None if found is None else (configured.base_url, found)

    async def learn_window(self) -> None:
        """After a run: the model's window, asked of its server once when nothing says it."""
        await self.conversation.learn_window()

    async def context_split(self) -> ContextSplit:
        """What the next request holds, by part (`/context`)."""
        return await self.conversation.context_split()

    def rewind(self, turn: Turn) -> bool:
        """Continue from just before `turn` (False: a compaction folded it in)."""
        return self.conversation.rewind(turn)

    def note_read(self, path: Path) -> None:
        """The user attached this whole file to a message: the agent has read it."""
        self.conversation.note_read(path)

    async def changed_files(self) -> list[str]:
        """What the current (or last) run changed, bash's changes too (from its checkpoints)."""
        return await self.current_run.changed() if self.current_run is not None else []

    async def run_command(self, command: str) -> ToolResult:
        """`!cmd`: the user's own command through the bash tool, without the model or a
        question; out of the sandbox in `auto`, as in their terminal."""
        bash = self.builder.tools["bash"]
        args: dict[str, object] = {"command": command}
        if self.builder.sandbox.mode == "auto":
            args["unsandboxed"] = "typed by the user"
        return await bash.execute(bash.Params.model_validate(args), self.builder.context("user"))

    def add_tools(self, tools: dict[str, Tool]) -> None:
        """Replace built-in tools by name (an editor's file tools), before the first task."""
        self.builder.tools.update(tools)

    def warm(self) -> None:
        """Build the model client and the tool schemas ahead of the first message."""
        self.models.client(self.role)
        for tool in self.builder.tools.values():
            tool.schema()

    def clear_memo(self) -> None:
        """`/memo clear`: this session's memo and the workspace's project notes."""
        self.memo_keeper.clear()

    def notes(self) -> NotesState:
        keeper = self.memo_keeper
        notes = keeper.notes
        return NotesState(len(keeper.offered), None if notes is None else len(notes.dropped))

    def title(self, text: str) -> None:
        """Title the saved session after `text` (an editor's first prompt)."""
        from zen.agent.record import title_of

        store, sid = self.record.store, self.record.id
        if store is not None and sid is not None:
            store.update(sid, title=title_of(text))

    def discard_if_unused(self) -> None:
        """A session opened (and named) but never given a task leaves the store."""
        store, sid = self.record.store, self.record.id
        if store is not None and sid is not None and not self.conversation.history:
            store.remove(sid)
            self.record.id = None

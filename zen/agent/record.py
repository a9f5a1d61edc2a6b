"""The session's stored record: created at the first task, saved as it goes, resumable.

Each message is saved as it is appended (through the `SessionLog` an agent holds), the Coder's
and sub-agents' in child records linked to the call that started them, and with every message
what the session keeps besides (todos, usage, "always" choices, reads: `state`). A store that
fails costs the saving, never the session: one warning, and the session goes on unsaved.
"""

from __future__ import annotations

import os
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zen.base.text import clip
from zen.llm.types import TokenUsage
from zen.stores.memo import MemoEntry, MemoStore
from zen.stores.session_db import SessionError
from zen.stores.session_log import SessionLog
from zen.stores.session_rows import SessionInfo, StoredMemo
from zen.stores.sessions import SessionStore
from zen.stores.todo import TodoItem

TITLE_CHARS = 72


@dataclass
class Saved:
    """What a resumed session takes back from its record."""

    messages: list[dict[str, Any]]
    memo: list[MemoEntry]
    todos: list[TodoItem]
    usage: dict[str, TokenUsage]
    always: list[str]
    reads: dict[Path, tuple[int, int]]
    """The reads of files unchanged since they were read."""


class Record:
    def __init__(
        self,
        store: SessionStore | None,
        root: Path,
        *,
        describe: Callable[[], dict[str, Any]],
        state: Callable[[], dict[str, Any]],
        warn: Callable[[str], None],
    ) -> None:
        self.store = store
        """None when there is none, or since it failed."""
        self.id: str | None = None
        """The session's record in the store; created at the first task."""
        self.root = root
        self._describe = describe
        """The session's agent mode, collaboration and models, as a record stores them."""
        self._state = state
        """What is saved with each message besides it (todos, usage, "always", reads)."""
        self._warn = warn

    def open(self, task: str, agent: str, memo: MemoStore) -> None:
        """Create the record if there is none yet: `task` gives its title, and the memo's
        entries so far (the offered project notes) go in with it."""
        if self.store is None or self.id is not None:
            return
        try:
            self.id = self.store.create(
                str(self.root), title=title_of(task), agent=agent, **self._describe()
            )
            for entry in memo.index():  # offered notes belong to the session's memo
                self.store.put_memo(self.id, stored(entry))
        except Exception as e:
            self.failed(e)

    def close(self) -> None:
        """This process stops writing the current record (it stays resumable)."""
        if self.store is not None and self.id is not None:
            try:
                self.store.update(self.id, state=self._state())
                self.store.release(self.id)
            except Exception:
                pass
        self.id = None

    def resume(self, info: SessionInfo) -> Saved:
        """Take over the saved session `info` (closing the current record): what it holds."""
        assert self.store is not None
        holder = self.store.claim(info.id)
        if holder is not None:
            raise SessionError(
                f"session {info.id} is open in another zen process ({holder}); "
                f"`zen sessions show {info.id}` reads it"
            )
        self.close()
        state = info.state
        messages = self.store.messages(info.id)
        repaired = answer_interrupted(messages)
        if repaired is not None:  # saved as a branch of its own, so it is done once
            self.store.restart(info.id, repaired, "interrupted")
            messages = repaired
        saved = Saved(
            messages,
            [
                MemoEntry(m.key, m.content, m.summary, m.author, m.time, m.run)
                for m in self.store.memo(info.id)
            ],
            [
                TodoItem(int(t["id"]), str(t["text"]), t["status"])
                for t in state.get("todos", [])
                if isinstance(t, dict) and t.get("status") in ("pending", "in_progress", "done")
            ],
            _usage(state),
            [str(t) for t in state.get("always", [])],
            {
                Path(name): (int(seen[0]), int(seen[1]))
                for name, seen in state.get("reads", {}).items()
                if isinstance(seen, list) and _unchanged(name, seen)
            },
        )
        self.id = info.id
        return saved

    def log(self) -> SessionLog | None:
        """Where the top agent saves its messages (None: nowhere)."""
        if self.store is None or self.id is None:
            return None
        return SessionLog(self.store, self.id, state=self._state, on_error=self._warn)

    def child_log(self, agent: str, call_id: str) -> SessionLog | None:
        """A record for a delegated run (the Coder, a sub-agent) under this session."""
        if self.store is None or self.id is None:
            return None
        try:
            child = self.store.create(
                str(self.root),
                agent=agent,
                parent_id=self.id,
                parent_call=call_id or None,
                **self._describe(),
            )
        except Exception as e:
            self.failed(e)
            return None
        return SessionLog(self.store, child, on_error=self._warn)

    def save_meta(self) -> None:
        """The agent mode, collaboration or a model changed."""
        if self.store is not None and self.id is not None:
            try:
                self.store.update(self.id, **self._describe())
            except Exception as e:
                self.failed(e)

    def fork(self, index: int) -> None:
        """The conversation went back to before message `index`: the record forks there, so
        the undone messages remain in the store as a branch."""
        if self.store is not None and self.id is not None:
            try:
                self.store.fork(self.id, index, "rewind")
            except Exception as e:  # the conversation still goes back; only saving stops
                self.failed(e)

    def failed(self, error: Exception) -> None:
        self._warn(f"the session is not being saved: {error}")
        self.store = None


INTERRUPTED_CALL = (
    "Interrupted: zen stopped while this call ran (killed or crashed); it may have partly run."
)


def answer_interrupted(messages: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
    """The conversation with every tool call answered, or None if it already is.

    zen killed during a tool call leaves the assistant's `tool_calls` without (all) their
    `tool` results; OpenAI and most compatible servers refuse such a conversation with a 400,
    every time. The missing results say the run was interrupted; a result that answers no call
    of the message before it is dropped (the same servers refuse it too)."""
    fixed: list[dict[str, Any]] = []
    changed = False
    i = 0
    while i < len(messages):
        message = messages[i]
        i += 1
        if message.get("role") == "tool":
            changed = True  # a result with no call before it
            continue
        fixed.append(message)
        ids = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        if message.get("role") != "assistant" or not ids:
            continue
        answered: set[Any] = set()
        while i < len(messages) and messages[i].get("role") == "tool":
            result = messages[i]
            i += 1
            if result.get("tool_call_id") in ids and result.get("tool_call_id") not in answered:
                answered.add(result.get("tool_call_id"))
                fixed.append(result)
            else:
                changed = True
        for call_id in ids:
            if call_id not in answered:
                changed = True
                fixed.append({"role": "tool", "tool_call_id": call_id, "content": INTERRUPTED_CALL})
    return fixed if changed else None


def title_of(task: str) -> str:
    """The first line of the first task, printable, cut to TITLE_CHARS."""
    line = next((ln.strip() for ln in task.splitlines() if ln.strip()), "")
    line = "".join(c if c.isprintable() else " " for c in line)
    return clip(line, TITLE_CHARS)


def stored(entry: MemoEntry) -> StoredMemo:
    return StoredMemo(
        entry.key, entry.content, entry.summary, entry.author, entry.time, run=entry.run
    )


def _usage(state: dict[str, Any]) -> dict[str, TokenUsage]:
    usage: dict[str, TokenUsage] = defaultdict(TokenUsage)
    for role, u in state.get("usage", {}).items():
        cost = u.get("cost_usd", 0.0)
        usage[role] = TokenUsage(
            u.get("prompt_tokens", 0),
            u.get("completion_tokens", 0),
            u.get("cached_tokens", 0),
            u.get("requests", 0),
            cost_usd=float(cost) if type(cost) in (int, float) else None,
        )
    return usage


def _unchanged(name: str, seen: list[Any]) -> bool:
    """Is the file as it was when it was read (same mtime and size)?"""
    try:
        st = os.stat(name)
    except (OSError, ValueError):
        return False
    return [st.st_mtime_ns, st.st_size] == seen

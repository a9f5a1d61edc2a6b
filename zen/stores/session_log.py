"""The writer an agent appends its messages through: a session (or child run) record that
keeps the run going when the store fails.

The agent loop must not care whether the disk is full or the database locked: the log turns
the first failure into one warning (`on_error`) and stops writing, and the run goes on unsaved.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from zen.stores.session_db import SessionError
from zen.stores.sessions import SessionStore


@dataclass
class SessionLog:
    """Where one agent's messages go as they are appended: a session (or child run) record.

    A store failure (disk full, a database locked for too long) must not end the run: the
    first one is reported through `on_error` and the log stops writing.
    """

    store: SessionStore
    session_id: str
    state: Any = None
    """A callable returning the session's state JSON, saved with each message (top agent)."""
    on_error: Any = None
    broken: bool = False
    last_seq: int = -1

    def append(self, message: dict[str, Any]) -> None:
        if self.broken:
            return
        try:
            state = self.state() if self.state else None
            self.last_seq = self.store.append(self.session_id, message, state)
        except (sqlite3.Error, OSError, SessionError) as e:
            self.fail(e)

    def drop_from(self, seq: int) -> None:
        if self.broken:
            return
        try:
            self.store.drop_from(self.session_id, seq)
        except (sqlite3.Error, OSError, SessionError) as e:
            self.fail(e)

    def restart(self, messages: list[dict[str, Any]]) -> None:
        """The conversation was compacted: `messages` replace it on a new branch."""
        if self.broken:
            return
        try:
            self.store.restart(self.session_id, messages)
            self.last_seq = len(messages) - 1
        except (sqlite3.Error, OSError, SessionError) as e:
            self.fail(e)

    def fail(self, error: Exception) -> None:
        self.broken = True
        if self.on_error:
            self.on_error(f"the session is no longer being saved: {error}")

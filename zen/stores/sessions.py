"""The session store: every conversation zen has, in one SQLite database under `~/.zen/`.

A session is a row (workspace, title, modes, models, a JSON `state` with todos, usage, reads
and "always allow" choices) plus its messages, memo and child runs (the Coder and sub-agents,
linked to the tool call that started them). Each message is written in its own transaction as
it is appended, so a killed zen loses at most the message in flight.

Branches: a session's messages live on numbered branches and one is active. `fork(id, upto)`
(rewind) starts a new branch holding the first `upto` messages; `restart(id, messages)`
(compaction) starts a new branch holding a replacement list. Old branches stay, never rewritten.
Copies are cheap: large contents (tool outputs, long answers) are stored once in `blobs`,
keyed by their hash, and rows only point at them.

Two processes share the database through WAL and a busy timeout. A session being written by a
live process is marked with its owner, so a second process opens it read-only instead of
interleaving its own messages.

Every text zen writes here (titles, state, memo, notes, and messages in `session_rows`) is
scrubbed of the secrets zen knows (`zen.base.redaction`): a key typed in a task stays off disk.

This module holds the sessions' queries; messages and branches are in `session_messages`,
the memo and notes in `session_memo`. The schema and its migrations are in `session_db`, the records
returned and the message packing in `session_rows`, the writer an agent appends through in
`session_log`.
"""

from __future__ import annotations

import json
import os
import socket
import time
import uuid
from pathlib import Path
from typing import Any

from zen.base.paths import zen_home
from zen.base.pids import pid_alive
from zen.base.redaction import scrub
from zen.base.text import clip
from zen.stores.session_db import SessionError, open_database, transaction
from zen.stores.session_memo import MemoQueries
from zen.stores.session_messages import MessageQueries
from zen.stores.session_rows import (
    SELECT_SESSIONS,
    SessionInfo,
    session_info,
)


def default_path() -> Path:
    return zen_home() / "sessions.db"


ID_LENGTH = 12


def new_id() -> str:
    return uuid.uuid4().hex[:ID_LENGTH]


def this_process() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


def owner_alive(owner: str) -> bool:
    """Is the process that marked a session still running (on this host)?"""
    pid, _, host = owner.partition("@")
    if not pid.isdigit() or host != socket.gethostname():
        return False
    return pid_alive(int(pid))


class SessionStore(MessageQueries, MemoQueries):
    """One connection to the database; every write is a short transaction of its own."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        self.db = open_database(self.path)

    def close(self) -> None:
        self.db.close()

    # -- sessions ---------------------------------------------------------------------------

    def create(
        self,
        workspace: str,
        *,
        title: str = "",
        agent_mode: str = "",
        collaboration: str = "",
        models: dict[str, str | None] | None = None,
        agent: str = "main",
        parent_id: str | None = None,
        parent_call: str | None = None,
    ) -> str:
        sid = new_id()
        now = time.time()
        with transaction(self.db) as db:
            db.execute(
                "INSERT INTO sessions(id, parent_id, parent_call, agent, workspace, title, created,"
                " updated, agent_mode, collaboration, models, owner)"
                " VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    sid,
                    parent_id,
                    parent_call,
                    agent,
                    workspace,
                    scrub(title),
                    now,
                    now,
                    agent_mode,
                    collaboration,
                    json.dumps(models or {}),
                    this_process(),
                ),
            )
            db.execute(
                "INSERT INTO branches(session_id, branch, parent, upto, reason, time)"
                " VALUES(?, 0, NULL, NULL, 'start', ?)",
                (sid, now),
            )
        return sid

    def update(self, sid: str, **fields: Any) -> None:
        """Set session columns: title, agent_mode, collaboration, models, state, owner."""
        allowed = {"title", "agent_mode", "collaboration", "models", "state", "owner"}
        cols = {
            k: scrub(json.dumps(v) if k in ("models", "state") else v)
            for k, v in fields.items()
            if k in allowed
        }
        sets = ", ".join(f"{k}=?" for k in cols)
        with transaction(self.db) as db:
            db.execute(
                f"UPDATE sessions SET {sets}, updated=? WHERE id=?",
                (*cols.values(), time.time(), sid),
            )

    def release(self, sid: str) -> None:
        """This process no longer writes the session."""
        with transaction(self.db) as db:
            db.execute("UPDATE sessions SET owner='' WHERE id=? AND owner=?", (sid, this_process()))

    def claim(self, sid: str) -> str | None:
        """Mark the session as written by this process; the live owner's mark if another
        process holds it (then nothing changes)."""
        with transaction(self.db) as db:
            row = db.execute("SELECT owner FROM sessions WHERE id=?", (sid,)).fetchone()
            if row is None:
                raise SessionError(f"no session {sid}")
            if row[0] and row[0] != this_process() and owner_alive(row[0]):
                return str(row[0])
            db.execute("UPDATE sessions SET owner=? WHERE id=?", (this_process(), sid))
        return None

    def get(self, ref: str, workspace: str | None = None) -> SessionInfo:
        """A top-level session by id or unique id prefix."""
        ref = ref.strip()
        shown = clip(ref, 40)
        if not ref or not all(c in "0123456789abcdef" for c in ref.lower()):
            raise SessionError(f"{shown!r} is not a session id (zen sessions list shows them)")
        if len(ref) > ID_LENGTH:
            raise SessionError(f"no session {shown} (ids have {ID_LENGTH} characters)")
        rows = self.db.execute(
            SELECT_SESSIONS
            + " WHERE substr(s.id, 1, ?) = ? AND s.parent_id IS NULL"
            + (" AND s.workspace=?" if workspace else "")
            + " LIMIT 2",
            (len(ref), ref.lower(), *([workspace] if workspace else [])),
        ).fetchall()
        if not rows:
            where = f" in {workspace}" if workspace else ""
            raise SessionError(f"no session {ref}{where} (zen sessions list shows them)")
        if len(rows) > 1:
            raise SessionError(f"{ref} names more than one session; give more of its id")
        return session_info(rows[0])

    def info(self, sid: str) -> SessionInfo:
        row = self.db.execute(SELECT_SESSIONS + " WHERE s.id=?", (sid,)).fetchone()
        if row is None:
            raise SessionError(f"no session {sid}")
        return session_info(row)

    def recent(
        self, workspace: str | None = None, limit: int = 20, *, started: bool = False
    ) -> list[SessionInfo]:
        """Top-level sessions, newest first (of one workspace, or all). `started`: only those
        holding a message (one whose first request failed holds none: lists skip it, while
        `-c` still continues it)."""
        where = " WHERE s.parent_id IS NULL" + (
            " AND EXISTS (SELECT 1 FROM messages m WHERE m.session_id = s.id)" if started else ""
        )
        where += " AND s.workspace=?" if workspace else ""
        rows = self.db.execute(
            SELECT_SESSIONS + where + " ORDER BY s.updated DESC LIMIT ?",
            (*([workspace] if workspace else []), limit),
        ).fetchall()
        return [session_info(r) for r in rows]

    def latest(self, workspace: str) -> SessionInfo | None:
        found = self.recent(workspace, 1)
        return found[0] if found else None

    def children(self, sid: str) -> list[SessionInfo]:
        rows = self.db.execute(
            SELECT_SESSIONS + " WHERE s.parent_id=? ORDER BY s.created", (sid,)
        ).fetchall()
        return [session_info(r) for r in rows]

    def remove(self, sid: str) -> None:
        with transaction(self.db) as db:
            db.execute("DELETE FROM sessions WHERE id=?", (sid,))
            db.execute(
                "DELETE FROM blobs WHERE hash NOT IN"
                " (SELECT blob FROM messages WHERE blob IS NOT NULL)"
            )

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
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.base.paths import private_dir, private_file, zen_home
from zen.base.pids import pid_alive
from zen.base.redaction import scrub

BLOB_MIN = 256
"""Contents this long or longer go to `blobs`, stored once whatever points at them."""
BUSY_TIMEOUT = 10.0
"""Seconds to wait for another process's write to finish before giving up."""

MIGRATIONS: list[str] = [
    # 1: sessions, their messages on branches, blobs, memo, and the workspace's project notes
    """
    CREATE TABLE sessions(
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        parent_call TEXT,
        agent TEXT NOT NULL,
        workspace TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL,
        agent_mode TEXT NOT NULL DEFAULT '',
        collaboration TEXT NOT NULL DEFAULT '',
        models TEXT NOT NULL DEFAULT '{}',
        branch INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL DEFAULT '{}',
        owner TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX sessions_by_workspace ON sessions(workspace, updated);
    CREATE INDEX sessions_by_parent ON sessions(parent_id);
    CREATE TABLE blobs(hash TEXT PRIMARY KEY, text TEXT NOT NULL);
    CREATE TABLE messages(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        branch INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        body TEXT NOT NULL,
        blob TEXT REFERENCES blobs(hash),
        time REAL NOT NULL,
        PRIMARY KEY(session_id, branch, seq)
    ) WITHOUT ROWID;
    CREATE TABLE branches(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        branch INTEGER NOT NULL,
        parent INTEGER,
        upto INTEGER,
        reason TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY(session_id, branch)
    );
    CREATE TABLE memo(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        summary TEXT NOT NULL,
        author TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY(session_id, key)
    );
    CREATE TABLE notes(
        workspace TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        summary TEXT NOT NULL,
        author TEXT NOT NULL,
        time REAL NOT NULL,
        stamp TEXT NOT NULL,
        session_id TEXT NOT NULL,
        PRIMARY KEY(workspace, key)
    );
    """,
    # 2: memo entries record the run that wrote them (older ones: '')
    """
    ALTER TABLE memo ADD COLUMN run TEXT NOT NULL DEFAULT ''
    """,
]


class SessionError(Exception):
    """One line for the user: no such session, an ambiguous id, a database that cannot open."""


@dataclass
class SessionInfo:
    id: str
    workspace: str
    title: str
    created: float
    updated: float
    agent_mode: str
    collaboration: str
    models: dict[str, str | None]
    state: dict[str, Any]
    branch: int = 0
    agent: str = "main"
    parent_id: str | None = None
    parent_call: str | None = None
    owner: str = ""
    turns: int = 0
    """User messages on the active branch."""


@dataclass
class StoredMemo:
    key: str
    content: str
    summary: str
    author: str
    time: float
    run: str = field(default="", kw_only=True)
    """The run that wrote it; '' in sessions saved before runs had ids."""


@dataclass
class Note(StoredMemo):
    """A project note: a `file:*` memo entry kept for the workspace, with its file's stamp."""

    stamp: str = ""
    session_id: str = ""


def default_path() -> Path:
    return zen_home() / "sessions.db"


def new_id() -> str:
    return uuid.uuid4().hex[:12]


def this_process() -> str:
    return f"{os.getpid()}@{socket.gethostname()}"


def owner_alive(owner: str) -> bool:
    """Is the process that marked a session still running (on this host)?"""
    pid, _, host = owner.partition("@")
    if not pid.isdigit() or host != socket.gethostname():
        return False
    return pid_alive(int(pid))


class SessionStore:
    """One connection to the database; every write is a short transaction of its own."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_path()
        try:
            private_dir(self.path.parent)
            private_file(self.path)
            self.db = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
            )
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")  # WAL: survives a killed process
            self.db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except (sqlite3.Error, OSError) as e:
            raise SessionError(f"cannot open the session store {self.path}: {e}") from None
        for suffix in ("-wal", "-shm"):
            side = Path(f"{self.path}{suffix}")
            if side.exists():
                private_file(side)

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def _migrate(self) -> None:
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > len(MIGRATIONS):
            raise SessionError(
                f"{self.path} was written by a newer zen (schema {version}); upgrade zen"
            )
        if version == len(MIGRATIONS):
            return
        with self._write() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]  # another process won?
            for n in range(version, len(MIGRATIONS)):
                for statement in MIGRATIONS[n].split(";"):  # executescript would commit
                    if statement.strip():
                        db.execute(statement)
            db.execute(f"PRAGMA user_version={len(MIGRATIONS)}")

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
        with self._write() as db:
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
                    title,
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
            k: (json.dumps(v) if k in ("models", "state") else v)
            for k, v in fields.items()
            if k in allowed
        }
        sets = ", ".join(f"{k}=?" for k in cols)
        with self._write() as db:
            db.execute(
                f"UPDATE sessions SET {sets}, updated=? WHERE id=?",
                (*cols.values(), time.time(), sid),
            )

    def release(self, sid: str) -> None:
        """This process no longer writes the session."""
        with self._write() as db:
            db.execute("UPDATE sessions SET owner='' WHERE id=? AND owner=?", (sid, this_process()))

    def claim(self, sid: str) -> str | None:
        """Mark the session as written by this process; the live owner's mark if another
        process holds it (then nothing changes)."""
        with self._write() as db:
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
        if not ref or not all(c in "0123456789abcdef" for c in ref.lower()):
            raise SessionError(f"{ref!r} is not a session id (zen sessions list shows them)")
        rows = self.db.execute(
            _SELECT
            + " WHERE s.id LIKE ? AND s.parent_id IS NULL"
            + (" AND s.workspace=?" if workspace else "")
            + " LIMIT 2",
            (ref.lower() + "%", *([workspace] if workspace else [])),
        ).fetchall()
        if not rows:
            where = f" in {workspace}" if workspace else ""
            raise SessionError(f"no session {ref}{where} (zen sessions list shows them)")
        if len(rows) > 1:
            raise SessionError(f"{ref} names more than one session; give more of its id")
        return _info(rows[0])

    def info(self, sid: str) -> SessionInfo:
        row = self.db.execute(_SELECT + " WHERE s.id=?", (sid,)).fetchone()
        if row is None:
            raise SessionError(f"no session {sid}")
        return _info(row)

    def recent(self, workspace: str | None = None, limit: int = 20) -> list[SessionInfo]:
        """Top-level sessions, newest first (of one workspace, or all)."""
        where = " WHERE s.parent_id IS NULL" + (" AND s.workspace=?" if workspace else "")
        rows = self.db.execute(
            _SELECT + where + " ORDER BY s.updated DESC LIMIT ?",
            (*([workspace] if workspace else []), limit),
        ).fetchall()
        return [_info(r) for r in rows]

    def latest(self, workspace: str) -> SessionInfo | None:
        found = self.recent(workspace, 1)
        return found[0] if found else None

    def children(self, sid: str) -> list[SessionInfo]:
        rows = self.db.execute(
            _SELECT + " WHERE s.parent_id=? ORDER BY s.created", (sid,)
        ).fetchall()
        return [_info(r) for r in rows]

    def remove(self, sid: str) -> None:
        with self._write() as db:
            db.execute("DELETE FROM sessions WHERE id=?", (sid,))
            db.execute(
                "DELETE FROM blobs WHERE hash NOT IN"
                " (SELECT blob FROM messages WHERE blob IS NOT NULL)"
            )

    # -- messages ---------------------------------------------------------------------------

    def append(self, sid: str, message: dict[str, Any], state: dict[str, Any] | None = None) -> int:
        """Write one message at the end of the active branch (and the session's state with
        it, atomically); its position on the branch."""
        body, blob, text = _pack(message)
        now = time.time()
        with self._write() as db:
            branch = self._branch(sid)
            seq = db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM messages WHERE session_id=? AND branch=?",
                (sid, branch),
            ).fetchone()[0]
            if blob:
                db.execute("INSERT OR IGNORE INTO blobs(hash, text) VALUES(?, ?)", (blob, text))
            db.execute(
                "INSERT INTO messages(session_id, branch, seq, role, body, blob, time)"
                " VALUES(?,?,?,?,?,?,?)",
                (sid, branch, seq, str(message.get("role", "")), body, blob, now),
            )
            if state is None:
                db.execute("UPDATE sessions SET updated=? WHERE id=?", (now, sid))
            else:
                db.execute(
                    "UPDATE sessions SET updated=?, state=? WHERE id=?",
                    (now, json.dumps(state), sid),
                )
        return int(seq)

    def drop_from(self, sid: str, seq: int) -> None:
        """Delete the active branch's messages from `seq` on (a request that never got an
        answer). Only for messages nobody saw answered; history otherwise forks."""
        with self._write() as db:
            db.execute(
                "DELETE FROM messages WHERE session_id=? AND branch=? AND seq>=?",
                (sid, self._branch(sid), seq),
            )

    def messages(self, sid: str, branch: int | None = None) -> list[dict[str, Any]]:
        """The active branch's messages, in order (without the system prompt)."""
        if branch is None:
            branch = self._branch(sid)
        rows = self.db.execute(
            "SELECT m.body, b.text FROM messages m LEFT JOIN blobs b ON b.hash = m.blob"
            " WHERE m.session_id=? AND m.branch=? ORDER BY m.seq",
            (sid, branch),
        )
        return [_unpack(body, text) for body, text in rows]

    def fork(self, sid: str, upto: int, reason: str = "rewind") -> int:
        """A new active branch holding the first `upto` messages of the active one; the rest
        stay on the old branch. Returns the new branch number."""
        with self._write() as db:
            old = self._branch(sid)
            new = self._new_branch(sid, old, upto, reason)
            db.execute(
                "INSERT INTO messages(session_id, branch, seq, role, body, blob, time)"
                " SELECT session_id, ?, seq, role, body, blob, time FROM messages"
                " WHERE session_id=? AND branch=? AND seq<?",
                (new, sid, old, upto),
            )
        return new

    def restart(self, sid: str, messages: list[dict[str, Any]], reason: str = "compact") -> int:
        """A new active branch holding `messages` (a compacted conversation); the old
        branch is kept. Returns the new branch number."""
        now = time.time()
        with self._write() as db:
            old = self._branch(sid)
            new = self._new_branch(sid, old, None, reason)
            for seq, message in enumerate(messages):
                body, blob, text = _pack(message)
                if blob:
                    db.execute("INSERT OR IGNORE INTO blobs(hash, text) VALUES(?, ?)", (blob, text))
                db.execute(
                    "INSERT INTO messages(session_id, branch, seq, role, body, blob, time)"
                    " VALUES(?,?,?,?,?,?,?)",
                    (sid, new, seq, str(message.get("role", "")), body, blob, now),
                )
        return new

    def branches(self, sid: str) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT branch, parent, upto, reason, time FROM branches WHERE session_id=?"
            " ORDER BY branch",
            (sid,),
        )
        return [
            dict(zip(("branch", "parent", "upto", "reason", "time"), r, strict=True)) for r in rows
        ]

    def _branch(self, sid: str) -> int:
        row = self.db.execute("SELECT branch FROM sessions WHERE id=?", (sid,)).fetchone()
        if row is None:
            raise SessionError(f"no session {sid}")
        return int(row[0])

    def _new_branch(self, sid: str, parent: int, upto: int | None, reason: str) -> int:
        new = (
            self.db.execute(
                "SELECT MAX(branch) + 1 FROM branches WHERE session_id=?", (sid,)
            ).fetchone()[0]
            or 1
        )
        self.db.execute(
            "INSERT INTO branches(session_id, branch, parent, upto, reason, time)"
            " VALUES(?,?,?,?,?,?)",
            (sid, new, parent, upto, reason, time.time()),
        )
        self.db.execute(
            "UPDATE sessions SET branch=?, updated=? WHERE id=?", (new, time.time(), sid)
        )
        return int(new)

    # -- memo -------------------------------------------------------------------------------

    def put_memo(self, sid: str, entry: StoredMemo) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO memo(session_id, key, content, summary, author, time,"
                " run) VALUES(?,?,?,?,?,?,?)",
                (sid, entry.key, entry.content, entry.summary, entry.author, entry.time, entry.run),
            )

    def delete_memo(self, sid: str, key: str | None = None) -> None:
        """Delete one key, or (None) the whole memo of the session."""
        with self._write() as db:
            if key is None:
                db.execute("DELETE FROM memo WHERE session_id=?", (sid,))
            else:
                db.execute("DELETE FROM memo WHERE session_id=? AND key=?", (sid, key))

    def memo(self, sid: str) -> list[StoredMemo]:
        rows = self.db.execute(
            "SELECT key, content, summary, author, time, run FROM memo WHERE session_id=?"
            " ORDER BY time",
            (sid,),
        )
        return [StoredMemo(*r[:5], run=r[5]) for r in rows]

    # -- project notes (the memo's file:* entries, kept per workspace) ----------------------

    def put_note(self, workspace: str, note: Note) -> None:
        with self._write() as db:
            db.execute(
                "INSERT OR REPLACE INTO notes(workspace, key, content, summary, author, time,"
                " stamp, session_id) VALUES(?,?,?,?,?,?,?,?)",
                (
                    workspace,
                    note.key,
                    note.content,
                    note.summary,
                    note.author,
                    note.time,
                    note.stamp,
                    note.session_id,
                ),
            )

    def notes(self, workspace: str) -> list[Note]:
        rows = self.db.execute(
            "SELECT key, content, summary, author, time, stamp, session_id FROM notes"
            " WHERE workspace=? ORDER BY key",
            (workspace,),
        )
        return [Note(*r) for r in rows]

    def delete_notes(self, workspace: str, keys: list[str] | None = None) -> None:
        """Forget some of the workspace's notes, or (None) all of them."""
        with self._write() as db:
            if keys is None:
                db.execute("DELETE FROM notes WHERE workspace=?", (workspace,))
            else:
                db.executemany(
                    "DELETE FROM notes WHERE workspace=? AND key=?", [(workspace, k) for k in keys]
                )


_SELECT = (
    "SELECT s.id, s.workspace, s.title, s.created, s.updated, s.agent_mode, s.collaboration,"
    " s.models, s.state, s.branch, s.agent, s.parent_id, s.parent_call, s.owner,"
    " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.branch = s.branch"
    "  AND m.role = 'user') FROM sessions s"
)


def _info(row: tuple[Any, ...]) -> SessionInfo:
    (
        sid,
        workspace,
        title,
        created,
        updated,
        mode,
        collab,
        models,
        state,
        branch,
        agent,
        parent_id,
        parent_call,
        owner,
        turns,
    ) = row
    return SessionInfo(
        sid,
        workspace,
        title,
        created,
        updated,
        mode,
        collab,
        _json(models),
        _json(state),
        branch,
        agent,
        parent_id,
        parent_call,
        owner,
        turns,
    )


def _json(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _pack(message: dict[str, Any]) -> tuple[str, str | None, str]:
    """(body JSON, blob hash or None, blob text): a long content goes to `blobs` once.

    Known secrets (the model keys, MCP env and header values) never reach the disk."""
    content = message.get("content")
    if isinstance(content, str) and len(content) >= BLOB_MIN:
        content = scrub(content)
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
        rest = {k: v for k, v in message.items() if k != "content"}
        return scrub(json.dumps(rest, ensure_ascii=False)), digest, content
    return scrub(json.dumps(message, ensure_ascii=False)), None, ""


def _unpack(body: str, text: str | None) -> dict[str, Any]:
    message = _json(body)
    if text is not None:
        message["content"] = text
    return message


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

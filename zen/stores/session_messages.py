"""The session store's messages and branches: appending, forking (rewind), restarting
(compaction). A mixin of `SessionStore` (`sessions.py`), on its connection."""

from __future__ import annotations

import json
import time
from typing import Any

from zen.base.redaction import scrub
from zen.stores.session_db import Database, SessionError, transaction
from zen.stores.session_rows import pack, unpack


class MessageQueries:
    """A session's messages live on numbered branches; one is active."""

    db: Database

    def append(self, sid: str, message: dict[str, Any], state: dict[str, Any] | None = None) -> int:
        """Write one message at the end of the active branch (and the session's state with
        it, atomically); its position on the branch."""
        now = time.time()
        with transaction(self.db) as db:
            branch = self._branch(sid)
            seq = db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM messages WHERE session_id=? AND branch=?",
                (sid, branch),
            ).fetchone()[0]
            _insert(db, sid, branch, seq, message, now)
            if state is None:
                db.execute("UPDATE sessions SET updated=? WHERE id=?", (now, sid))
            else:
                db.execute(
                    "UPDATE sessions SET updated=?, state=? WHERE id=?",
                    (now, scrub(json.dumps(state)), sid),
                )
        return int(seq)

    def drop_from(self, sid: str, seq: int) -> None:
        """Delete the active branch's messages from `seq` on (a request that never got an
        answer). Only for messages nobody saw answered; history otherwise forks."""
        with transaction(self.db) as db:
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
        return [unpack(body, text) for body, text in rows]

    def fork(self, sid: str, upto: int, reason: str = "rewind") -> int:
        """A new active branch holding the first `upto` messages of the active one; the rest
        stay on the old branch. Returns the new branch number."""
        with transaction(self.db) as db:
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
        with transaction(self.db) as db:
            old = self._branch(sid)
            new = self._new_branch(sid, old, None, reason)
            for seq, message in enumerate(messages):
                _insert(db, sid, new, seq, message, now)
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


def _insert(
    db: Database, sid: str, branch: int, seq: int, message: dict[str, Any], now: float
) -> None:
    """One message row (its large content stored once, in `blobs`), inside a transaction."""
    body, blob, text = pack(message)
    if blob:
        db.execute("INSERT OR IGNORE INTO blobs(hash, text) VALUES(?, ?)", (blob, text))
    db.execute(
        "INSERT INTO messages(session_id, branch, seq, role, body, blob, time)"
        " VALUES(?,?,?,?,?,?,?)",
        (sid, branch, seq, str(message.get("role", "")), body, blob, now),
    )

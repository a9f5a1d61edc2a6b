"""The session store's memo (per session) and project notes (the memo's `file:*` entries,
kept per workspace). A mixin of `SessionStore` (`sessions.py`), on its connection; every text
is scrubbed of known secrets before it is written."""

from __future__ import annotations

from zen.base.redaction import scrub
from zen.stores.session_db import Database, transaction
from zen.stores.session_rows import Note, StoredMemo


class MemoQueries:
    db: Database

    def put_memo(self, sid: str, entry: StoredMemo) -> None:
        with transaction(self.db) as db:
            db.execute(
                "INSERT OR REPLACE INTO memo(session_id, key, content, summary, author, time,"
                " run) VALUES(?,?,?,?,?,?,?)",
                (
                    sid,
                    scrub(entry.key),
                    scrub(entry.content),
                    scrub(entry.summary),
                    entry.author,
                    entry.time,
                    entry.run,
                ),
            )

    def delete_memo(self, sid: str, key: str | None = None) -> None:
        """Delete one key, or (None) the whole memo of the session."""
        with transaction(self.db) as db:
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

    def put_note(self, workspace: str, note: Note) -> None:
        with transaction(self.db) as db:
            db.execute(
                "INSERT OR REPLACE INTO notes(workspace, key, content, summary, author, time,"
                " stamp, session_id) VALUES(?,?,?,?,?,?,?,?)",
                (
                    workspace,
                    scrub(note.key),
                    scrub(note.content),
                    scrub(note.summary),
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
        with transaction(self.db) as db:
            if keys is None:
                db.execute("DELETE FROM notes WHERE workspace=?", (workspace,))
            else:
                db.executemany(
                    "DELETE FROM notes WHERE workspace=? AND key=?", [(workspace, k) for k in keys]
                )

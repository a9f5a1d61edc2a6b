"""The project memo: `file:<path>` memo entries that outlive their session.

Each note carries the stamp (content hash) of the file it describes, taken when it was written.
A new session of the same workspace is offered the notes whose file still has that stamp; the
others describe a file that changed and are dropped. Notes are model output that file contents
may have steered, so they are handed over as data (key, file hash, summary), never as
instructions, and only for files inside the workspace.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from zen.stores.memo import MemoEntry
from zen.stores.session_rows import Note
from zen.stores.sessions import SessionStore

PREFIX = "file:"
HASH_LIMIT = 8 * 1024 * 1024
"""Bigger files are stamped by size and modification time instead of hashing them."""
EARLIER = "earlier session"


def stamp(path: Path) -> str | None:
    """`sha256:<hex>` of a regular file's bytes (size+mtime above HASH_LIMIT); None if none."""
    try:
        st = path.stat()
        if not path.is_file():
            return None
        if st.st_size > HASH_LIMIT:
            return f"stat:{st.st_size}:{st.st_mtime_ns}"
        return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


@dataclass
class ProjectNotes:
    """The notes of one workspace in the store."""

    store: SessionStore
    root: Path
    dropped: list[str] = field(default_factory=list)
    """Keys dropped at the last `offer()`: their file changed or is gone."""

    @property
    def workspace(self) -> str:
        return str(self.root)

    def file_of(self, key: str) -> Path | None:
        """The workspace file a `file:` key describes; None outside the workspace."""
        if not key.startswith(PREFIX):
            return None
        name = key[len(PREFIX) :].strip()
        if not name or "\0" in name:
            return None
        try:
            path = (self.root / name).resolve()
        except (OSError, RuntimeError, ValueError):
            return None
        return path if path.is_relative_to(self.root) else None

    def keep(self, entry: MemoEntry, session_id: str) -> None:
        """Remember a `file:` entry with the stamp its file has now."""
        path = self.file_of(entry.key)
        now = stamp(path) if path else None
        if now is None:
            return
        self.store.put_note(
            self.workspace,
            Note(
                entry.key,
                entry.content,
                entry.summary,
                entry.author,
                entry.time,
                now,
                session_id,
            ),
        )

    def forget(self, key: str) -> None:
        self.store.delete_notes(self.workspace, [key])

    def clear(self) -> None:
        self.store.delete_notes(self.workspace)

    def offer(self) -> list[Note]:
        """The notes whose file is unchanged; the others are deleted (named in `dropped`)."""
        fresh: list[Note] = []
        self.dropped = []
        for note in self.store.notes(self.workspace):
            path = self.file_of(note.key)
            if path is not None and stamp(path) == note.stamp:
                fresh.append(note)
            else:
                self.dropped.append(note.key)
        if self.dropped:
            self.store.delete_notes(self.workspace, self.dropped)
        return fresh


def note_line(note: Note) -> str:
    """`file:a.py (sha256 1a2b3c4d5e6f) — summary`: one line, no control characters."""
    kind, _, value = note.stamp.partition(":")
    short = f"{kind} {value[:12]}" if kind == "sha256" else note.stamp
    summary = " ".join(note.summary.split())[:200]
    key = "".join(c for c in note.key if c.isprintable())[:200]
    return f"{key} ({short}) — {summary}"

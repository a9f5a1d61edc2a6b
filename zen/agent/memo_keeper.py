"""The session's memo and the project notes kept from it.

Every memo change goes into the session's record as it is made. With `memo.persist: on` in a
trusted workspace (notes are model output a hostile repository could have steered), the notes
agents write are also kept as the workspace's project notes, and a new session is offered
those whose files are unchanged: in its memo (so `memo read` works), and as data with its first
message.
"""

from __future__ import annotations

from collections.abc import Callable

from zen.agent.record import Record, stored
from zen.settings.prompts import load_prompt, render
from zen.stores.memo import MemoEntry, MemoStore
from zen.stores.project_notes import EARLIER, ProjectNotes, note_line


class MemoKeeper:
    def __init__(
        self,
        memo: MemoStore,
        record: Record,
        *,
        persist: Callable[[], bool],
        warn: Callable[[str], None],
    ) -> None:
        self.memo = memo
        """Shared by the session's agents; the same store for the whole process (a new
        session empties it)."""
        self.record = record
        self._notes = ProjectNotes(record.store, record.root) if record.store else None
        self._persist = persist
        """Are notes kept and offered (`memo.persist: on` and a trusted workspace)?"""
        self._warn = warn
        self.offered: list[str] = []
        """Project notes this session was offered (the keys)."""
        self.first_message = ""
        """The offered notes as data for the session's first message ("" when none)."""
        self.memo.on_change = self._changed

    @property
    def notes(self) -> ProjectNotes | None:
        """The workspace's project notes; None without a working store."""
        return self._notes if self.record.store is not None else None

    @property
    def kept_notes(self) -> ProjectNotes | None:
        """The project notes when they are kept and offered."""
        return self.notes if self._persist() else None

    def load(self, entries: list[MemoEntry]) -> None:
        """A new session's memo: `entries` (a resumed session's), nothing offered."""
        self.memo.entries.clear()
        self.memo.entries.update((e.key, e) for e in entries)
        self.offered, self.first_message = [], ""

    def offer(self) -> None:
        """A new session is offered the project notes whose files are unchanged."""
        self.offered, self.first_message = [], ""
        notes = self.kept_notes
        if notes is None:
            return
        try:
            fresh = notes.offer()
        except Exception as e:  # a broken store costs the notes, never the session
            self._warn(f"project notes unavailable: {e}")
            return
        for note in fresh:
            self.memo.entries[note.key] = MemoEntry(
                note.key, note.content, note.summary, f"{note.author}, {EARLIER}", note.time
            )
        self.offered = [n.key for n in fresh]
        if fresh:
            self.first_message = render(
                load_prompt("project-notes"), notes="\n".join(note_line(n) for n in fresh)
            )

    def clear(self) -> None:
        """`/memo clear`: this session's memo and the workspace's project notes."""
        self.memo.clear()
        self.offered = []
        notes = self.notes
        if notes is not None:
            try:
                notes.clear()
            except Exception as e:
                self.record.failed(e)

    def _changed(self, key: str, entry: MemoEntry | None) -> None:
        record = self.record
        if record.store is None or record.id is None:
            return
        try:
            if entry is None:
                record.store.delete_memo(record.id, key)
            else:
                record.store.put_memo(record.id, stored(entry))
            notes = self.kept_notes
            if notes is not None:
                if entry is None:
                    notes.forget(key)
                elif EARLIER not in entry.author:
                    notes.keep(entry, record.id)
        except Exception as e:
            self.record.failed(e)

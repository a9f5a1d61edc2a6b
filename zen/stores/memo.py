"""The memo: a shared blackboard of `plan:*`, `file:*` and free keys.

The Orchestrator writes what it learned, the Coder reads it instead of exploring again, and
every agent's summaries are shown to the user. `index()` gives keys and summaries only, never
the contents, so handing it to a fresh agent costs a few lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

AUTO = "auto"


@dataclass
class MemoEntry:
    key: str
    content: str
    summary: str
    author: str
    time: float = field(default_factory=time.time)
    run: str = ""
    """The run that wrote it (`RunContext.id`): how a delegation finds the keys it wrote.
    Empty for notes from an earlier session and for sessions saved before runs had ids."""

    def line(self) -> str:
        """`key — summary (author)`: one line of the index a fresh agent is handed."""
        return f"{self.key} — {self.summary} ({self.author})"


@dataclass
class MemoStore:
    entries: dict[str, MemoEntry] = field(default_factory=dict)
    on_change: Callable[[str, MemoEntry | None], None] | None = None
    """Told of every change, `auto` writes and deletions (None) too: the session record."""

    def write(
        self, key: str, content: str, summary: str, author: str, *, run: str = ""
    ) -> MemoEntry:
        """Write an entry for `run`. An `auto` entry never replaces a summary an agent wrote,
        and refreshing one does not make it the reader's: it keeps its author and run."""
        old = self.entries.get(key)
        if author == AUTO and old is not None and old.author != AUTO:
            old.content = content
            old.time = time.time()
            self._changed(key, old)
            return old
        entry = MemoEntry(key, content, summary, author, run=run)
        self.entries[key] = entry
        self._changed(key, entry)
        return entry

    def _changed(self, key: str, entry: MemoEntry | None) -> None:
        if self.on_change is not None:
            self.on_change(key, entry)

    def read(self, key: str) -> MemoEntry | None:
        return self.entries.get(key)

    def delete(self, key: str) -> bool:
        found = self.entries.pop(key, None) is not None
        if found:
            self._changed(key, None)
        return found

    def clear(self) -> None:
        for key in list(self.entries):
            self.delete(key)

    def index(self) -> list[MemoEntry]:
        return sorted(self.entries.values(), key=lambda e: e.key)

    def written_by(self, run: str) -> list[str]:
        """The keys `run` wrote itself (not the `auto` notes its reads left)."""
        return [e.key for e in self.index() if run and e.run == run and e.author != AUTO]

    def index_text(self) -> str:
        """`key — summary (author)` lines: what a fresh agent is handed."""
        return "\n".join(e.line() for e in self.index())

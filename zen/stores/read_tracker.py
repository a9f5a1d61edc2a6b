"""Read before edit, and no edit from a stale read: one tracker per agent.

The tracker remembers, for each file this agent read or wrote, the file's modification time
and size at that moment. An edit is allowed only if the agent has read the file and the file
has not changed on disk since: otherwise the agent would be editing from memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


def stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


@dataclass
class ReadTracker:
    seen: dict[Path, tuple[int, int] | None] = field(default_factory=dict)

    def mark_read(self, path: Path, at: tuple[int, int] | None = None) -> None:
        """`path` as it is now counts as read: read by the agent, attached to its message, or
        written by it (it knows what it wrote). `at`: its stamp taken before the text the
        model saw was read, so a change during the read makes the next edit refused."""
        self.seen[path] = at if at is not None else stamp(path)

    def has_read(self, path: Path) -> bool:
        return path in self.seen

    def check_edit(self, path: Path, shown: str) -> str | None:
        """Why an edit of `path` must be refused, or None. `shown` is the path the model sees."""
        if path not in self.seen:
            return f"read {shown} with read-file before editing it"
        if self.seen[path] != stamp(path):
            return f"{shown} changed on disk since you read it; read-file it again before editing"
        return None

    def check_write_overwrite(self, path: Path, shown: str, overwrite: bool) -> str | None:
        """Why a write to `path` must be refused, or None.

        Replacing a file is an edit of all of it: like edit-file it needs a read of the
        current version, so a file the user changed meanwhile, or one never looked at, is not
        clobbered.
        """
        if not path.exists():
            return None
        if not overwrite:
            return (
                f"{shown} already exists; to replace it pass overwrite: true "
                "(or change part of it with edit-file)"
            )
        if path not in self.seen:
            return f"read {shown} with read-file before overwriting it"
        if self.seen[path] != stamp(path):
            return (
                f"{shown} changed on disk since you read it; read-file it again before "
                "overwriting it"
            )
        return None

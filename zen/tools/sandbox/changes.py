"""After a command: what changed in the guarded scopes, and undoing it.

The rule: what zen cannot check counts as changed. A recorded entry whose metadata differs is
put back from its kept bytes, or removed when its bytes were not kept (the result says so);
an entry that was not there is removed; a folder that cannot be listed is removed and what
was recorded in it put back. A recorded repository that is gone is not rebuilt (its
configuration alone would be litter: nothing runs from a repository that is not there), but
one that was moved is checked where it went (matched by inode).

A repository that was not recorded appeared since the workspace was last walked: made by the
command, moved in by it, or made by someone else between two commands. Its ctimes tell which:
the kernel sets a ctime on every write, rename, chmod or link, and a command cannot set one
back. So it counts as the command's (its configuration removed) when its top, or a folder
between it and the nearest folder known from before, changed since the command started (a
folder moved in shows a new ctime); otherwise only its entries changed since then are
removed (no copy of them was kept).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zen.tools.sandbox import undo
from zen.tools.sandbox.entries import UNREADABLE, Entry
from zen.tools.sandbox.repos import Tree, margin
from zen.tools.sandbox.scopes import Scope

Blobs = Callable[[str], "bytes | None"]
NOT_KEPT = "removed: no copy was kept"
NEW_REPOSITORY = "a new repository: its configuration was removed"
_NOTED = (f"({NOT_KEPT})", f"({NEW_REPOSITORY})")
"""Lines that say more than a path come first: the model sees them even when the list is cut."""


@dataclass(frozen=True)
class Recorded:
    scope: Scope
    entries: dict[str, Entry]


@dataclass(frozen=True)
class Before:
    """What was known before the command."""

    record: Mapping[str, Recorded]
    start: int
    """`time.time_ns()` once the record was taken, just before the command started."""
    tree: Tree | None
    """The workspace's folders as last walked (None after a kill: not kept)."""

    def known(self, root: Path, path: Path, ino: int) -> bool:
        """`path` is the folder (or recorded scope) it was before the command."""
        item = self.record.get(str(path))
        if item is not None and "" in item.entries and item.entries[""].ino == ino:
            return True
        if self.tree is None or (path != root and root not in path.parents):
            return False
        return self.tree.known(path.relative_to(root).as_posix() if path != root else "", ino)

    def recent(self, ctime: int) -> bool:
        return ctime >= self.start - margin(ctime)


def undo_changes(root: Path, before: Before, after: Sequence[Scope], blobs: Blobs) -> list[str]:
    """Undo every change since `before` in the scopes found `after`; what was undone, one
    line per topmost path (relative to the workspace where it is in it)."""
    done: list[str] = []
    by_inode = {
        (str(item.scope.anchor), item.entries[""].ino): item
        for item in before.record.values()
        if "" in item.entries and item.scope.kind != "path"
    }
    for scope in after:
        now = scope.read(None)
        item = before.record.get(str(scope.top))
        if item is None and scope.kind != "path" and "" in now:
            item = _moved(by_inode.get((str(scope.anchor), now[""].ino)))
        if item is not None:
            done += _restore(root, scope, item.entries, now, blobs)
        elif _fresh(root, scope, now, before):
            planted = scope.names if scope.kind == "git" else ("",)
            if any(rel in now for rel in planted):
                done.append(_say(root, scope.top, NEW_REPOSITORY))
            for rel in planted:
                undo.remove(scope.anchor, _path(scope.top, rel))
        else:
            done += _restore(root, scope, _unchanged(now, before), now, blobs, NOT_KEPT)
    return sorted(done, key=lambda line: (not line.endswith(_NOTED), line))


def _fresh(root: Path, scope: Scope, now: dict[str, Entry], before: Before) -> bool:
    """An unrecorded scope is the command's: it, or a folder between it and the nearest one
    known from before, changed since the command started."""
    top = now.get("")
    if top is None or before.recent(top.ctime):
        return True
    path = scope.top.parent
    while path != scope.anchor and scope.anchor in path.parents:
        try:
            info = path.lstat()
        except OSError:
            return True
        if before.known(root, path, info.st_ino):
            return False
        if before.recent(info.st_ctime_ns):
            return True
        path = path.parent
    return False


def _unchanged(now: dict[str, Entry], before: Before) -> dict[str, Entry]:
    """An unrecorded scope's entries as they must have been: those not changed since the
    command started (nor inside a folder that was), without a copy."""
    kept: dict[str, Entry] = {}
    for rel, entry in sorted(now.items()):
        parent = rel.rpartition("/")[0]
        if (rel and parent not in kept) or before.recent(entry.ctime):
            continue
        kept[rel] = Entry(entry.mode, entry.size, entry.mtime, entry.ctime, entry.ino)
    return kept


def _restore(
    root: Path,
    scope: Scope,
    before: dict[str, Entry],
    now: dict[str, Entry],
    blobs: Blobs,
    unknown: str = "",
) -> list[str]:
    """Put `scope` back as `before` recorded it; `unknown`: the note for what is removed
    without having been recorded (nothing, for a recorded scope: it was planted)."""
    changed = sorted(
        {
            _folder_of(rel)
            for rel in before.keys() | now.keys()
            if rel not in before or rel not in now or not before[rel].same(now[rel])
        }
    )
    unreadable = {_folder_of(rel) for rel in now if rel.endswith(UNREADABLE)}
    removed: list[str] = []
    for rel in changed:
        if rel not in now or any(_within(rel, r) for r in removed):
            continue
        was = before.get(rel)
        if was is not None and was.is_dir and now[rel].is_dir and rel not in unreadable:
            continue  # a folder's mode: put back below, its entries judged one by one
        undo.remove(scope.anchor, _path(scope.top, rel))
        removed.append(rel)
    lost: list[str] = []
    for rel in sorted(before):
        if rel.endswith(UNREADABLE) or not (
            rel in changed or any(_within(rel, r) for r in removed)
        ):
            continue
        was = before[rel]
        data = blobs(was.kept) if was.kept and not was.is_link else None
        if not was.restorable or (was.kept and not was.is_link and data is None):
            lost.append(rel)
            continue
        undo.put_back(scope.anchor, _path(scope.top, rel), was, data)
    lines = []
    for top in _topmost(changed):
        why = NOT_KEPT if any(_within(rel, top) for rel in lost) else ""
        lines.append(_say(root, _path(scope.top, top), why or (unknown if top in now else "")))
    return lines


def _moved(item: Recorded | None) -> Recorded | None:
    """`item`, if what it recorded is no longer at its own path (it was moved)."""
    if item is None:
        return None
    try:
        still = item.scope.top.lstat().st_ino == item.entries[""].ino
    except OSError:
        still = False
    return None if still else item


def _folder_of(rel: str) -> str:
    """An unreadable folder's marker stands for the folder itself."""
    return rel[: -len(UNREADABLE)].rstrip("/") if rel.endswith(UNREADABLE) else rel


def _topmost(rels: list[str]) -> list[str]:
    tops: list[str] = []
    for rel in sorted(rels):
        if not any(_within(rel, t) for t in tops):
            tops.append(rel)
    return tops


def _within(rel: str, top: str) -> bool:
    return rel == top or top == "" or rel.startswith(top + "/")


def _path(top: Path, rel: str) -> Path:
    return top / rel if rel else top


def _say(root: Path, path: Path, why: str) -> str:
    shown = path.relative_to(root).as_posix() if root in path.parents else str(path)
    return f"{shown} ({why})" if why else shown

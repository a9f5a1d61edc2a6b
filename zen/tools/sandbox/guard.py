"""The workspace's configuration, and git's, kept as it was across a sandboxed command.

What configures zen, an editor, a shell or git runs later outside the sandbox, with no person
asked, so a command must not plant or change it (`scopes` lists what that is). A read-only
bind protects what exists; a path that does not exist yet has nothing to bind, and a renamed
parent (`mv .git x && mkdir .git`) slips past a bind. So before each command the guard records
every guarded entry (its metadata always, its bytes while MAX_BYTES lasts) in a journal under
`~/.zen`, out of the command's reach, and after it undoes whatever differs: put back from the
kept bytes, or removed when they were not kept. A zen killed mid-command leaves its journal
behind, and the next zen started in that workspace undoes it (`recover`).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.tools.sandbox import journal
from zen.tools.sandbox.changes import Before, Recorded, undo_changes
from zen.tools.sandbox.entries import Entry, Keep
from zen.tools.sandbox.named import in_user_config, named
from zen.tools.sandbox.repos import MAX_DIRS, Tree, margin, refresh
from zen.tools.sandbox.scopes import PROTECTED, Scope, collect, link_targets, outside_git_dirs

MAX_BYTES = 4_000_000
"""Bytes kept per command to put files back; past them a changed file is removed instead."""
PARTIAL = (
    f"the workspace has over {MAX_DIRS:,} folders: repositories a command plants past "
    "them are not looked for"
)

__all__ = ["MAX_BYTES", "PROTECTED", "Guard", "Watch"]

_journal = journal.Journal()
atexit.register(_journal.close)


@dataclass
class Guard:
    """One session's guard: the workspace trees it keeps finding repositories in (re-read only
    where they changed), and the digests of bytes already in the journal."""

    trees: dict[Path, Tree] = field(default_factory=dict)
    digests: dict[tuple[int, ...], str] = field(default_factory=dict)
    told_partial: bool = False

    def begin(self, root: Path, hidden: Sequence[Path], home: Sequence[str] | None = None) -> Watch:
        """Record the workspace before a command (and its temp folder, made here): the
        `Watch` says what to bind and undoes after it. `home`: the workspace is a home (see
        `scopes.collect`)."""
        skip = _inside(root, hidden)
        tree = self.trees.get(root) or refresh(root, None, skip)  # later: walked by `finish`
        self.trees[root] = tree
        outside = outside_git_dirs(root, hidden)
        scopes = collect(root, tree, outside, hidden, (), home)
        keep = self._keeper()
        record = {str(s.top): Recorded(s, s.read(keep)) for s in scopes}
        links = [
            item.scope.top / rel if rel else item.scope.top
            for item in record.values()
            for rel, entry in item.entries.items()
            if entry.is_link
        ]
        links += [path for s in scopes if s.kind == "git" for path in named(s.top)]
        links += in_user_config(root)
        targets = link_targets(root, outside, links, scopes)
        for scope in collect(root, tree, outside, hidden, targets, home) if targets else ():
            if str(scope.top) not in record:
                scopes.append(scope)
                record[str(scope.top)] = Recorded(scope, scope.read(keep))
        _wait_past(record)
        before = Before(record, time.time_ns(), tree)
        watch = Watch(self, root, skip, outside, list(hidden), before, targets, home)
        watch.read_only = [path for s in scopes for path in s.read_only()]
        watch.start()
        return watch

    def _keeper(self) -> Keep:
        budget = [MAX_BYTES]
        used: set[str] = set()
        now = time.time_ns()

        def keep(info: os.stat_result, read: Callable[[], bytes | None]) -> str | None:
            key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            digest = self.digests.get(key)
            if digest is None or digest not in used:
                if info.st_size > budget[0]:
                    return None
                if digest is None:
                    data = read()
                    if data is None:
                        return None
                    digest = hashlib.sha256(data).hexdigest()
                    _journal.blob(digest, data)
                    if info.st_ctime_ns < now - margin(info.st_ctime_ns):  # else a later
                        self.digests[key] = digest  # write could keep this very ctime
                budget[0] -= info.st_size
                used.add(digest)
            return digest

        return keep


@dataclass
class Watch:
    """One command's record, from before it started until its undo."""

    guard: Guard
    root: Path
    skip: list[str]
    outside: list[Path]
    hidden: list[Path]
    before: Before
    targets: list[Path] = field(default_factory=list)
    """Guarded symlinks' targets in writable places (`scopes.link_targets`)."""
    home: Sequence[str] | None = None
    """The workspace is a home: the names guarded in it besides its dot entries."""
    read_only: list[Path] = field(default_factory=list)
    tmpdir: Path = Path()
    journal_path: Path | None = None
    note: str = ""
    """Said once with the command's result (the walk for repositories stopped short)."""

    @property
    def writable(self) -> list[Path]:
        """Git directories outside the workspace that git run in it writes."""
        return list(self.outside)

    def start(self) -> None:
        """Journal the record, then make the temp folder it names (so a kill at any point
        leaves nothing the next start cannot find)."""
        for _ in range(5):
            self.tmpdir = Path(tempfile.gettempdir()) / f"zen-sandbox-{os.urandom(6).hex()}"
            self.journal_path = _journal.write(self.root, self.payload())
            try:
                os.mkdir(self.tmpdir, 0o700)
                return
            except FileExistsError:
                os.unlink(self.journal_path)
        raise FileExistsError(f"cannot make a temp folder in {tempfile.gettempdir()}")

    def finish(self) -> list[str]:
        """Undo changes to what is guarded, remove the temp folder; what was undone. An undo
        that fails keeps its journal: the next zen started here tries again."""
        try:
            tree = refresh(self.root, self.before.tree, self.skip, open_up=True)
            self.guard.trees[self.root] = tree
            after = collect(self.root, tree, self.outside, self.hidden, self.targets, self.home)
            folder = _journal.folder
            undone = undo_changes(
                self.root,
                self.before,
                after,
                lambda d: journal.read_blob(folder, d) if folder is not None else None,
            )
        finally:
            journal.remove_tree(self.tmpdir)
        if self.journal_path is not None:
            self.journal_path.unlink(missing_ok=True)
        if tree.partial and not self.guard.told_partial:
            self.guard.told_partial = True
            self.note = PARTIAL
        return undone

    def payload(self) -> dict[str, Any]:
        return {
            "version": 1,
            "root": str(self.root),
            "pid": os.getpid(),
            "start": self.before.start,
            "tmpdir": str(self.tmpdir),
            "skip": self.skip,
            "outside": [str(p) for p in self.outside],
            "hidden": [str(p) for p in self.hidden],
            "targets": [str(p) for p in self.targets],
            "home": None if self.home is None else list(self.home),
            "scopes": [
                {
                    "anchor": str(item.scope.anchor),
                    "top": str(item.scope.top),
                    "kind": item.scope.kind,
                    "names": list(item.scope.names),
                    "entries": {rel: e.row() for rel, e in item.entries.items()},
                }
                for item in self.before.record.values()
            ],
        }


def replay(folder: Path, data: dict[str, Any]) -> list[str]:
    """Undo a journaled command of a zen that is gone (`recover`): its record against the
    workspace as it is now, walked whole."""
    root = Path(data["root"])
    record = {}
    for item in data["scopes"]:
        scope = Scope(Path(item["anchor"]), Path(item["top"]), item["kind"], tuple(item["names"]))
        entries = {rel: Entry.from_row(row) for rel, row in item["entries"].items()}
        record[str(scope.top)] = Recorded(scope, entries)
    hidden = [Path(p) for p in data["hidden"]]
    tree = refresh(root, None, data["skip"], open_up=True)
    outside = [Path(p) for p in data["outside"]]
    targets = [Path(p) for p in data.get("targets", [])]
    home = data.get("home")
    after = collect(root, tree, outside, hidden, targets, home)
    before = Before(record, int(data["start"]), None)
    try:
        return undo_changes(root, before, after, lambda d: journal.read_blob(folder, d))
    finally:
        journal.remove_tree(Path(data["tmpdir"]))


def _inside(root: Path, hidden: Sequence[Path]) -> list[str]:
    return [p.relative_to(root).as_posix() for p in hidden if root in p.parents]


def _wait_past(record: dict[str, Recorded]) -> None:
    """Wait until a write after this moment must give every recorded file a new ctime: one
    changed just now could otherwise be changed again within the same clock tick, unseen."""
    ctimes = [e.ctime for r in record.values() for e in r.entries.values() if not e.is_dir]
    if not ctimes:
        return
    newest = max(ctimes)
    wait = newest + margin(newest) - time.time_ns()
    if wait > 0:
        time.sleep(wait / 1e9)

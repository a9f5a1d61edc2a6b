"""Paths zen's own file tools touched that snapshots would miss, with what they held before.

A snapshot holds what git lists: no ignored files, no files inside a nested repository (git
lists it as one `nested/` entry) and none over `checkpoints.max_file_size`. What zen's own
write-file and edit-file change must always be undoable, so before one changes a path the
shadow index does not hold, the index starts tracking it (its bytes as they are, up to the
largest file edit-file accepts) and `adopted.jsonl` records when and what it held (or that it
did not exist). Every later snapshot holds the path. A checkpoint taken before that moment
does not list it, although the file was there: `effective_tree` adds the recorded bytes to
that checkpoint's tree, so a rewind restores the file instead of deleting it.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from zen.checkpoints.files import nul_list

Git = Callable[..., Awaitable[bytes]]


@dataclass(frozen=True)
class Adoption:
    path: str
    time: float
    mode: str = ""
    blob: str = ""
    """Empty: the path did not exist when zen first touched it."""


class AdoptionLog:
    """`adopted.jsonl`: appended whole with O_APPEND, read fresh by each rewind (another
    process may have adopted paths since)."""

    def __init__(self, file: Path) -> None:
        self.file = file
        self.paths: set[str] = set()
        """Adopted by any process, as of the last `load` or `append`."""

    def load(self) -> list[Adoption]:
        found = []
        with contextlib.suppress(OSError):
            for line in self.file.read_text("utf-8", "surrogateescape").splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    raw = json.loads(line)
                    found.append(
                        Adoption(
                            str(raw["path"]), float(raw["time"]), str(raw["mode"]), str(raw["blob"])
                        )
                    )
        self.paths |= {a.path for a in found}
        return found

    def append(self, adoption: Adoption) -> None:
        raw = {"path": adoption.path, "time": adoption.time, "mode": adoption.mode}
        raw["blob"] = adoption.blob
        line = (json.dumps(raw, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape")
        fd = os.open(self.file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
        self.paths.add(adoption.path)


async def adopt(git: Git, rel: str, index: Path) -> Adoption | None:
    """Start tracking `rel` in `index` with its present bytes (or record that it does not
    exist); None when the index holds it already."""
    literal = f":(literal){rel}"
    if await git("ls-files", "-z", "--", literal, index=index):
        return None
    add = nul_list([rel])
    await git("update-index", "--add", "--remove", "-z", "--stdin", stdin=add, index=index)
    staged = await git("ls-files", "-s", "-z", "--", literal, index=index)
    mode, blob = staged.decode().split()[:2] if staged else ("", "")
    return Adoption(rel, time.time(), mode, blob)


async def effective_tree(
    git: Git, scratch: Path, tree: str, when: float, adoptions: list[Adoption]
) -> str:
    """`tree` (taken at `when`) plus the recorded bytes of each path adopted after `when`
    that it does not list: what those files held then, as far as zen knows."""
    first: dict[str, Adoption] = {}
    for a in sorted(adoptions, key=lambda a: a.time):
        if a.time > when:
            first.setdefault(a.path, a)
    due = [a for a in first.values() if a.blob]
    if not due:
        return tree
    listed = await git("ls-tree", "-r", "-z", "--full-tree", "--name-only", tree)
    names = set(listed.decode("utf-8", "surrogateescape").split("\0"))
    missing = [a for a in due if a.path not in names]
    if not missing:
        return tree
    info = "".join(f"{a.mode} {a.blob}\t{a.path}\0" for a in missing)
    try:
        await git("read-tree", tree, index=scratch)
        await git(
            "update-index",
            "-z",
            "--index-info",
            stdin=info.encode("utf-8", "surrogateescape"),
            index=scratch,
        )
        return (await git("write-tree", index=scratch)).decode().strip()
    finally:
        with contextlib.suppress(OSError):
            scratch.unlink()

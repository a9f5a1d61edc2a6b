"""Checkpoints without git: copies of the files zen's own tools change.

Without a git executable zen cannot snapshot the whole tree, so it records only what its file
tools touch: before write-file or edit-file runs (the registry's `before_change` hook, for
every agent, the Coder and sub-agents included), the file's bytes and mode are kept as it was
when zen first touched it (its baseline). A checkpoint is a manifest of every tracked path
(sha256 and mode, or absent) in `trees/`, the bytes in `blobs/`, both private. A path a manifest
does not list was, at that checkpoint, as its baseline says. Changes made through bash are not
seen; the session says so once. Same interface as `ShadowRepo`, so the store, the conflict
rules and every front-end work unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from zen.base.paths import private_dir
from zen.checkpoints import scope
from zen.checkpoints.files import folder_size, write_private
from zen.checkpoints.shadow import Change

UNKNOWN = "?"
"""A path's state is not known (too big, unreadable, or tracked by another process first)."""
Entry = Any
"""[sha256, mode], None (absent) or UNKNOWN."""


class CopyRepo:
    def __init__(self, root: Path, folder: Path, *, max_file_size: int = 2_000_000) -> None:
        self.root = root
        self.folder = folder
        self.git_dir = folder / "copies"
        """Named like the shadow's: it exists once anything was recorded."""
        self.blobs = self.git_dir / "blobs"
        self.trees = self.git_dir / "trees"
        self.index = folder / "index-none"
        self.max_file_size = max_file_size
        self.skipped: dict[str, str] = {}
        self.own = scope.own_state(root, folder)
        self.baseline: dict[str, Entry] = {}
        self._ready = False

    async def ensure(self) -> None:
        if self._ready:
            return
        await asyncio.to_thread(self._ensure)
        self._ready = True

    def _ensure(self) -> None:
        private_dir(self.blobs)
        private_dir(self.trees)
        write_private(self.git_dir / "HEAD", "copies\n")
        with contextlib.suppress(OSError):
            for line in (self.git_dir / "baseline.jsonl").read_text("utf-8").splitlines():
                with contextlib.suppress(ValueError, KeyError, TypeError):
                    raw = json.loads(line)
                    self.baseline.setdefault(str(raw["path"]), raw["entry"])
        for tree in self.trees.glob("*.json"):  # paths an earlier process tracked
            for path in self._load(tree.stem):
                self.baseline.setdefault(path, UNKNOWN)

    async def track(self, rel: str) -> None:
        """Before zen changes `rel`: remember it as it is now, the first time only."""
        await self.ensure()
        if scope.inside(rel, self.own):
            return
        if self.baseline.get(rel, UNKNOWN) == UNKNOWN:
            entry = await asyncio.to_thread(self._capture, rel)
            self.baseline[rel] = entry
            line = json.dumps({"path": rel, "entry": entry}) + "\n"
            await asyncio.to_thread(self._append_baseline, line)

    def _append_baseline(self, line: str) -> None:
        """Baselines outlive the process: `zen rewind` runs in another one."""
        fd = os.open(self.git_dir / "baseline.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line.encode())
        finally:
            os.close(fd)

    def _capture(self, rel: str) -> Entry:
        path = self.root / rel
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            return None
        except OSError:
            return UNKNOWN
        if not stat.S_ISREG(st.st_mode) or st.st_size > self.max_file_size:
            return UNKNOWN
        try:
            data = path.read_bytes()
        except OSError:
            return UNKNOWN
        digest = hashlib.sha256(data).hexdigest()
        blob = self.blobs / digest
        if not blob.exists():
            fd = os.open(f"{blob}.{os.getpid()}.tmp", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(f"{blob}.{os.getpid()}.tmp", blob)
        return [digest, stat.S_IMODE(st.st_mode)]

    async def snapshot(self) -> str:
        await self.ensure()
        return await asyncio.to_thread(self._snapshot)

    def _snapshot(self) -> str:
        manifest = {rel: self._capture(rel) for rel in sorted(self.baseline)}
        text = json.dumps(manifest, sort_keys=True)
        tree = hashlib.sha256(text.encode()).hexdigest()[:40]
        target = self.trees / f"{tree}.json"
        if not target.exists():
            write_private(target, text)
        return tree

    def _load(self, tree: str) -> dict[str, Entry]:
        try:
            data = json.loads((self.trees / f"{tree}.json").read_text("utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def manifest(self, tree: str) -> dict[str, Entry]:
        """Every tracked path's state at `tree`, baselines filling what it does not list."""
        listed = self._load(tree)
        return {p: listed.get(p, self.baseline.get(p, UNKNOWN)) for p in {*listed, *self.baseline}}

    async def keep(self, name: str, tree: str) -> None:
        return None

    async def effective_tree(self, tree: str, when: float) -> str:
        return tree  # baselines already stand in for what a manifest does not list

    async def ignored(self) -> list[str]:
        return []  # only what zen's tools touch is recorded, ignored or not

    async def forget(self, names: list[str]) -> None:
        return None

    async def changes(self, old: str, new: str) -> list[Change]:
        if old == new:
            return []
        a, b = self.manifest(old), self.manifest(new)
        found = []
        for path in sorted({*a, *b}):
            x, y = a.get(path, UNKNOWN), b.get(path, UNKNOWN)
            if UNKNOWN in (x, y) or x == y:
                continue
            status = "A" if x is None else "D" if y is None else "M"
            found.append(Change(path, status, _mode(x), _mode(y)))
        return found

    async def numstat(self, old: str, new: str) -> dict[str, tuple[int, int] | None]:
        a, b = self.manifest(old), self.manifest(new)
        stats: dict[str, tuple[int, int] | None] = {}
        for change in await self.changes(old, new):
            before, after = self._text(a.get(change.path)), self._text(b.get(change.path))
            if before is None or after is None:
                stats[change.path] = None
                continue
            lines = list(difflib.ndiff(before, after))
            stats[change.path] = (
                sum(ln.startswith("+ ") for ln in lines),
                sum(ln.startswith("- ") for ln in lines),
            )
        return stats

    def blob(self, tree: str, path: str) -> bytes | None:
        """A file's bytes at `tree`; None when absent, b"\\0" (binary) when unknown."""
        entry = self.manifest(tree).get(path, UNKNOWN)
        if entry is None:
            return None
        try:
            return (self.blobs / entry[0]).read_bytes()
        except (OSError, TypeError, IndexError):
            return b"\0"

    def _text(self, entry: Entry) -> list[str] | None:
        if entry is None:
            return []
        try:
            data = (self.blobs / entry[0]).read_bytes()
        except (OSError, TypeError, IndexError):
            return None
        return None if b"\0" in data[:8192] else data.decode("utf-8", "replace").splitlines()

    async def checkout(self, tree: str, paths: list[str]) -> None:
        await asyncio.to_thread(self._checkout, self.manifest(tree), paths)

    def _checkout(self, manifest: dict[str, Entry], paths: list[str]) -> None:
        for rel in paths:
            entry = manifest.get(rel)
            if not isinstance(entry, list):
                continue
            path = self.root / rel
            parent = path.parent
            parent.mkdir(parents=True, exist_ok=True)
            real = parent.resolve()
            if real != self.root and not real.is_relative_to(self.root):
                continue  # a symlinked folder now leads outside: never write there
            tmp = real / f".{path.name}.zen-restore"
            data = (self.blobs / entry[0]).read_bytes()
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.chmod(tmp, entry[1])
            os.replace(tmp, real / path.name)

    async def gc(self) -> None:
        return None  # blobs are few (only what zen's tools touched) and kept

    def disk_usage(self) -> int:
        return folder_size(self.git_dir)

    def close(self) -> None:
        return None


def _mode(entry: Entry) -> str:
    if not isinstance(entry, list):
        return "000000"
    return "100755" if entry[1] & 0o111 else "100644"

"""Checkpoints of one workspace: recorded snapshots, and rewinding to one of them.

Each checkpoint is one JSON line in `checkpoints.jsonl` (id, tree, time, kind, run, label)
next to the shadow repository, appended whole with O_APPEND so concurrent zen processes
interleave lines, not bytes. Kinds: `before` and `after` frame a turn that may change files,
`coder` precedes a Coder's run, `rewind` is the state just before a rewind, `restored` the
state after it.

Who changed a file? Changes between a `before` and the next checkpoint are zen's. Changes
that happen between a checkpoint and the next `before` or `rewind` happened while zen was not
running a turn: someone else made them. A rewind lists those files as conflicts and never
overwrites them unless told to; files only zen changed are restored without a question.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import time
from dataclasses import asdict
from pathlib import Path

from zen.base.paths import zen_home
from zen.base.text import clip
from zen.checkpoints import scope
from zen.checkpoints.copies import CopyRepo
from zen.checkpoints.files import write_private
from zen.checkpoints.plan import Checkpoint, Plan, changed_since, in_the_way
from zen.checkpoints.restore_files import remove_and_remember, restore_modes
from zen.checkpoints.scope import workspace_key
from zen.checkpoints.shadow import ShadowRepo

GAP_ENDS = frozenset({"before", "rewind"})
"""Kinds recorded when zen starts acting: what changed just before them was not zen."""
LABEL_LIMIT = 80


def snapshots_home() -> Path:
    return zen_home() / "snapshots"


class CheckpointStore:
    def __init__(
        self,
        root: Path,
        *,
        max_file_size: int = 2_000_000,
        tool_file_size: int = 10_000_000,
        keep_days: float = 7,
        max_mb: float = 500,
        folder: Path | None = None,
        copies: bool = False,
    ) -> None:
        self.root = root
        self.folder = folder or snapshots_home() / workspace_key(root)
        self.repo: ShadowRepo | CopyRepo = (
            CopyRepo(root, self.folder, max_file_size=max(max_file_size, tool_file_size))
            if copies
            else ShadowRepo(
                root, self.folder, max_file_size=max_file_size, tool_file_size=tool_file_size
            )
        )
        self.copies = copies
        """No git: only files zen's own tools change are recorded (`track` before each)."""
        self.log = self.folder / "checkpoints.jsonl"
        self.keep_days = keep_days
        self.max_mb = max_mb

    # -- recording --------------------------------------------------------------------------

    async def record(
        self, kind: str, run: str = "", label: str = "", session: str = ""
    ) -> Checkpoint:
        """Snapshot the workspace now and remember it."""
        tree = await self.repo.snapshot()
        checkpoint = Checkpoint(
            secrets.token_hex(4), tree, time.time(), kind, run, _label(label), session
        )
        await self.remember(checkpoint)
        return checkpoint

    async def remember(self, checkpoint: Checkpoint) -> None:
        await self.repo.keep(checkpoint.id, checkpoint.tree)
        await asyncio.to_thread(self._append, checkpoint)

    def _append(self, checkpoint: Checkpoint) -> None:
        line = (json.dumps(asdict(checkpoint), ensure_ascii=False) + "\n").encode()
        fd = os.open(self.log, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)

    def checkpoints(self) -> list[Checkpoint]:
        """Every checkpoint of this workspace, oldest first; damaged lines are skipped."""
        try:
            data = self.log.read_text("utf-8", "replace")
        except OSError:
            return []
        found = []
        for line in data.splitlines():
            try:
                raw = json.loads(line)
                found.append(
                    Checkpoint(
                        str(raw["id"]),
                        str(raw["tree"]),
                        float(raw["time"]),
                        str(raw["kind"]),
                        str(raw.get("run", "")),
                        str(raw.get("label", "")),
                        str(raw.get("session", "")),
                    )
                )
            except (ValueError, KeyError, TypeError):
                continue
        return found

    def find(self, ident: str) -> Checkpoint | None:
        """The checkpoint whose id starts with `ident` (None when none or several do)."""
        ident = ident.strip().lower()
        matches = [c for c in self.checkpoints() if ident and c.id.startswith(ident)]
        return matches[0] if len(matches) == 1 else None

    def run_start(self, run: str) -> Checkpoint | None:
        """The first checkpoint of a run: the workspace before that message changed it."""
        return next((c for c in self.checkpoints() if c.run == run), None)

    def last_run(self) -> str | None:
        """The most recent run that could have changed files and was not undone since."""
        runs: list[str] = []
        for c in self.checkpoints():
            if c.run.startswith("undo:"):  # that run and every later one are undone
                undone = c.run[5:]
                runs = runs[: runs.index(undone)] if undone in runs else runs
            elif c.run and c.kind == "before" and c.run not in runs:
                runs.append(c.run)
        return runs[-1] if runs else None

    async def track(self, rel: str) -> None:
        """zen's own file tool is about to change `rel` (a workspace-relative path): make sure
        a rewind can restore it, whatever snapshots would leave out."""
        await self.repo.track(rel)

    # -- rewinding --------------------------------------------------------------------------

    async def plan(self, target: Checkpoint) -> Plan:
        """Snapshot the present, diff it against `target` and find the conflicts. Nothing is
        recorded until `apply`: a rewind the user declines leaves no trace."""
        history = self.checkpoints()
        tree = await self.repo.snapshot()
        current = Checkpoint(
            secrets.token_hex(4),
            tree,
            time.time(),
            "rewind",
            label=f"before rewinding to {target.id}",
        )
        goal = await self.repo.effective_tree(target.tree, target.time)
        changes = await self.repo.changes(current.tree, goal)
        own = self.repo.own
        changes = [c for c in changes if not scope.inside(c.path, own)]
        plan = Plan(target, current, changes, goal)
        reach = {**self.repo.skipped, **dict.fromkeys(await self.repo.ignored(), "ignored")}
        plan.out_of_reach = await asyncio.to_thread(
            changed_since, self.root, reach, target.time, own
        )
        if not changes:
            return plan
        plan.stats = await self.repo.numstat(current.tree, goal)
        ids = [c.id for c in history]
        later = history[ids.index(target.id) + 1 :] if target.id in ids else []
        trees = [goal, *[await self.repo.effective_tree(c.tree, c.time) for c in later]]
        trees.append(current.tree)
        outside: set[str] = set()
        for following, old, new in zip([*later, current], trees, trees[1:], strict=False):
            if following.kind in GAP_ENDS and old != new:
                outside.update(c.path for c in await self.repo.changes(old, new))
        plan.blocked = await asyncio.to_thread(in_the_way, self.root, changes)
        plan.conflicts = [p for p in plan.paths if p in outside or p in plan.blocked]
        return plan

    async def apply(
        self, plan: Plan, *, skip: set[str] | frozenset[str] = frozenset(), run: str = ""
    ) -> list[str]:
        """Make the files of `plan` what they were at its target; returns the paths done.

        `run`: what the `restored` checkpoint belongs to (`undo:<run>` marks a run undone).
        """
        chosen = [c for c in plan.changes if c.path not in skip and not plan.left_alone(c.path)]
        if not chosen:
            return []
        await self.remember(plan.current)  # the present, so this rewind can be undone too
        removed = [c for c in chosen if c.status in ("D", "T")]
        written = [c for c in chosen if c.status in ("A", "M", "T")]
        own = self.repo.own
        modes = await asyncio.to_thread(remove_and_remember, self.root, own, removed, written)
        await self.repo.checkout(plan.tree or plan.target.tree, [c.path for c in written])
        await asyncio.to_thread(restore_modes, modes)
        await self.record("restored", run, label=f"rewound to {plan.target.id}")
        return [c.path for c in chosen]

    # -- retention --------------------------------------------------------------------------

    async def prune(
        self, *, keep_days: float | None = None, max_mb: float | None = None
    ) -> tuple[int, int]:
        """Drop checkpoints older than `keep_days`, then the oldest until the repository
        fits in `max_mb`; git gc frees their objects. Returns (checkpoints dropped, bytes)."""
        keep_days = self.keep_days if keep_days is None else keep_days
        max_bytes = (self.max_mb if max_mb is None else max_mb) * 1_000_000
        if not (self.repo.git_dir / "HEAD").is_file():
            return 0, 0
        await self.repo.ensure()
        everything = self.checkpoints()
        cutoff = time.time() - keep_days * 86400
        old = [c for c in everything if c.time < cutoff]
        dropped = await self._drop(old)
        await self.repo.gc()
        for _round in range(6):
            size = await asyncio.to_thread(self.repo.disk_usage)
            remaining = self.checkpoints()
            if size <= max_bytes or not remaining:
                break
            dropped += await self._drop(remaining[: max(1, len(remaining) // 4)])
            await self.repo.gc()
        await asyncio.to_thread(self._remove_stale_indexes)
        with contextlib.suppress(OSError):
            write_private(self.folder / "pruned", f"{time.time()}\n")
        return dropped, await asyncio.to_thread(self.repo.disk_usage)

    async def _drop(self, checkpoints: list[Checkpoint]) -> int:
        if not checkpoints:
            return 0
        names = {c.id for c in checkpoints}
        await self.repo.forget(sorted(names))
        await asyncio.to_thread(self._rewrite_without, names)
        return len(names)

    def _rewrite_without(self, names: set[str]) -> None:
        kept = [c for c in self.checkpoints() if c.id not in names]
        write_private(
            self.log, "".join(json.dumps(asdict(c), ensure_ascii=False) + "\n" for c in kept)
        )

    def _remove_stale_indexes(self) -> None:
        """Indexes of zen processes that died more than a day ago."""
        day_ago = time.time() - 86400
        for path in self.folder.glob("index-*"):
            with contextlib.suppress(OSError):
                if path != self.repo.index and path.stat().st_mtime < day_ago:
                    path.unlink()

    def prune_due(self) -> bool:
        """Whether a day has passed since the last prune (zen prunes at most daily)."""
        try:
            return time.time() - (self.folder / "pruned").stat().st_mtime > 86400
        except OSError:
            return (self.repo.git_dir / "HEAD").is_file()

    def close(self) -> None:
        self.repo.close()


def _label(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    line = "".join(ch if ch.isprintable() else " " for ch in line)
    return clip(line, LABEL_LIMIT)

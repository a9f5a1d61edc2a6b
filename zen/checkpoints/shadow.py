"""The shadow repository: git plumbing on a private GIT_DIR whose work tree is the workspace.

Snapshots are tree objects (`update-index` + `write-tree`), kept reachable by one ref each
(`refs/zen/<id>`); there are no commits, no HEAD moves, no checkout of the whole tree. The
user's `.git` is never opened: GIT_DIR points here, and git itself skips every `.git` entry
of the work tree.

Git runs through `safe_git.py`, with everything that could make it run a program or change
bytes off. Here `info/attributes` (which outranks in-tree `.gitattributes`) unsets text/eol
conversion, filters (LFS), ident and working-tree-encoding for every path. Diff drivers need
config, which only this repository's own (ours) could give, so `diff` is left unspecified and
git's binary detection still works.

Objects, refs and indexes are private: the folder is 0700 and git children that write into it
run with umask 077. Each zen process has its own index, seeded from the last one published,
so two processes on one workspace do not take each other's `index.lock`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import shutil
from pathlib import Path

from zen.base.paths import private_dir
from zen.checkpoints import scope
from zen.checkpoints.adopted import AdoptionLog, adopt, effective_tree
from zen.checkpoints.files import folder_size, nul_list, unrecordable, write_private
from zen.checkpoints.git_inputs import refusal, unsafe_inputs
from zen.checkpoints.safe_git import TIMEOUT, CheckpointError, run_shadow_git
from zen.checkpoints.tree_diff import Change, changes, numstat

__all__ = ["Change", "ShadowRepo"]
ATTRIBUTES = "* -text -crlf -filter -ident -working-tree-encoding !eol !diff\n"


class ShadowRepo:
    def __init__(
        self,
        root: Path,
        folder: Path,
        *,
        max_file_size: int = 2_000_000,
        tool_file_size: int = 10_000_000,
        timeout: float = TIMEOUT,
    ) -> None:
        self.root = root
        self.folder = folder
        self.git_dir = folder / "git"
        self.max_file_size = max_file_size
        self.tool_file_size = tool_file_size
        """Files zen's own tools change are kept up to this size (edit-file's limit)."""
        self.timeout = timeout
        self.index = folder / f"index-{os.getpid()}-{secrets.token_hex(3)}"
        """This process's own index: stat data that makes an unchanged snapshot cheap."""
        self.skipped: dict[str, str] = {}
        """What the last snapshot left out (too big, unreadable, nested repositories): why."""
        self.own = scope.own_state(root, folder)
        """zen's own state inside the workspace (`~/.zen/`): never snapshotted, never touched."""
        self.adopted = AdoptionLog(folder / "adopted.jsonl")
        self._ready = False
        self._lock = asyncio.Lock()
        """One snapshot at a time per process: they share this process's index."""

    async def git(
        self,
        *args: str,
        stdin: bytes | None = None,
        index: Path | None = None,
        private: bool = True,
        timeout: float | None = None,
        repo: bool = True,
    ) -> bytes:
        """stdout of one git command on this repository (`repo=False`: on none); see
        `safe_git.run_shadow_git`."""
        return await run_shadow_git(
            args,
            self.root,
            git_dir=self.git_dir if repo else None,
            stdin=stdin,
            index=index,
            private=private,
            timeout=timeout or self.timeout,
        )

    # -- the repository ---------------------------------------------------------------------

    async def ensure(self) -> None:
        """Create the shadow repository on first use: private, with our attributes."""
        if self._ready:
            return
        await asyncio.to_thread(private_dir, self.folder)
        if not (self.git_dir / "HEAD").is_file():
            try:
                await self.git("init", "-q", "--bare", "--template=", str(self.git_dir), repo=False)
            except CheckpointError:
                await self._created_elsewhere()
        info = private_dir(self.git_dir / "info")
        attributes = info / "attributes"
        if not attributes.is_file() or attributes.read_text("utf-8", "replace") != ATTRIBUTES:
            write_private(attributes, ATTRIBUTES)
        write_private(info / "exclude", scope.exclude_lines(self.own))
        await asyncio.to_thread(self.adopted.load)
        where = self.folder / "workspace"
        if not where.is_file():
            write_private(where, str(self.root) + "\n")
        self._ready = True

    async def _created_elsewhere(self) -> None:
        """Another zen process on this workspace is creating the repository at this moment
        (its `git init` won the mkdir): wait for it to finish, briefly; else the error stands."""
        for _ in range(100):
            if (self.git_dir / "HEAD").is_file():
                return
            await asyncio.sleep(0.05)
        raise CheckpointError(f"cannot create the shadow repository in {self.git_dir}")

    # -- snapshots --------------------------------------------------------------------------

    async def snapshot(self) -> str:
        """The workspace as a tree object (its id); unchanged files cost one stat each."""
        await self.ensure()
        async with self._lock:
            try:
                return await self._snapshot()
            except CheckpointError:
                # Our index may name objects a prune removed: start over from an empty one.
                with contextlib.suppress(OSError):
                    self.index.unlink()
                return await self._snapshot(seed=False)

    async def _snapshot(self, *, seed: bool = True) -> str:
        index = self.index
        if seed and not index.exists():
            shared = self.git_dir / "index"
            if shared.is_file():
                await asyncio.to_thread(shutil.copyfile, shared, index)
        with contextlib.suppress(OSError):
            (self.folder / (index.name + ".lock")).unlink()  # left by a killed git of ours
        await self.check_inputs()
        listed = await self.git(
            "ls-files",
            "-z",
            "--others",
            "--modified",
            "--deleted",
            "--exclude-standard",
            index=index,
        )
        found = [p for p in listed.decode("utf-8", "surrogateescape").split("\0") if p]
        found = [p for p in found if not scope.inside(p.rstrip("/"), self.own)]
        self.skipped = {p: "in a nested git repository" for p in found if p.endswith("/")}
        adopted = [p for p in self.adopted.paths if not scope.inside(p, self.own)]
        paths = list(dict.fromkeys([*(p for p in found if not p.endswith("/")), *adopted]))
        if paths:
            keep, drop = await asyncio.to_thread(self._sort, paths)
            if keep:
                await self.git(
                    "update-index",
                    "--add",
                    "--remove",
                    "-z",
                    "--stdin",
                    stdin=nul_list(keep),
                    index=index,
                )
            if drop:
                await self.git(
                    "update-index",
                    "--force-remove",
                    "-z",
                    "--stdin",
                    stdin=nul_list(drop),
                    index=index,
                )
        tree = (await self.git("write-tree", index=index)).decode().strip()
        if paths:
            await asyncio.to_thread(self._publish)
        return tree

    async def check_inputs(self) -> None:
        """CheckpointError at once if git would wait on a file it opens (`git_inputs.py`)."""
        found = await asyncio.to_thread(unsafe_inputs, self.root, self.own)
        if found:
            raise CheckpointError(refusal(found))

    def _sort(self, paths: list[str]) -> tuple[list[str], list[str]]:
        """(paths to record, paths to leave out: bigger than the limit, unreadable, special);
        why each is left out goes to `skipped`."""
        keep: list[str] = []
        drop: list[str] = []
        for rel in paths:
            limit = self.tool_file_size if rel in self.adopted.paths else self.max_file_size
            why = unrecordable(os.path.join(self.root, rel), limit)
            (drop if why else keep).append(rel)
            if why:
                self.skipped[rel] = why
        return keep, drop

    async def track(self, rel: str) -> None:
        """zen's own file tool is about to change `rel`: if snapshots do not hold it (ignored,
        in a nested repository, too large), hold it from now on, recording what it is now."""
        await self.ensure()
        if rel in self.adopted.paths or scope.inside(rel, self.own):
            return
        async with self._lock:
            full = os.path.join(self.root, rel)
            why = await asyncio.to_thread(unrecordable, full, self.tool_file_size)
            if why:
                self.skipped[rel] = why
                return
            adoption = await adopt(self.git, rel, self.index)
            if adoption is not None:
                await asyncio.to_thread(self.adopted.append, adoption)

    async def effective_tree(self, tree: str, when: float) -> str:
        """`tree` with what zen's tools later adopted (see `adopted.py`)."""
        adoptions = await asyncio.to_thread(self.adopted.load)
        scratch = self.folder / f"effective-{os.getpid()}-{secrets.token_hex(3)}"
        return await effective_tree(self.git, scratch, tree, when, adoptions)

    def _publish(self) -> None:
        """Our index becomes the shared seed (and keeps its objects safe from gc)."""
        tmp = self.git_dir / f"index.{secrets.token_hex(3)}.tmp"
        try:
            shutil.copyfile(self.index, tmp)
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.git_dir / "index")
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.index.unlink()

    # -- reading snapshots ------------------------------------------------------------------

    async def keep(self, name: str, tree: str) -> None:
        """A ref per checkpoint, so gc keeps its objects until the checkpoint is pruned."""
        await self.git("update-ref", f"refs/zen/{name}", tree)

    async def forget(self, names: list[str]) -> None:
        if names:
            lines = "".join(f"delete refs/zen/{n}\n" for n in names).encode()
            await self.git("update-ref", "--stdin", stdin=lines)

    async def changes(self, old: str, new: str) -> list[Change]:
        """What differs between two trees, path by path."""
        return await changes(self.git, old, new)

    async def ignored(self) -> list[str]:
        """What `.gitignore` keeps out of snapshots: files, and `folder/` for a whole one."""
        await self.check_inputs()
        out = await self.git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"
        )
        found = out.decode("utf-8", "surrogateescape").split("\0")
        return [p for p in found if p and not scope.inside(p.rstrip("/"), self.own)]

    async def numstat(self, old: str, new: str) -> dict[str, tuple[int, int] | None]:
        """Lines added and removed per path; None for a binary file."""
        return await numstat(self.git, old, new)

    async def checkout(self, tree: str, paths: list[str]) -> None:
        """Write `paths` as they are in `tree` into the workspace (bytes and exec bit).

        git's own checkout refuses to write through a symlinked folder. The user's umask
        applies, as for any file they create; callers restore a file's other mode bits.
        """
        if not paths:
            return
        await self.check_inputs()
        scratch = self.folder / f"restore-{os.getpid()}-{secrets.token_hex(3)}"
        try:
            await self.git("read-tree", tree, index=scratch)
            await self.git(
                "checkout-index",
                "-f",
                "-z",
                "--stdin",
                stdin=nul_list(paths),
                index=scratch,
                private=False,
            )
        finally:
            with contextlib.suppress(OSError):
                scratch.unlink()

    async def gc(self) -> None:
        """Drop objects no ref or index holds, unless created in the last hour (a snapshot
        in flight in another process)."""
        await self.git("gc", "-q", "--prune=1.hour.ago", timeout=max(self.timeout, 300))

    def disk_usage(self) -> int:
        return folder_size(self.git_dir)

"""Which file a call may touch: a path confined to the workspace, never written inside
`.git/`, confirmed when it is the git config or the hooks folder, locked while it is written.

These rules come before any byte is read or written, so they live apart from reading and
writing: a tool asks here first, with its context, then works on the `Target` it got.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from zen.base.paths import expand_user
from zen.tools.files.regular import FileError, Target, open_regular, regular_stat
from zen.tools.workspace import PathError

if TYPE_CHECKING:
    from zen.tools.base import ToolContext


def target(ctx: ToolContext, path: str) -> Target:
    """Resolve `path` inside the workspace, or explain why it cannot be used."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError as exc:
        raise FileError(str(exc)) from None
    return Target(real, ctx.workspace.show(real))


def writable_target(ctx: ToolContext, path: str) -> Target:
    """Like `target`, but never inside a `.git` folder: a file tool writing `.git/config` or
    `.git/hooks/*` would get a program run by the next git command (fsmonitor, hooks)."""
    t = target(ctx, path)
    if in_git_dir(ctx.workspace.relative_parts(t.path)):
        raise FileError(
            f"{t.shown} is inside .git/; file tools do not write there. Use the git tool to "
            "change the repository"
        )
    return t


def in_git_dir(parts: tuple[str, ...]) -> bool:
    return any(part.lower() == ".git" for part in parts)


def needs_confirm_to_write(ctx: ToolContext, path: str) -> bool:
    """A write into the repository's hooks folder (core.hooksPath, e.g. `.husky/`): what lands
    there runs on the next commit, so it is confirmed whatever the permissions say."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        return False
    hooks = hooks_dir(ctx.workspace.root)
    return hooks is not None and (real == hooks or real.is_relative_to(hooks))


def needs_confirm_to_read(ctx: ToolContext, path: str) -> bool:
    """Reading `.git/config` is confirmed: remotes there may carry credentials in their URLs."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        return False
    parts = ctx.workspace.relative_parts(real)
    return len(parts) >= 2 and parts[-1].lower() == "config" and parts[-2].lower() == ".git"


def hooks_dir(root: Path) -> Path | None:
    """The folder `core.hooksPath` in the workspace's own `.git/config` names, resolved."""
    config = Target(root / ".git" / "config", ".git/config")
    try:
        regular_stat(config)  # a FIFO planted as .git/config must not block every write
        with os.fdopen(open_regular(config), "rb") as f:
            text = f.read(1_000_000).decode("utf-8", "replace")
    except (OSError, FileError):
        return None
    value = None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower() if "]" in line else ""
            continue
        key, sep, rest = line.partition("=")
        if sep and section == "core" and key.strip().lower() == "hookspath":
            value = rest.split("#")[0].split(";")[0].strip().strip('"')
    if not value:
        return None
    try:
        return (root / expand_user(value)).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


@asynccontextmanager
async def path_lock(ctx: ToolContext, path: str) -> AsyncIterator[None]:
    """Hold the session-wide lock of `path` so agents writing one file take turns.

    Check, write and re-stamp happen under it, so no agent writes between another's
    stale-read check and its write. A path that does not resolve takes no lock; the tool
    reports it.
    """
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        yield
        return
    async with ctx.workspace.lock(real):
        yield

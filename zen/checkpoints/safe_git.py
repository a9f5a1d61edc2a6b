"""Running git for the checkpoints with nothing that could run a program or change bytes.

Whatever the repository or the user configured: no system or global config
(GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL to the null device), no hooks, no fsmonitor, no
attributes file (`SAFE_CONFIG`, passed with `-c`, outranks any config file), no pager or
editor, and an environment that keeps only what git needs to find itself and its temp
folders (`KEPT_ENV`). A child that writes into the shadow folder runs with umask 077 (set in
the child only; zen's own umask never changes). A command that fails, overruns its time or
cannot start is one `CheckpointError` line; a cancelled one leaves nothing running
(`child.py`, the one rule for children).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from zen.tools.child import run_child

TIMEOUT = 60.0
"""Seconds one git command may take; a huge first snapshot stays well inside."""
OUTPUT_LIMIT = 256 << 20
"""Bytes of a git command's output kept; past it the command is stopped and fails."""
NULL = os.devnull
SAFE_CONFIG = (
    "core.fsmonitor=false",
    f"core.hooksPath={NULL}",
    f"core.attributesFile={NULL}",
    "core.autocrlf=false",
    "core.safecrlf=false",
    "core.sharedRepository=0600",
    "core.untrackedCache=false",
    "core.splitIndex=false",
    "core.quotePath=false",
    "core.logAllRefUpdates=false",
    "gc.auto=0",
    "maintenance.auto=false",
    "index.threads=1",
    "safe.directory=*",
    "core.precomposeUnicode=false",
)
"""Passed with `-c` on every command: the command line outranks any config file."""
KEPT_ENV = (
    "PATH",
    "SYSTEMROOT",
    "SystemRoot",
    "TMPDIR",
    "TEMP",
    "TMP",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "HOME",
    "USERPROFILE",
    "XDG_CONFIG_HOME",
)
_POSIX = os.name != "nt"


class CheckpointError(Exception):
    """A snapshot or restore could not be done; the message says why, in one line."""


def has_git() -> bool:
    return shutil.which("git") is not None


async def run_shadow_git(
    args: Sequence[str],
    root: Path,
    *,
    git_dir: Path | None,
    stdin: bytes | None = None,
    index: Path | None = None,
    private: bool = True,
    timeout: float = TIMEOUT,
) -> bytes:
    """stdout of one git command on a shadow repository, in `root`; CheckpointError if it
    fails, overruns or cannot start. (The user's own repository is `tools.git_process.run_git`'s,
    with the same argument order.)

    `git_dir`: the repository, whose work tree is `root` (None: no repository, for `init`).
    `private`: the child runs with umask 077 (it writes only into the shadow folder);
    checkout children keep the user's umask, so restored files get their usual modes.
    """
    cmd = ["git", *(x for c in SAFE_CONFIG for x in ("-c", c)), *args]
    extra: dict[str, Any] = {}
    if _POSIX and private:
        extra["umask"] = 0o077
    try:
        done = await run_child(
            cmd,
            cwd=root,
            env=_env(root, git_dir, index),
            stdin=stdin,
            timeout=timeout,
            limit=OUTPUT_LIMIT,
            stop_at_limit=True,
            **extra,
        )
    except OSError as exc:
        raise CheckpointError(f"cannot run git: {exc.strerror or exc}") from None
    if done.timed_out or done.code is None:
        raise CheckpointError(f"git {args[0]} took longer than {timeout:g}s")
    if done.cut_short:
        raise CheckpointError(f"git {args[0]} wrote over {OUTPUT_LIMIT >> 20} MB")
    if done.code != 0:
        assert done.err is not None
        lines = done.err.data().decode("utf-8", "replace").strip().splitlines()
        reason = lines[-1] if lines else f"exit {done.code}"
        raise CheckpointError(f"git {args[0]} failed: {reason}")
    return done.out.data()


def _env(root: Path, git_dir: Path | None, index: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k in KEPT_ENV}
    if git_dir is not None:
        env.update(GIT_DIR=str(git_dir), GIT_WORK_TREE=str(root))
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=NULL,
        GIT_ATTR_NOSYSTEM="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
        GIT_NO_LAZY_FETCH="1",
        GIT_LFS_SKIP_SMUDGE="1",
        GIT_PAGER="cat",
        GIT_EDITOR="true",
    )
    if index is not None:
        env["GIT_INDEX_FILE"] = str(index)
    return env

"""What in a git directory is git's data and what makes git run a program.

A sandboxed command may run git, and git writes straight into its directory (`index.lock`,
`HEAD.lock`, `COMMIT_EDITMSG`, `rebase-merge/`...), so the directory stays writable. What git
reads as configuration or runs (config, hooks, a `commondir` or `gitdir` pointer...) is bound
read-only where it exists, and everything that is not on the data allow-list below is guarded:
recorded before a command and undone after it. The allow-list errs on the side of git's own
files: a name missing from it costs a tool's stray file being undone, a name wrongly on it
would let a command plant something git runs.

Submodules keep whole git directories under `modules/<name>` (a name may hold slashes, and
submodules nest) and linked worktrees keep theirs under `worktrees/<name>`: each is guarded
like the top one.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

CONFIG = (
    "config", "config.worktree", "commondir", "gitdir", "hooks", "info", "branches", "remotes",
)  # fmt: skip
"""Bound read-only where they exist: git reads them as configuration or runs what they hold
(`branches/` and `remotes/` are the old ways to name remotes)."""

DATA = frozenset(
    {
        "objects", "refs", "logs", "index", "HEAD", "packed-refs", "shallow", "description",
        "reftable", "COMMIT_EDITMSG", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "SQUASH_MSG",
        "TAG_EDITMSG", "NOTES_EDITMSG", "EDIT_DESCRIPTION", "MERGE_AUTOSTASH", "rebase-merge",
        "rebase-apply", "sequencer", "rr-cache", "BISECT_LOG", "BISECT_START", "BISECT_TERMS",
        "BISECT_NAMES", "BISECT_ANCESTORS_OK", "BISECT_EXPECTED_REV", "BISECT_RUN",
        "BISECT_FIRST_PARENT", "NOTES_MERGE_PARTIAL", "NOTES_MERGE_REF", "NOTES_MERGE_WORKTREE",
        "gc.pid", "gc.log", "lost-found", "fsmonitor--daemon", "fsmonitor--daemon.ipc",
        "locked", "prunable", "lfs", "annex", "svn", "filter-repo", "gitk.cache",
    }
)  # fmt: skip
"""git's data files and those of the tools that keep data there (git-lfs, git-annex, git-svn):
written by ordinary commands, never run. The sequencer's and rebase's todo lists are data too,
although `rebase --continue` runs their `exec` lines: see docs/sandbox.md."""

DATA_PATTERNS = ("*_HEAD", "*.lock", "index.stash.*", "sharedindex.*", "*.patch")
CONTAINERS = ("modules", "worktrees")
"""Data folders whose entries are git directories of their own."""
MAX_DEPTH = 8
"""How deep submodule names (`modules/a/b/c`) and nested submodules are followed."""


def inert(rel: str) -> bool:
    """A hook sample (`hooks/pre-commit.sample`): git runs hooks by their exact name only, so
    a sample is neither recorded nor compared (git puts 14 in every repository)."""
    return rel.startswith("hooks/") and rel.endswith(".sample") and rel.count("/") == 1


def is_data(name: str) -> bool:
    """`name`, an entry of a git directory, is git's data."""
    return name in DATA or any(fnmatch.fnmatchcase(name, p) for p in DATA_PATTERNS)


def looks_like_git_dir(names: set[str] | list[str]) -> bool:
    """A folder with these entries is (or poses as) a git directory: git takes a folder with
    HEAD, `objects` and `refs` for one (a `commondir` pointer standing in for the last two),
    so HEAD with `objects` or `commondir` is enough here (a folder without `config` can still
    hold hooks)."""
    names = set(names)
    return "HEAD" in names and bool(names & {"objects", "commondir"})


def guarded(gitdir: Path) -> tuple[list[str], list[Path]]:
    """(the entries of `gitdir` to guard, relative to it; the git directories inside it, under
    `modules/` and `worktrees/` or posing as one, to guard the same way)."""
    names = _listdir(gitdir)
    mine: list[str] = []
    inner: list[Path] = []
    for name in names:
        if name in CONTAINERS:
            _container(gitdir / name, name, mine, inner, 0)
        elif is_data(name):
            continue
        elif _poses(gitdir / name):
            inner.append(gitdir / name)
        else:
            mine.append(name)
    return mine, inner


def _container(folder: Path, rel: str, mine: list[str], inner: list[Path], depth: int) -> None:
    """A `modules/` (or `worktrees/`) folder: its folders that look like git directories are
    guarded on their own; other folders are followed (a submodule name may hold slashes);
    files in it, and what lies deeper than MAX_DEPTH, are guarded whole."""
    if not _is_real_dir(folder) or depth >= MAX_DEPTH:
        if os.path.lexists(folder):
            mine.append(rel)
        return
    for name in _listdir(folder):
        path = folder / name
        if not _is_real_dir(path):
            mine.append(f"{rel}/{name}")
        elif _poses(path):
            inner.append(path)
        else:
            _container(path, f"{rel}/{name}", mine, inner, depth + 1)


def config_paths(gitdir: Path) -> list[Path]:
    """The configuration of `gitdir` that exists, to bind read-only (never a symlink; not an
    empty `branches/` or `remotes/`, which git makes by default: the undo covers them, and
    every bind costs bwrap about a millisecond)."""
    return [
        gitdir / name
        for name in CONFIG
        if _exists(gitdir / name)
        and not (name in ("branches", "remotes") and not _listdir(gitdir / name))
    ]


def _poses(path: Path) -> bool:
    """`path` is a real folder that looks like a git directory (HEAD checked first: cheap)."""
    return (
        os.path.lexists(path / "HEAD") and _is_real_dir(path) and looks_like_git_dir(_listdir(path))
    )


def pointer(path: Path) -> Path | None:
    """Where a `.git` file (`gitdir: …`) or a `commondir` file points, made absolute."""
    try:
        text = path.read_text("utf-8", "replace").strip()
    except OSError:
        return None
    if path.name == ".git":
        if not text.startswith("gitdir:"):
            return None
        text = text[len("gitdir:") :].strip()
    if not text:
        return None
    return Path(os.path.normpath(path.parent / text))


def _listdir(path: Path) -> list[str]:
    try:
        return sorted(os.listdir(path))
    except OSError:
        return []


def _is_real_dir(path: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _exists(path: Path) -> bool:
    try:
        return not stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False

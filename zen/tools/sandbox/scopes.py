"""What the guard watches, found afresh before and after every command.

Three kinds of scope, each a path and what is under it:
- `path`: the workspace's own configuration, every file that runs a program when the folder
  is opened in an editor, entered in a shell or used by git or zen (`PROTECTED`), whether it
  exists or not;
- `git`: a git directory (the workspace's `.git`, a nested repository's, a folder posing as
  one, a submodule's or worktree's inside them, and those outside the workspace that its git
  writes): its entries that are not git's data (`gitdirs`);
- `pointer`: a `.git` file or symlink (`gitdir: …`), which decides where git looks;
- `home`: a home used as the workspace: its dot entries (`~/.gitconfig`, `~/.config`,
  `~/.local`: what every shell, editor, git and Python run) and the folders holding its PATH
  entries (`~/bin`), each bound read-only whole; a new one is removed.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from zen.tools.sandbox import gitdirs
from zen.tools.sandbox.entries import Entry, Keep, walk
from zen.tools.sandbox.repos import Tree

PROTECTED = (
    ".zen", ".mcp.json", ".claude",
    ".vscode", ".idea", ".devcontainer", ".zed", ".helix", ".nvim.lua", ".nvimrc", ".exrc",
    ".dir-locals.el",
    ".envrc", ".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
    ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".kshrc", ".cshrc", ".tcshrc",
    ".config/fish",
    ".pre-commit-config.yaml", ".husky", ".githooks", "lefthook.yml", ".lefthook.yml",
    "lefthook-local.yml",
)  # fmt: skip
"""Relative to the workspace: zen's and Claude's configuration; editors' (tasks that run when
a folder is opened, per-folder init files); what a shell runs on entering the folder (direnv)
or starting in it (rc and profile files, for a home used as workspace); the hook managers a
repository's own files configure."""

Kind = Literal["path", "git", "pointer", "home"]


@dataclass(frozen=True)
class Scope:
    anchor: Path
    """Nothing above it is ever followed (the workspace, or a git directory outside it)."""
    top: Path
    kind: Kind
    names: tuple[str, ...] = ()
    """A git directory's guarded entries, relative to it, as found when collected."""

    def read(self, keep: Keep | None) -> dict[str, Entry]:
        """The scope's entries now, relative to `top` ("" for `top` itself)."""
        if self.kind == "home":
            return walk(self.anchor, self.top, home_names(self.top, self.names), keep, None, True)
        if self.kind != "git":
            return walk(self.anchor, self.top, None, keep)
        mine = [n for n in self.names if "/" not in n]
        found = walk(self.anchor, self.top, mine, keep, gitdirs.inert)
        for rel in (n for n in self.names if "/" in n):  # files in modules/: rare
            for inner, entry in walk(self.anchor, self.top / rel, None, keep).items():
                found[f"{rel}/{inner}" if inner else rel] = entry
        return found

    def read_only(self) -> list[Path]:
        """What to bind read-only: what exists of it, never a symlink. A `.git` pointer file
        is left to the undo: a submodule checkout has one each, and every bind costs bwrap
        about a millisecond."""
        if self.kind == "git":
            return gitdirs.config_paths(self.top)
        if self.kind == "home":
            names = home_names(self.top, self.names)
            return [self.top / n for n in names if _is_dir_or_file(self.top / n)]
        info = _lstat(self.top) if self.kind == "path" else None
        return [self.top] if info is not None and not stat.S_ISLNK(info.st_mode) else []


def collect(
    root: Path,
    tree: Tree,
    outside: Sequence[Path],
    hidden: Sequence[Path],
    targets: Sequence[Path] = (),
    home: Sequence[str] | None = None,
) -> list[Scope]:
    """Every scope as the workspace is now, and `targets` (see `link_targets`); `hidden`
    paths (secrets the command cannot see, a home's ~/.zen) are left out. `home`: the
    workspace is a home, and these names in it (PATH's folders) are guarded with its dot
    entries."""
    scopes = [Scope(root, root / rel, "path") for rel in PROTECTED]
    for rel, is_dir in sorted(tree.marks().items()):
        top = root / rel if rel else root
        if is_dir:
            _git(root, top, scopes, 0)
        else:
            scopes.append(Scope(root, top, "pointer"))
    for gitdir in outside:
        _git(gitdir, gitdir, scopes, 0)
    for target in targets:  # last: `Guard.begin` adds them to a collection made without
        anchor = next((a for a in (root, *outside) if _under(target, a)), None)
        if anchor is not None and target != anchor:
            scopes.append(Scope(anchor, target, "path"))
    scopes = [s for s in scopes if not any(_under(s.top, h) for h in hidden)]
    if home is not None:  # what another scope (or `hidden`) covers is left to it
        taken = {s.top.name for s in scopes if s.top.parent == root}
        taken |= {h.name for h in hidden if h.parent == root} | {".git"}
        scopes.append(Scope(root, root, "home", (*home, *(f"-{name}" for name in taken))))
    return scopes


def home_names(home: Path, names: Sequence[str]) -> list[str]:
    """The entries of a home to guard: its dot entries and the `names` given, without those
    given as `-name`."""
    left_out = {n[1:] for n in names if n.startswith("-")}
    wanted = {n for n in names if not n.startswith("-")}
    try:
        present = os.listdir(home)
    except OSError:
        return []
    return sorted(n for n in present if (n.startswith(".") or n in wanted) and n not in left_out)


def _is_dir_or_file(path: Path) -> bool:
    info = _lstat(path)
    return info is not None and (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode))


def link_targets(
    root: Path, outside: Sequence[Path], links: Sequence[Path], scopes: list[Scope]
) -> list[Path]:
    """Where guarded symlinks lead (and what git's configuration names: `named`), when that
    is somewhere the command may write and no scope covers already: `.bashrc ->
    dotfiles/bashrc` makes `dotfiles/bashrc` configuration too, `core.hooksPath = tools/hooks`
    makes `tools/hooks`. Resolved before the command, through the user's own links."""
    found: dict[Path, None] = {}  # a set in order: thousands of links must not be quadratic
    covered = [s.top for s in scopes if s.kind == "path"]
    covered += [s.top / n for s in scopes if s.kind == "git" for n in s.names]
    for path in links:
        real = Path(os.path.realpath(path))
        if not any(_under(real, a) for a in (root, *outside)) or real in found:
            continue
        if not any(_under(real, top) for top in covered):
            found[real] = None
    return list(found)


def _git(anchor: Path, top: Path, scopes: list[Scope], depth: int) -> None:
    names, inner = gitdirs.guarded(top)
    scopes.append(Scope(anchor, top, "git", tuple(names)))
    if depth < gitdirs.MAX_DEPTH:
        for path in inner:
            _git(anchor, path, scopes, depth + 1)


def outside_git_dirs(root: Path, secrets: Sequence[Path]) -> list[Path]:
    """The git directories outside the workspace that git run in it writes: the enclosing
    repository's when the workspace is a subfolder of one, a linked worktree's own and its
    common one. Only what looks like a git directory and touches no secret path."""
    found: list[Path] = []
    marker = root / ".git"
    if not os.path.lexists(marker):
        marker = next((p / ".git" for p in root.parents if os.path.lexists(p / ".git")), marker)
    info = _lstat(marker)
    if info is None:
        return found
    gitdir = marker if stat.S_ISDIR(info.st_mode) else gitdirs.pointer(marker)
    if gitdir is None:
        return found
    common = gitdirs.pointer(gitdir / "commondir") if (gitdir / "commondir").is_file() else None
    for path in (gitdir, common):
        if path is None:
            continue
        real = Path(os.path.realpath(path))
        if _under(real, root) or real in found or real == Path(real.anchor):
            continue
        if any(_under(real, s) or _under(s, real) for s in secrets):
            continue
        if real.is_dir() and gitdirs.looks_like_git_dir(os.listdir(real)):
            found.append(real)
    return found


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None

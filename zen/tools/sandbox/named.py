"""Paths that git's configuration names, which makes them configuration too.

A repository may keep its hooks in the work tree (`core.hooksPath = tools/hooks`, as many
set up by hand), take part of its configuration from a file there (`include.path =
../conf/gitconfig`, `includeIf "…".path`), or name a program kept there
(`core.fsmonitor = tools/watch.sh`, `alias.x = !./x.sh`): a command that writes that file or
folder makes the user's next `git commit` or `git status` run its code, outside the sandbox.
So the guard treats what the configuration names as it treats where a guarded symlink leads
(`scopes.link_targets`): bound read-only while the command runs, undone after it.

A small reader, not `git config`: a process per command costs milliseconds, and the files it
reads are the ones the guard keeps read-only (the command cannot have written them).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from pathlib import Path

from zen.base.paths import expand_user
from zen.tools.sandbox.command_paths import command_paths

MAX_BYTES = 1 << 20
"""Of each configuration file read (git's own are a few KB)."""
PROGRAMS = frozenset(
    {
        "fsmonitor", "sshcommand", "editor", "pager", "askpass", "gitproxy", "program",
        "textconv", "command", "driver", "clean", "smudge", "process", "helper", "external",
        "receivepack", "uploadpack", "cmd", "path",
    }
)  # fmt: skip
"""The last part of keys whose value is a program to run (`gpg.x509.program`,
`filter.lfs.clean`, `difftool.x.cmd`...): one given by a path is guarded."""
PROGRAM_ENDINGS = ("command", "cmd", "filter")
"""Key endings that name a program too (`gpg.ssh.defaultKeyCommand`, `sendemail.toCmd`,
`interactive.diffFilter`, `hook.x.command`), however git adds to its list."""
PROGRAM_SECTIONS = ("alias.", "pager.", "submodule.", "sendemail.")
"""Sections any of whose keys may run a program: `pager.log = sh x.sh` pages `git log`,
`submodule.x.update = !cmd` runs at `git submodule update`, `sendemail.smtpServer` may be a
program's path. A value naming no work-tree file costs nothing."""
FOLDERS = frozenset({"core.hookspath", "init.templatedir"})
"""Keys naming a folder of hooks: the repository's own, or the one `git init` and `git clone`
copy into every new repository."""
CONTINUED = re.compile(r"(?<!\\)((?:\\\\)*)\\\r?\n")
"""A backslash ending a line: git joins the value with the next line."""
MAX_COMMANDS = 16_384
"""Characters of configured commands whose braces and globs are expanded per call (every one
is still read word by word): a person's aliases are a few hundred; a hostile configuration of
thousands of brace tokens held every sandboxed command for minutes."""
MAX_PATHS = 4_096
"""Paths one configuration names before they are guarded by their top folder of the work tree
instead (a person's name a few; each is a bind, and a hostile file of a million characters
named 77,000)."""
MAX_FILES = 16
"""Configuration files read per git directory, includes followed."""


def named(gitdir: Path) -> list[Path]:
    """Every path the configuration of `gitdir` names: hooks folders, included files,
    programs given by a path (relative ones from its work tree)."""
    tree = gitdir.parent if gitdir.name == ".git" else gitdir
    return _named([gitdir / "config", gitdir / "config.worktree"], tree)


def in_user_config(root: Path) -> list[Path]:
    """What the user's global git configuration names (a `core.hooksPath` there applies to
    every repository), relative ones from the workspace."""
    xdg = os.environ.get("XDG_CONFIG_HOME") or expand_user("~/.config")
    configs = [expand_user("~/.gitconfig"), Path(xdg) / "git" / "config"]
    return _named([*configs, Path("/etc/gitconfig")], root)


def _named(queue: list[Path], tree: Path) -> list[Path]:
    seen: set[Path] = set()
    found: list[Path] = []
    budget = MAX_COMMANDS
    while queue and len(seen) < MAX_FILES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        for key, value in _entries(_read(path)):
            if not value:
                continue
            if key in FOLDERS:
                found.append(_resolve(value, tree))
            elif key.startswith(("include.", "includeif.")) and key.endswith(".path"):
                included = _resolve(value, path.parent)
                found.append(included)
                queue.append(included)
            elif _runs(key):
                found += command_paths(value.lstrip("!"), tree, expand=budget > 0)
                budget -= len(value)
    found = list(dict.fromkeys(found))
    return found if len(found) <= MAX_PATHS else _by_top(found, tree)


def _by_top(paths: list[Path], tree: Path) -> list[Path]:
    """Too many paths: the work tree's top entries they go through (those that exist first),
    at most MAX_PATHS; paths outside the tree (guarded where they lead) kept as they are."""
    inside = str(tree) + os.sep
    tops = {
        Path(inside + str(p)[len(inside) :].split(os.sep, 1)[0]) if str(p).startswith(inside) else p
        for p in paths
    }
    ordered = sorted(tops, key=lambda p: (not os.path.lexists(p), str(p)))
    return ordered[:MAX_PATHS]


def _runs(key: str) -> bool:
    """Whether the value of `key` may be a program git runs (errs wide: a value that names no
    work-tree file guards nothing)."""
    last = key.rpartition(".")[2]
    return last in PROGRAMS or last.endswith(PROGRAM_ENDINGS) or key.startswith(PROGRAM_SECTIONS)


def _resolve(text: str, base: Path) -> Path:
    path = expand_user(text)
    return Path(os.path.normpath(base / path))


def _read(path: Path) -> str:
    """A regular file's first MAX_BYTES (a FIFO in its place must not hang zen)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return ""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        return os.read(fd, MAX_BYTES).decode("utf-8", "replace")
    except OSError:
        return ""
    finally:
        os.close(fd)


def _entries(text: str) -> Iterator[tuple[str, str]]:
    """(section.key, value) pairs, keys lower-cased as git compares them (the subsection keeps
    its case); enough of git's syntax for the keys `named` reads."""
    section = ""
    text = CONTINUED.sub(r"\1", text.removeprefix("\ufeff"))  # as git reads them
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            end = line.find("]")
            if end < 0:
                continue
            head, line = line[1:end].strip(), line[end + 1 :].strip()
            name, _, sub = head.partition(" ")
            sub = sub.strip()
            if sub.startswith('"') and sub.endswith('"'):
                sub = sub[1:-1].replace('\\"', '"').replace("\\\\", "\\")
            section = f"{name.lower()}.{sub}" if sub else head.lower()
        if not line or line[0] in "#;":
            continue
        key, eq, value = line.partition("=")
        yield f"{section}.{key.strip().lower()}", _value(value) if eq else ""


def _value(text: str) -> str:
    """A value without its quotes and trailing comment."""
    out, quoted, escaped = [], False, False
    for char in text.strip():
        if escaped:
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(char, char))
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
    return "".join(out).strip()

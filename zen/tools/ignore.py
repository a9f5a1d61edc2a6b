"""Walk a tree the way ripgrep does, so `glob`, `grep` and grep's fallback agree on what exists.

ripgrep is run with `--no-require-git --no-ignore-dot --no-ignore-exclude --no-ignore-global
--hidden -g '!.git'`: only `.gitignore` files count (in a git repository or not, from the search
start's ancestors down), hidden files are searched, `.git` is skipped and symlinks are not
followed. This module reproduces exactly that in Python, including ripgrep's traversal order
(`--sort path`: depth first, entries of a directory sorted by name).

Patterns are compiled by `pathspec`, but matched per entry with `fullmatch`, as ripgrep and git
do: a directory rule such as `build/` ignores the directory itself (and the walk prunes it), it
does not match `build/x.py`, so a search started inside an ignored directory on purpose
still finds its files.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

RG_IGNORE_FLAGS = (
    "--no-require-git",
    "--no-ignore-dot",
    "--no-ignore-exclude",
    "--no-ignore-global",
    "--hidden",
    "--glob",
    "!.git",
)
"""The ripgrep flags that give ripgrep the rules this module implements."""


@dataclass(frozen=True)
class _Rules:
    """The compiled lines of one `.gitignore`: (regex, ignores?) in file order."""

    base: str
    """The directory, ending in a separator, so `path[len(base):]` is relative to it."""
    patterns: tuple[tuple[re.Pattern[str], bool], ...]

    def decide(self, path: str, is_dir: bool) -> bool | None:
        """True ignored, False re-included (`!`), None when no line matches."""
        rel = path[len(self.base) :].replace(os.sep, "/") + ("/" if is_dir else "")
        for regex, ignores in reversed(self.patterns):
            if regex.fullmatch(rel):
                return ignores
        return None


class GitIgnore:
    """The `.gitignore` files of a tree, each read once."""

    def __init__(self) -> None:
        self._cache: dict[Path, _Rules | None] = {}

    def rules(self, directory: Path) -> _Rules | None:
        if directory not in self._cache:
            self._cache[directory] = _load(directory)
        return self._cache[directory]

    def chain(self, directory: Path) -> list[_Rules]:
        """The rules that apply inside `directory`: its own and its ancestors', outermost first."""
        found = [self.rules(d) for d in reversed((directory, *directory.parents))]
        return [r for r in found if r is not None]

    def ignored(self, path: Path, start: Path) -> bool:
        """Whether the walk from `start` would skip `path` (a file below `start`)."""
        chain = self.chain(start)
        for part in reversed(path.relative_to(start).parents[:-1]):
            directory = start / part
            if _skipped(str(directory), True, chain):
                return True
            own = self.rules(directory)
            if own is not None:
                chain = [*chain, own]
        return _skipped(str(path), False, chain)

    def walk(
        self, start: Path, enter: Callable[[str], bool] | None = None
    ) -> Iterator[tuple[Path, str]]:
        """Files under `start` (or `start` itself if it is a file) as (path, posix path from start).

        `enter(rel_dir)` may prune directories that cannot hold anything wanted.
        """
        if start.is_file():
            yield start, start.name
            return
        yield from self._walk(start, "", self.chain(start), enter)

    def _walk(
        self,
        directory: Path,
        prefix: str,
        chain: list[_Rules],
        enter: Callable[[str], bool] | None,
    ) -> Iterator[tuple[Path, str]]:
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            if entry.name == ".git" or entry.is_symlink():
                continue
            path = Path(entry.path)
            rel = prefix + entry.name
            try:
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            if _skipped(entry.path, is_dir, chain):
                continue
            if is_dir:
                if enter is None or enter(rel):
                    own = self.rules(path)
                    sub = chain if own is None else [*chain, own]
                    yield from self._walk(path, rel + "/", sub, enter)
            elif entry.is_file(follow_symlinks=False):
                yield path, rel

    def folders(self, start: Path, enter: Callable[[str], bool] | None = None) -> Iterator[Path]:
        """`start` and every folder below it that git would enter with `start` as its work tree
        (only `.gitignore` files inside `start` count; `.git` and symlinks are not entered).

        `enter(rel_dir)` may prune more.
        """
        stack: list[tuple[Path, str, list[_Rules]]] = [(start, "", [])]
        while stack:
            directory, prefix, chain = stack.pop()
            own = self.rules(directory)
            chain = chain if own is None else [*chain, own]
            yield directory
            try:
                with os.scandir(directory) as scan:
                    entries = list(scan)
            except OSError:
                continue
            for entry in entries:
                try:
                    is_dir = entry.name != ".git" and entry.is_dir(follow_symlinks=False)
                except OSError:
                    continue
                rel = prefix + entry.name
                if not is_dir or _skipped(entry.path, True, chain):
                    continue
                if enter is None or enter(rel):
                    stack.append((Path(entry.path), rel + "/", chain))


def _skipped(path: str, is_dir: bool, chain: list[_Rules]) -> bool:
    """The deepest `.gitignore` with a matching line decides, as in git."""
    for rules in reversed(chain):
        verdict = rules.decide(path, is_dir)
        if verdict is not None:
            return verdict
    return False


def _load(directory: Path) -> _Rules | None:
    text = _read_regular(directory / ".gitignore")
    if text is None:
        return None
    from pathspec import GitIgnoreSpec

    spec = GitIgnoreSpec.from_lines(text.splitlines())
    patterns = tuple(
        (p.regex, bool(p.include))
        for p in spec.patterns
        if p.include is not None and p.regex is not None
    )
    return _Rules(os.path.join(directory, ""), patterns) if patterns else None


class PathGlob:
    """A ripgrep `--glob`: `*.py` matches a file name at any depth, `src/**/*.ts` a path.

    A pattern with a `/` is matched against the path from the search start (a leading `/`
    only anchors). `*` and `?` stop at `/`, `**` spans directories, `{a,b}` alternates,
    `[...]` is a class and a leading `!` negates. A bad pattern raises ValueError. On Windows a
    backslash is a separator, not an escape (ripgrep's rule there too).
    """

    def __init__(self, pattern: str) -> None:
        if os.name == "nt":  # `src\\**\\*.py`: a separator there, as in ripgrep on Windows
            pattern = pattern.replace("\\", "/")
        self.pattern = pattern
        body = pattern[1:] if pattern.startswith("!") else pattern
        self.negated = pattern.startswith("!")
        self.by_name = "/" not in body
        try:
            self.regex = re.compile(translate(body.lstrip("/")))
        except re.error as exc:
            raise ValueError(f"bad glob {pattern!r}: {exc}") from None
        self.literal = self._literal_dirs()

    def matches(self, rel: str) -> bool:
        subject = rel.rsplit("/", 1)[-1] if self.by_name else rel
        return bool(self.regex.fullmatch(subject)) != self.negated

    def _literal_dirs(self) -> list[str]:
        """The leading directories with no wildcard (`src/app` for `src/app/**/*.py`)."""
        if self.by_name or self.negated:
            return []
        parts = self.pattern.lstrip("/").split("/")[:-1]
        literal: list[str] = []
        for part in parts:
            if any(c in part for c in "*?[{\\"):
                break
            literal.append(part)
        return literal

    def may_enter(self, rel_dir: str) -> bool:
        """Whether a directory can hold a match (prefix pruning for path patterns)."""
        parts = rel_dir.split("/")
        n = min(len(parts), len(self.literal))
        return parts[:n] == self.literal[:n]


def translate(glob: str) -> str:
    """A glob in ripgrep's dialect as a Python regex (for `fullmatch`)."""
    out: list[str] = []
    depth = 0
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        if glob.startswith("**/", i) and (i == 0 or glob[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("/**", i) and i + 3 == n:
            out.append("/.*")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            end = glob.find("]", i + 2)
            if end == -1:
                out.append(re.escape(c))
            else:
                inner = glob[i + 1 : end]
                if inner[0] in "!^":
                    inner = "^" + inner[1:]
                out.append("[" + inner.replace("\\", "\\\\") + "]")
                i = end
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(glob[i]))
        else:
            out.append(re.escape(c))
        i += 1
    if depth:
        raise re.error("unclosed {")
    return "".join(out)


def _read_regular(path: Path) -> str | None:
    """A regular file's text, None for anything else: a `.gitignore` a command made a FIFO
    must not hang glob (opened without blocking, checked before it is read)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(os.dup(fd), "rb") as file:
            return file.read().decode("utf-8", "replace")
    except OSError:
        return None
    finally:
        os.close(fd)

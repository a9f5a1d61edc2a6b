"""The work-tree files a configured command may run, read from its text as the shell reads it.

A program named in git's configuration (`alias.t = !sh scripts/t.sh`, a filter, a pager) often
runs a script of the work tree; `named` guards it. The shell joins quoted pieces
(`scri''pts/t.sh`), drops backslashes, expands globs and braces (`scripts/t*.sh`,
`scripts/{t,u}.sh`) and substitutions (`"$(git rev-parse --show-toplevel)/scripts/t.sh"`,
`$PWD/scripts/t.sh`), and `python3 -m tools.clean` names a file without a slash: each hid the
script from a reader that split at blanks (the fifth round, docs/security.md). No static reading
of a shell command is complete, so this one errs wide: every reading that may name a path counts.
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import shlex
from pathlib import Path

from zen.base.paths import expand_user

BREAKS = re.compile(r"""[\s;&|<>()`$'"={}:,\\]+""")
"""Where a word of the raw text or of a shell token ends: blanks, the shell's operators,
quotes, expansions (`$`, backticks, `${…:-…}`), `=` of an option."""
SHELL_BLANKS = re.compile(r"""[\s;&|<>()`'"]+""")
"""Where a word of the raw text ends, for the first part of a glob."""
GLOB = re.compile(r"[*?\[]")
BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")
MAX_WORDS = 2_000
"""Brace expansions kept per command (`{a,b}{c,d}…` grows as a product): a hostile
configuration's thousand such tokens made every sandboxed command wait minutes."""
MAX_CHARS = 4_096
"""Of a command, what braces and globs are expanded in (git's configured commands are a
line); the rest is still read word by word, and a glob there guards what its first part
matches in the work tree."""
MAX_GLOBS = 32
"""Globs matched per command (each may list folders)."""


def command_paths(command: str, tree: Path, expand: bool = True) -> list[Path]:
    """Every path `command`, run from `tree`, may run or read as a script: words that are
    paths (`./fmt.sh`) or name something in the work tree, a path after an expansion
    (`$X/scripts/t.sh` gives `scripts/t.sh`), what a glob matches now and its literal folder,
    a Python module's file and package (`-m tools.clean`). Never the work tree or a parent.
    Past the budgets (and without `expand`) braces and globs are not expanded, but every word
    is still read: a budget that dropped the rest would let a script named late run unguarded.
    """
    found: list[Path] = []
    tokens = _tokens(command) if expand else command.split()
    words: list[str] = []
    if expand:
        head = tokens if len(command) <= MAX_CHARS else _tokens(command[:MAX_CHARS])
        for token in head[:MAX_WORDS]:
            words += _braces(token, max(1, MAX_WORDS - len(words)))
    globs = 0
    for word in dict.fromkeys(words):
        if globs < MAX_GLOBS and GLOB.search(word):
            globs += 1
            found += _globbed(word, tree)
        found += _words(word, tree)
    found += _words(command, tree)
    found += _first_parts(command, tree)
    found += _modules(tokens, tree)
    keep = {tree, *tree.parents}
    return [p for p in dict.fromkeys(found) if p not in keep]


def _first_parts(command: str, tree: Path) -> list[Path]:
    """Without listing a folder per glob: what the first part of each glob word matches at
    the top of the work tree (`t*.sh`, `s*/t.sh`), the whole of it guarded."""
    patterns = {
        word.split("/", 1)[0]
        for word in SHELL_BLANKS.split(command)
        if GLOB.search(word.split("/", 1)[0])
    }
    if not patterns:
        return []
    try:
        names = os.listdir(tree)
    except OSError:
        return []
    return [tree / n for n in names if any(fnmatch.fnmatchcase(n, p) for p in patterns)]


def _tokens(command: str) -> list[str]:
    """Shell words, quotes joined and backslashes dropped (`scri''pts/t.sh` is `scripts/t.sh`);
    the raw text's blanks when the quotes do not balance."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>()")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return command.split()


def _braces(token: str, most: int) -> list[str]:
    """`scripts/{t,u}.sh` -> `scripts/t.sh`, `scripts/u.sh` (nested and repeated braces too),
    at most `most` words."""
    words: list[str] = [token]
    done: list[str] = []
    while words and len(done) + len(words) < most:
        word = words.pop()
        match = BRACES.search(word)
        if match is None:
            done.append(word)
            continue
        head, tail = word[: match.start()], word[match.end() :]
        words += [head + part + tail for part in match.group(1).split(",")]
    return done + words


def _globbed(word: str, tree: Path) -> list[Path]:
    """What a glob matches now, and the folder its literal part ends in (a file the command
    adds there, sorted first, would run instead)."""
    match = GLOB.search(word)
    if match is None or "$" in word or "`" in word:
        return []
    literal = word[: match.start()]
    folder = literal if literal.endswith("/") else os.path.dirname(literal)
    found = [_resolve(folder, tree)] if folder else []
    try:
        found += [_resolve(m, tree) for m in glob.glob(word, root_dir=tree)]
    except (OSError, ValueError):
        pass
    return found


def _words(text: str, tree: Path) -> list[Path]:
    """Each word that is a path or names something in the work tree, and the part of a path
    after each of its slashes that names a file there (`PWD/scripts/t.sh`: `scripts/t.sh`)."""
    found: list[Path] = []
    for word in dict.fromkeys(BREAKS.split(text)):  # a word said a thousand times: once
        glob_at = GLOB.search(word)
        if glob_at:  # not listed here (the budget's): the folder its literal part names
            folder = os.path.dirname(word[: glob_at.start()])
            found += [_resolve(folder, tree)] if folder else []
        if not word or glob_at:
            continue
        path = _resolve(word, tree)
        if "/" in word or os.path.lexists(path):
            found.append(path)
        rest = word
        while "/" in rest:  # a file, not a folder: `$HOME/src` must not lock the tree's src/
            rest = rest.split("/", 1)[1]
            path = _resolve(rest, tree)
            if rest and os.path.lexists(path) and not path.is_dir():
                found.append(path)
    return found


def _modules(tokens: list[str], tree: Path) -> list[Path]:
    """`python3 -m tools.clean` runs `tools/clean.py` and `tools/__init__.py` from the work
    tree (Python puts the current folder first on its path): the package's top folder and its
    module file, whether or not they exist yet."""
    found: list[Path] = []
    for flag, name in zip(tokens, tokens[1:], strict=False):
        if flag == "-m" and name and not name.startswith("-"):
            top = name.split(".")[0]
            found += [_resolve(top, tree), _resolve(f"{top}.py", tree)]
    return found


def _resolve(text: str, base: Path) -> Path:
    if text.startswith("~"):
        return Path(os.path.normpath(base / expand_user(text)))
    return Path(os.path.normpath(os.path.join(base, text)))  # no Path per step: a hot loop

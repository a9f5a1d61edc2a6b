"""The files of the work tree that git opens itself must be regular files.

git reads every `.gitignore` of the folders it lists and every `.gitattributes` of the
paths it hashes or checks out, with a plain blocking `open`: a FIFO in their place (a hostile
repository can ship one anywhere, `sub/.gitignore` too) makes each checkpoint's git wait for a
writer until its deadline, and no configuration makes git skip them. So before git runs, the
folders git would enter are looked at (pruned by `.gitignore` as git prunes them, each read
without blocking) and a snapshot is refused, at once and with the path, while one is not a
regular file. A symlink is judged by what it points at (git before 2.32 follows it).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from zen.checkpoints import scope
from zen.tools.files.regular import kind_of
from zen.tools.ignore import GitIgnore

GIT_READS = (".gitignore", ".gitattributes")
"""The per-folder files git opens in the work tree (the shadow repository's own
`info/exclude` and `info/attributes` are zen's)."""


def unsafe_inputs(root: Path, own: tuple[str, ...]) -> dict[str, str]:
    """Workspace-relative paths of the files git would open that are not regular: what each is
    (a FIFO, a socket, a device). zen's own state folders (`own`) are not entered."""
    found: dict[str, str] = {}
    for folder in GitIgnore().folders(root, lambda rel: not scope.inside(rel, own)):
        for name in GIT_READS:
            path = folder / name
            try:
                mode = os.stat(path).st_mode  # never opened: a stat does not wait for a writer
            except OSError:
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                found[path.relative_to(root).as_posix()] = kind_of(mode)
    return found


def refusal(found: dict[str, str]) -> str:
    """One line for a CheckpointError: which file, what it is, what to do."""
    path, kind = next(iter(found.items()))
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return (
        f"no snapshot: {path} is {kind}, not a regular file{more}; git would wait on it. "
        "Remove it to have checkpoints again"
    )

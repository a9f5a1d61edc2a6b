"""The workspace files that shown files import, so a model without tools sees the code a
task's file leans on (a failing test's module, a call chain), as aider's repo map would.

Python imports (`import a.b`, `from .c import d`) and relative JavaScript/TypeScript imports
(`from './x'`, `require('../y')`) are followed breadth-first, a bounded number of files;
module names come from untrusted text, so each candidate is resolved inside the workspace.
"""

from __future__ import annotations

import re
from pathlib import Path

from zen.tools.files.regular import FileError, Target
from zen.tools.files.text import read_existing
from zen.tools.workspace import PathError, Workspace

FOLLOWED = 6
"""Imported files added at most, over all shown files."""
READ_LIMIT = 16_000
"""Bytes of a file searched for its imports."""
_PY = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*\(?([\w, \t]*)|import[ \t]+([\w., \t]+))",
    re.M,
)
_JS = re.compile(r"""(?:\bfrom|\brequire\(|\bimport\()\s*['"](\.{1,2}/[^'"\n]{1,200})['"]""")
_JS_TRIES = ("", ".ts", ".tsx", ".js", ".jsx", ".mjs", "/index.ts", "/index.js")


def imported(shown: list[Path], workspace: Workspace, walked: set[Path]) -> list[Path]:
    """Files the `shown` files import, and what those import, breadth-first, not already
    shown, at most FOLLOWED; only `walked` ones (a git-ignored file is never sent unasked).
    Runs in a worker thread: it reads."""
    seen = set(shown)
    queue = list(shown)
    found: list[Path] = []
    while queue and len(found) < FOLLOWED:
        source = queue.pop(0)
        for path in _imports_of(source, workspace):
            if path in walked and path not in seen and len(found) < FOLLOWED:
                seen.add(path)
                found.append(path)
                queue.append(path)
    return found


def _imports_of(source: Path, workspace: Workspace) -> list[Path]:
    try:
        text = read_existing(Target(source, source.name), READ_LIMIT).decode("utf-8", "replace")
    except FileError:
        return []
    if source.suffix == ".py":
        candidates = _python(text, source.parent, workspace.root)
    else:
        candidates = [
            source.parent / f"{rel}{tail}" for rel in _JS.findall(text) for tail in _JS_TRIES
        ]
    found = []
    for candidate in candidates:
        try:
            path = workspace.resolve(str(candidate))
        except PathError:
            continue  # outside the workspace: never shown
        if path.is_file() and path not in found:
            found.append(path)
    return found


def _python(text: str, here: Path, root: Path) -> list[Path]:
    """Where each imported module could live: beside the file (relative imports and scripts
    run from their folder) or from the workspace root."""
    modules: list[tuple[int, str]] = []
    for relative, names, plain in _PY.findall(text):
        if relative:
            dots = len(relative) - len(relative.lstrip("."))
            package = relative.lstrip(".")
            modules.append((dots, package))
            for name in _names(names):  # `from pkg import mod`: a name may be a module
                modules.append((dots, f"{package}.{name}" if package else name))
        modules += [(0, name) for name in _names(plain)]
    candidates = []
    for dots, module in modules:
        parts = [p for p in module.split(".") if p]
        if dots > len(here.parents) + 1:
            continue  # above the filesystem's root: nothing
        bases = [here.parents[dots - 2] if dots > 1 else here] if dots else [here, root]
        for base in bases:
            stem = base.joinpath(*parts) if parts else base
            candidates += [stem.with_suffix(".py") if parts else stem, stem / "__init__.py"]
    return candidates


def _names(listed: str) -> list[str]:
    """`a, b as c` → ['a', 'b']."""
    return [part.split()[0] for part in listed.split(",") if part.strip()]

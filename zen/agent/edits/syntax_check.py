"""The syntax of what a reply changed, checked in process and said back to the model.

After each reply's edits, every changed `.py` (Python's own compiler: nothing runs; then
pyflakes' undefined names, aider's F821/F823, the import an edit forgot), `.json`, `.toml` and
`.yaml` file is parsed; an error goes back with the file, the line and the line's
text, so a small model fixes a broken edit on its next turn instead of reporting success.
Bounded with the test command, like aider's reflections (`agent/edit_checks.py`).

What is not plain data is not judged: JSON with comments (`tsconfig.json`, `.vscode/`) and
templates (`{{ }}`, `{% %}`: Helm, Jinja). A project on a newer Python than zen's may see a
false report for syntax zen's interpreter does not know yet.
"""

from __future__ import annotations

import ast
import json
import os
import re
import stat
import sys
from collections.abc import Iterable
from pathlib import Path

import yaml

from zen.agent.edits import pysource

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

CHECKED = frozenset({".py", ".json", ".toml", ".yaml", ".yml"})
MAX_BYTES = 1_000_000
"""Larger files are not checked: a reply's edit is seldom one, and the check must stay cheap."""
MARK = "syntax check:"
_JSONC = ("tsconfig", "jsconfig", ".eslintrc", "devcontainer")


def problem(name: str, text: str) -> str | None:
    """The first syntax error of `text`, the file `name`, as `line N: what`; None if it parses
    (or is not a kind checked)."""
    suffix = Path(name).suffix.lower()
    if suffix not in CHECKED:
        return None
    if suffix != ".py" and ("{{" in text or "{%" in text):
        return None  # a template
    try:
        if suffix == ".py":
            tree = ast.parse(text, name)
            compile(tree, name, "exec", dont_inherit=True)  # what only the compiler sees
            return _undefined(tree, name, text)
        elif suffix == ".json":
            if not _jsonc(name):
                json.loads(text)
        elif suffix == ".toml":
            tomllib.loads(text)
        else:
            for _ in yaml.parse(text, Loader=yaml.SafeLoader):
                pass  # events only: no tags built, no alias expanded
    except SyntaxError as e:
        return _at(e.lineno, e.msg, text)
    except json.JSONDecodeError as e:
        return _at(e.lineno, e.msg, text)
    except tomllib.TOMLDecodeError as e:
        return str(e)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        return _at(mark.line + 1 if mark else None, str(e.problem or e.context), text)
    except ValueError as e:
        return str(e)  # source code with a null byte
    except (RecursionError, MemoryError, yaml.YAMLError):
        return None
    return None


def report(root: Path, files: Iterable[str], last: bool = False) -> str | None:
    """What the model is told about the files a reply changed (their names as the tools show
    them, relative to `root`), or None: all parse. `last`: the last report this task gets."""
    found = []
    names = list(dict.fromkeys(files))
    for name in names:
        text = _read(root / name) if Path(name).suffix.lower() in CHECKED else None
        error = None if text is None else problem(name, text)
        if error:
            found.append(f"- {name}, {error}{_defined_by(root, names, name, error)}")
    if not found:
        return None
    tail = " (the last check report in this task)" if last else ""
    return f"{MARK} fix these errors first{tail}:\n" + "\n".join(found[:5])


def _defined_by(root: Path, files: list[str], name: str, error: str) -> str:
    """Where an undefined name is defined at the top of another file the reply changed, as
    the import to add (Qwen2.5-Coder-1.5B moved a constant to tax.py and, told the name was
    undefined, sent the same files again)."""
    used = re.search(r"undefined name '(\w+)'", error)
    if not used:
        return ""
    owners = [
        other
        for other in files
        if other != name and other.endswith(".py") and used[1] in _top_names(root / other)
    ]
    if len(owners) != 1:
        return ""
    module = Path(owners[0]).with_suffix("").as_posix().replace("/", ".").removesuffix(".__init__")
    return f" ({owners[0]} defines it: `from {module} import {used[1]}`)"


def _top_names(path: Path) -> set[str]:
    tree = pysource.parse(_read(path) or "")
    found: set[str] = set()
    for node in tree.body if tree else []:
        if isinstance(node, pysource.DEFS):
            found.add(node.name)
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        found |= {t.id for t in targets if isinstance(t, ast.Name)}
    return found


def _at(line: int | None, what: str, text: str) -> str:
    if not line:
        return what
    lines = text.splitlines()
    shown = lines[line - 1].strip()[:120] if 0 < line <= len(lines) else ""
    return f"line {line}: {what}" + (f": `{shown}`" if shown else "")


def _jsonc(name: str) -> bool:
    """A JSON file that allows comments by convention."""
    path = Path(name)
    return path.name.lower().startswith(_JSONC) or ".vscode" in path.parts


def _read(path: Path) -> str | None:
    """The file's text, if it is a regular UTF-8 file under MAX_BYTES; never blocks (a FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_BYTES:
            return None
        with os.fdopen(os.dup(fd), "rb") as f:
            return f.read(MAX_BYTES + 1).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return None
    finally:
        os.close(fd)


def _undefined(tree: ast.Module, name: str, text: str) -> str | None:
    """The first name the code uses and nothing defines, or None. An edit that forgot its
    import compiles and fails only when that line runs (the error small models make most)."""
    from pyflakes import checker, messages  # not at start-up: only once a reply edits

    undefined = (messages.UndefinedName, messages.UndefinedLocal)
    found = [m for m in checker.Checker(tree, filename=name).messages if isinstance(m, undefined)]
    if not found:
        return None
    first = min(found, key=lambda m: m.lineno)
    return _at(first.lineno, first.message % first.message_args, text)

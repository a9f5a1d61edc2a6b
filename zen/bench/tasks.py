"""Finding and checking the tasks a bench runs: the built-in suite or the user's `--tasks DIR`.

A task is a folder: `instruction.md`, `repo/` (copied for each run), `tests/check.py` and an
optional `task.toml` (Harbor's `[agent] timeout_sec` and `[verifier] timeout_sec`). The folders
are untrusted input: odd names, links that leave the task, FIFOs and oversized repositories
are refused before anything runs, each with the reason.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.10
    import tomli as tomllib

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
MAX_FILES = 2000
MAX_BYTES = 50_000_000
MAX_INSTRUCTION = 100_000


class TaskError(Exception):
    """A task folder that cannot run; the message names it and says why."""


@dataclass(frozen=True)
class Task:
    name: str
    folder: Path
    instruction: str
    timeout: float | None
    """`[agent] timeout_sec` of task.toml: this task's deadline, if it sets one."""
    check_timeout: float

    @property
    def repo(self) -> Path:
        return self.folder / "repo"

    @property
    def tests(self) -> Path:
        return self.folder / "tests"


def builtin_dir() -> Path:
    from zen.settings.prompts import data_dir

    return data_dir("bench-tasks")


def load_suite(folder: Path) -> list[Task]:
    """Every task in `folder` (or `folder` itself when it is one task), sorted by name.
    TaskError lists every broken task at once, so one run of `zen bench` shows them all."""
    if not folder.is_dir():
        raise TaskError(f"{folder}: no such folder")
    if (folder / "instruction.md").exists():
        return [load_task(folder)]
    tasks, problems = [], []
    for entry in sorted(folder.iterdir()):
        if entry.is_dir() and not entry.name.startswith("."):
            try:
                tasks.append(load_task(entry))
            except TaskError as e:
                problems.append(str(e))
    if problems:
        raise TaskError("; ".join(problems))
    if not tasks:
        raise TaskError(f"{folder}: no tasks (a task is a folder with instruction.md)")
    return tasks


def load_task(folder: Path) -> Task:
    name = folder.name
    if not NAME.fullmatch(name):
        raise TaskError(f"{name!r}: a task's name is letters, digits, '.', '_' and '-'")
    if folder.is_symlink():
        raise TaskError(f"{name}: the task folder is a symbolic link")
    for part in ("instruction.md", "tests/check.py"):
        path = folder / part
        if path.is_symlink() or not path.is_file():
            raise TaskError(f"{name}: no {part} (a plain file)")
    if (folder / "repo").is_symlink() or not (folder / "repo").is_dir():
        raise TaskError(f"{name}: no repo/ folder")
    _check_tree(name, folder / "repo")
    _check_tree(name, folder / "tests")
    raw = (folder / "instruction.md").read_bytes()[: MAX_INSTRUCTION + 1]
    if len(raw) > MAX_INSTRUCTION:
        raise TaskError(f"{name}: instruction.md is over {MAX_INSTRUCTION:,} bytes")
    instruction = raw.decode("utf-8-sig", "replace").strip()
    if not instruction:
        raise TaskError(f"{name}: instruction.md is empty")
    agent, verifier = _timeouts(name, folder / "task.toml")
    return Task(name, folder, instruction, agent, verifier or 120.0)


def _check_tree(name: str, root: Path) -> None:
    """Only plain files, folders and links that stay inside `root`; bounded in count and size."""
    count = size = 0
    inside = root.resolve()
    for path in root.rglob("*"):
        count += 1
        if count > MAX_FILES:
            raise TaskError(f"{name}: {root.name}/ has more than {MAX_FILES} files")
        rel = path.relative_to(root).as_posix()
        if path.is_symlink():
            target = path.resolve()
            if target != inside and inside not in target.parents:
                raise TaskError(f"{name}: {root.name}/{rel} links outside the task")
            continue
        if path.is_dir():
            continue
        if not path.is_file():
            raise TaskError(f"{name}: {root.name}/{rel} is not a regular file")
        size += path.stat().st_size
        if size > MAX_BYTES:
            raise TaskError(f"{name}: {root.name}/ is over {MAX_BYTES // 1_000_000} MB")


def _timeouts(name: str, path: Path) -> tuple[float | None, float | None]:
    if not path.is_file():
        return None, None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8", errors="replace"))
    except tomllib.TOMLDecodeError as e:
        raise TaskError(f"{name}: task.toml: {e}") from None
    return _seconds(name, data, "agent"), _seconds(name, data, "verifier")


def _seconds(name: str, data: dict[str, Any], table: str) -> float | None:
    value = data.get(table, {}).get("timeout_sec") if isinstance(data.get(table), dict) else None
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 86400:
        raise TaskError(f"{name}: task.toml: [{table}] timeout_sec must be seconds, 0 to 86400")
    return float(value)


def select(tasks: list[Task], wanted: list[str]) -> list[Task]:
    """The tasks named (exactly, or by a part of the name); all when none are named."""
    if not wanted:
        return tasks
    chosen = []
    for want in wanted:
        exact = [t for t in tasks if t.name == want]
        found = exact or [t for t in tasks if want in t.name]
        if not found:
            names = ", ".join(t.name for t in tasks)
            raise TaskError(f"no task matches {want!r}; the tasks are: {names}")
        chosen += [t for t in found if t not in chosen]
    return chosen

"""One task's run: a fresh copy of its repository, a fresh home, a child `zen -p`, a deadline.

The child runs `python -m zen -p - --output-format json --yes` in the copy (the instruction on
stdin, so its length is no argv limit), with `--max-time` at the deadline so it stops itself
and still reports its tokens. A child that does not stop within a grace period gets SIGTERM,
then its whole process tree is killed; the tree is killed at the end of every run anyway, so
nothing a task started outlives it (the one rule for children: `zen/tools/child.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.base.terminal_safe import terminal_safe
from zen.bench.tasks import Task
from zen.tools import child

GRACE = 10.0
"""Seconds past the deadline the child gets to stop itself, then as much again after SIGTERM
(a tenth of the deadline when that is shorter, at least one)."""
OUT_LIMIT = 4_000_000
ERR_LIMIT = 64_000
COLLABORATIONS = ("delegated", "autonomous", "controlled")


@dataclass
class Outcome:
    """What the child said (its JSON result, when it gave one) and how its run ended."""

    result: dict[str, Any] = field(default_factory=dict)
    killed: bool = False
    seconds: float = 0.0
    stderr: str = ""

    @property
    def last_error_line(self) -> str:
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        return terminal_safe(lines[-1][:300]) if lines else ""


def mode_flags(mode: str) -> list[str]:
    """`single`, or a collaboration mode (dual mode's name in the report)."""
    return ["--single"] if mode == "single" else ["--dual", "--collab", mode]


def run_folder() -> Path:
    """A folder for one run, at the path the last run used when no other bench runs: the
    workspace's path is in the system prompt, so a random one changed the prompt's tokens
    from run to run, and a temperature-0 model's answer with them (dual's direct path, which
    sends single's requests, differed from single on 3 of 31 tasks by that alone). A private
    folder of this user's in the temp folder; anything else there (a link, another owner's,
    writable by others) gets a random folder as before."""
    base = Path(tempfile.gettempdir()) / f"zen-bench-{os.getuid() if os.name == 'posix' else 0}"
    try:
        base.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(base)
    except OSError:
        return Path(tempfile.mkdtemp(prefix="zen-bench-"))
    mine = os.name != "posix" or (info.st_uid == os.getuid() and not info.st_mode & 0o077)
    if stat.S_ISDIR(info.st_mode) and mine:
        for n in range(1, 100):
            with contextlib.suppress(FileExistsError):
                (base / f"run{n}").mkdir(mode=0o700)
                return base / f"run{n}"
    return Path(tempfile.mkdtemp(prefix="zen-bench-"))


def prepare(task: Task, run_dir: Path, config_yaml: str) -> tuple[Path, Path]:
    """The run's workspace (a copy of the task's repo) and home (with the child's config)."""
    home = run_dir / "home"
    (home / ".zen").mkdir(parents=True, mode=0o700)
    (home / ".zen" / "config.yaml").write_text(config_yaml, encoding="utf-8")
    workspace = run_dir / "ws" / task.name  # never a folder `python -m zen` could import
    shutil.copytree(task.repo, workspace, symlinks=True)
    return workspace, home


async def run_task(
    task: Task, mode: str, workspace: Path, env: dict[str, str], timeout: float
) -> Outcome:
    """Run the agent on the task; never raises for what the child does."""
    command = [sys.executable, "-m", "zen", "-p", "-", "--output-format", "json", "--yes"]
    command += ["-C", str(workspace), "--max-time", f"{timeout:g}", *mode_flags(mode)]
    started = time.monotonic()
    outcome = Outcome()
    grace = min(GRACE, max(1.0, timeout / 10))
    try:
        done = await child.run_child(
            command,
            cwd=workspace.parent.parent,  # sys.path[0] of `-m`: the run's folder, not the repo
            env=env,
            stdin=task.instruction.encode("utf-8"),
            timeout=timeout + grace,
            grace=grace,
            limit=OUT_LIMIT,
        )
    except OSError as e:
        outcome.stderr = f"cannot start zen: {e}"
        return outcome
    assert done.err is not None
    outcome.killed = done.timed_out
    outcome.seconds = time.monotonic() - started
    outcome.stderr = done.err.data()[:ERR_LIMIT].decode("utf-8", "replace")
    outcome.result = _result_of(done.out.data())
    return outcome


def _result_of(out: bytes) -> dict[str, Any]:
    """The child's final JSON result object, or {} when it printed none."""
    for line in reversed(out.decode("utf-8", "replace").splitlines()):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("type") == "result":
            return obj
    return {}


def remove(run_dir: Path) -> None:
    """Delete a run's folder, even files the agent made read-only."""

    def unlock(func: Any, path: str, _exc: Any) -> None:
        with contextlib.suppress(OSError):  # a read-only folder keeps its entries: open both
            os.chmod(os.path.dirname(path), stat.S_IRWXU)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            func(path)

    if sys.version_info >= (3, 12):
        shutil.rmtree(run_dir, onexc=unlock)
    else:
        shutil.rmtree(run_dir, onerror=unlock)

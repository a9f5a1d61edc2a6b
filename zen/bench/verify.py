"""Deciding a run: the task's check, run after the agent ended, from outside its reach.

The task's `tests/` are copied next to the workspace only now (Harbor uploads its tests after
the agent finishes), and `python tests/check.py WORKSPACE ANSWER_FILE` runs with the workspace
as its working directory. Exit 0: solved; exit 1: not solved; anything else (a traceback, a
signal, its deadline passed) means the check itself broke, and the row says so. Its output is
bounded and made safe to print.
"""

from __future__ import annotations

import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from zen.base.terminal_safe import terminal_safe
from zen.bench.endpoint import child_env
from zen.bench.tasks import Task
from zen.tools.child import run_child

SHOWN = 400
"""Characters of a check's output kept in the report."""


@dataclass(frozen=True)
class Verdict:
    status: str
    """`passed`, `failed` or `error` (the check broke: crashed, timed out, odd exit)."""
    output: str


async def verify(task: Task, run_dir: Path, workspace: Path, answer: str, home: Path) -> Verdict:
    checks = run_dir / "check"
    shutil.copytree(task.tests, checks / "tests", symlinks=True)
    answer_file = run_dir / "answer.md"
    answer_file.write_text(answer, encoding="utf-8")
    env = {
        **child_env(home, {}),  # no keys: a check is the task author's code
        "PYTHONDONTWRITEBYTECODE": "1",
        "ZEN_BENCH_WORKSPACE": str(workspace),
        "ZEN_BENCH_ANSWER": str(answer_file),
    }
    command = [sys.executable, str(checks / "tests" / "check.py"), str(workspace), str(answer_file)]
    try:
        done = await run_child(
            command,
            cwd=workspace,
            env=env,
            timeout=task.check_timeout,
            limit=64_000,
            merge=True,
            tail=True,
        )
    except OSError as e:
        return Verdict("error", f"the check cannot start: {e}")
    raw = done.out.data()
    text = raw.decode("utf-8", "replace").strip()
    shown = terminal_safe(text[-SHOWN:])
    if done.timed_out:
        return Verdict("error", f"the check did not finish in {task.check_timeout:g}s")
    if "Traceback (most recent call last)" in text:
        return Verdict("error", f"the check crashed: {shown}")
    if done.code == 0:
        return Verdict("passed", shown)
    if done.code == 1:
        return Verdict("failed", shown)
    return Verdict("error", f"the check exited {done.code}: {shown}")

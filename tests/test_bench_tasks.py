"""The built-in tasks of `zen bench` can be failed and can be solved.

Each check runs against its untouched repository (a model that does nothing solves nothing,
except the task whose right answer is to leave everything alone) and against the reference
solution in `tests/bench_solutions/<task>/` (files laid over the repository; `ANSWER` is the
final answer; `RUN` names a script run from the workspace's root; `DELETE` lists files to
remove, one a line), kept here so no agent sees it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TASKS = ROOT / "bench-tasks"
SOLUTIONS = Path(__file__).resolve().parent / "bench_solutions"
NAMES = sorted(p.name for p in TASKS.iterdir() if p.is_dir())
DO_NOTHING_SOLVES = {"refuse-destructive"}
NEEDS = {"fix-js-cart-total": "node", "fix-backup-spaces": "bash"}
"""Tasks whose check runs a program besides Python: it says so and exits 2 where it is missing."""


def run_check(task: str, ws: Path, answer: str, tmp: Path) -> subprocess.CompletedProcess[str]:
    if task in NEEDS and shutil.which(NEEDS[task]) is None:
        pytest.skip(f"{task}'s check needs {NEEDS[task]}")
    answer_file = tmp / "answer.md"
    answer_file.write_text(answer, encoding="utf-8")
    return subprocess.run(
        [sys.executable, str(TASKS / task / "tests" / "check.py"), str(ws), str(answer_file)],
        cwd=ws,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
    )


def workspace(task: str, tmp: Path) -> Path:
    ws = tmp / "ws"
    shutil.copytree(TASKS / task / "repo", ws)
    return ws


def test_the_suite_has_at_least_thirty_complete_tasks() -> None:
    assert len(NAMES) >= 30
    for name in NAMES:
        for part in ("instruction.md", "repo", "tests/check.py"):
            assert (TASKS / name / part).exists(), f"{name} has no {part}"
        assert (SOLUTIONS / name).is_dir(), f"{name} has no reference solution"


@pytest.mark.e2e
@pytest.mark.parametrize("task", NAMES)
def test_doing_nothing_fails(task: str, tmp_path: Path) -> None:
    done = run_check(task, workspace(task, tmp_path), "Done.", tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    if task in DO_NOTHING_SOLVES:
        assert done.returncode == 0, done.stdout
    else:
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stdout.strip(), "a failed check says why"


@pytest.mark.e2e
@pytest.mark.parametrize("task", NAMES)
def test_the_reference_solution_passes(task: str, tmp_path: Path) -> None:
    ws = workspace(task, tmp_path)
    answer = "Done."
    for path in sorted((SOLUTIONS / task).rglob("*")):
        rel = path.relative_to(SOLUTIONS / task)
        if path.name == "ANSWER":
            answer = path.read_text(encoding="utf-8")
        elif path.name == "DELETE":
            for line in path.read_text(encoding="utf-8").split():
                (ws / line).unlink()
        elif path.name == "RUN":
            script = path.read_text(encoding="utf-8").strip()
            subprocess.run([sys.executable, script], cwd=ws, check=True, timeout=60)
        elif path.is_file():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, ws / rel)
    done = run_check(task, ws, answer, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.e2e
def test_the_destructive_task_fails_when_the_ledger_goes(tmp_path: Path) -> None:
    ws = workspace("refuse-destructive", tmp_path)
    (ws / "data" / "ledger.csv").unlink()
    done = run_check("refuse-destructive", ws, "Deleted data/ledger.csv.", tmp_path)
    assert done.returncode == 1 and "deleted" in done.stdout


@pytest.mark.e2e
def test_a_wrong_answer_fails(tmp_path: Path) -> None:
    ws = workspace("count-rows", tmp_path)
    done = run_check("count-rows", ws, "It has 1238 lines.", tmp_path)
    assert done.returncode == 1


@pytest.mark.e2e
def test_code_the_agent_broke_is_not_solved_rather_than_a_broken_check(tmp_path: Path) -> None:
    ws = workspace("one-line-edit", tmp_path)
    (ws / "config.py").write_text("MAX_RETRIES = = 5\n")
    done = run_check("one-line-edit", ws, "Done.", tmp_path)
    assert done.returncode == 1 and "SyntaxError" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr

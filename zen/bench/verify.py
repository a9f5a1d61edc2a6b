"""Deciding a run: the task's check, run after the agent ended, from outside its reach.

The task's `tests/` are copied next to the workspace only now (Harbor uploads its tests after
the agent finishes) and made read-only, and `python tests/check.py WORKSPACE ANSWER_FILE` runs
with the workspace as its working directory. A check imports the code the model wrote, so it
runs as that code deserves: in a fresh sandbox of its own (no network, writes only in the
workspace, its own fresh home and /tmp; its tests and the answer shown read-only in that home;
`check_sandbox`), with an allow-listed environment (PATH, LANG, the temporary HOME and TMPDIR,
`ZEN_BENCH_*`): none of the user's keys or tokens. Where no sandbox works, the same
environment, outside, and `sandbox_header` says so once. Exit 0: solved; exit 1: not solved;
anything else (a traceback, a signal, its deadline passed) means the check itself broke, and
the row says so. Its output is bounded and made safe to print.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zen.base.terminal_safe import terminal_safe
from zen.bench.tasks import Task
from zen.settings.sandbox_options import SandboxMode, SandboxOptions
from zen.tools.child import Finished, run_child
from zen.tools.sandbox.run import SandboxError, run_sandboxed, unavailable
from zen.tools.sandbox.runner import Sandbox

SHOWN = 400
"""Characters of a check's output kept in the report."""
PASSED_ON = ("PATH", "LANG")
"""The only variables a check gets from the user's environment."""
WINDOWS_ON = ("SYSTEMROOT", "COMSPEC", "PATHEXT")
"""And on Windows, what a Python process needs to start."""
PROBE_WAIT = 30.0
"""Seconds to wait for the sandbox's first check on a loaded machine."""


@dataclass(frozen=True)
class Verdict:
    status: str
    """`passed`, `failed` or `error` (the check broke: crashed, timed out, odd exit)."""
    output: str


def check_sandbox(mode: SandboxMode, user: SandboxOptions, shown: Sequence[Path] = ()) -> Sandbox:
    """A check's sandbox: the user's mode, program and hidden paths, no network, nothing
    writable but the workspace (and its own fresh home and /tmp); `shown`: the check's files,
    bound read-only into that home."""
    options = SandboxOptions(
        readable=[str(path) for path in shown],
        hidden=user.hidden,
        hidden_env=user.hidden_env,
        program=user.program,
    )
    return Sandbox(mode, options)


async def sandbox_header(box: Sandbox) -> tuple[dict[str, Any], str]:
    """The report header's `sandbox` field, and the line for stderr when tasks and checks run
    unsandboxed ("" when the sandbox works)."""
    try:
        problem = "sandbox: off" if box.mode == "off" else await unavailable(box, PROBE_WAIT)
    except SandboxError as e:
        problem = str(e)
    field = {"mode": box.mode, "active": not problem, "problem": problem or None}
    if not problem:
        return field, ""
    return field, (
        f"zen bench: no sandbox ({problem}): the agent's commands and each task's check run "
        "unsandboxed; the check still gets only PATH, LANG and a temporary HOME and TMPDIR"
    )


async def verify(
    task: Task, run_dir: Path, workspace: Path, answer: str, sandbox: Sandbox
) -> Verdict:
    """Run the task's check on the finished workspace; `sandbox`: `check_sandbox`'s, whose
    mode and rules a fresh sandbox for this check takes."""
    checks = run_dir / "check"
    home, tmp = checks / "home", checks / "tmp"
    tmp.mkdir(parents=True)
    tests = home / "tests"  # in the home, where the sandbox can show it read-only
    shutil.copytree(task.tests, tests, symlinks=True)
    answer_file = home / "answer.md"
    answer_file.write_text(answer, encoding="utf-8")
    _read_only(tests, answer_file)
    env = check_env(home, tmp)
    paths = {  # what the sandbox's own allow-list would not pass
        "ZEN_BENCH_WORKSPACE": str(workspace),
        "ZEN_BENCH_ANSWER": str(answer_file),
        "PYTHONDONTWRITEBYTECODE": env.pop("PYTHONDONTWRITEBYTECODE"),
    }
    command = [sys.executable, str(tests / "check.py"), str(workspace), str(answer_file)]
    options: dict[str, Any] = {
        "cwd": workspace,
        "timeout": task.check_timeout,
        "limit": 64_000,
        "merge": True,
        "tail": True,
    }
    box = check_sandbox(sandbox.mode, sandbox.options, (tests, answer_file))
    try:
        if box.mode != "off" and not await unavailable(box, PROBE_WAIT):
            inside = await run_sandboxed(box, workspace, command, env, add_env=paths, **options)
            done = inside.done
        elif box.mode == "on":
            return Verdict("error", "the check did not run: the sandbox is on but cannot run")
        else:
            done = await run_child(command, env={**env, **paths}, **options)
    except (OSError, SandboxError) as e:
        return Verdict("error", f"the check cannot start: {e}")
    return _verdict(done, task.check_timeout)


def check_env(home: Path, tmp: Path) -> dict[str, str]:
    """The allow-listed environment of a check (module doc)."""
    names = PASSED_ON + (WINDOWS_ON if os.name == "nt" else ())
    env = {name: os.environ[name] for name in names if name in os.environ}
    env.update(HOME=str(home), TMPDIR=str(tmp), PYTHONDONTWRITEBYTECODE="1")
    if os.name == "nt":
        env.update(USERPROFILE=str(home), TEMP=str(tmp), TMP=str(tmp))
    return env


def _read_only(folder: Path, *files: Path) -> None:
    """The check's own files cannot be changed by what it runs (the sandbox binds them
    read-only too); links are left as they are."""
    for path in files:
        path.chmod(stat.S_IRUSR | stat.S_IRGRP)
    for top, dirs, names in os.walk(folder, topdown=False):
        for name in [*names, *dirs]:
            path = Path(top) / name
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
    folder.chmod(folder.stat().st_mode & ~0o222)


def _verdict(done: Finished, timeout: float) -> Verdict:
    raw = done.out.data()
    text = raw.decode("utf-8", "replace").strip()
    shown = terminal_safe(text[-SHOWN:])
    if done.timed_out:
        return Verdict("error", f"the check did not finish in {timeout:g}s")
    if "Traceback (most recent call last)" in text:
        return Verdict("error", f"the check crashed: {shown}")
    if done.code == 0:
        return Verdict("passed", shown)
    if done.code == 1:
        return Verdict("failed", shown)
    return Verdict("error", f"the check exited {done.code}: {shown}")

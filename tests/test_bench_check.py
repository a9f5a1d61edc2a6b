"""Where `zen bench` runs a task's check (issue 35, break 4): in a fresh sandbox with an
allow-listed environment, or, where no sandbox works, with the same environment and a line on
stderr and in the report's header saying so. `zen bench` as a subprocess with a task folder,
the fake server scripting the model.

The check here reports what it could reach: its environment, the network, its own tests
folder, a file outside the workspace (which must not appear outside: the sandbox's /tmp is its
own) and a planted secret in the user's home.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.test_bench import bench, scripted, task
from tests.test_bench_tasks import NAMES, solve
from zen.bench import tasks
from zen.bench.verify import check_sandbox, verify
from zen.settings.sandbox_options import SandboxOptions
from zen.tools.sandbox.runner import probe_now

_found = probe_now()
ALLOWED = {
    "PATH",
    "LANG",
    "LC_CTYPE",  # set by Python itself when it coerces a C locale
    "PWD",  # set by bwrap to its --chdir
    "HOME",
    "TMPDIR",
    "PYTHONDONTWRITEBYTECODE",
    "ZEN_BENCH_WORKSPACE",
    "ZEN_BENCH_ANSWER",
    "ZEN_RUN",
}
NO_SANDBOX = "sandbox_options: {program: /nonexistent/bwrap}\n"
"""The user's config of a machine where the sandbox cannot run."""
SECRETS = {
    "GITHUB_TOKEN": "ghp_secret",
    "AWS_SECRET_ACCESS_KEY": "aws_secret",
    "ANTHROPIC_API_KEY": "sk-ant-secret",
    "HF_TOKEN": "hf_secret",
    "PLAIN_SETTING": "visible",
}

CHECK = """
import os, pathlib, socket, stat, sys
here = pathlib.Path(__file__).parent
extra = sorted(set(os.environ) - ALLOWED)
print("env:", ",".join(extra) or "ok")
try:
    socket.create_connection(("127.0.0.1", PORT), 3).close()
    print("network: reachable")
except OSError:
    print("network: closed")
print("tests-mode:", oct(stat.S_IMODE(os.stat(__file__).st_mode)))
for name, path in (("tests", here / "planted.py"), ("outside", pathlib.Path(OUTSIDE))):
    try:
        path.write_text("x")
        print(name + ": writable")
    except OSError:
        print(name + ": read-only")
try:
    print("secret:", "readable" if "PRIVATE" in open(SECRET).read() else "hidden")
except OSError:
    print("secret: hidden")
"""


@pytest.fixture
def listener() -> Iterator[int]:
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(60)

    def serve() -> None:
        while True:
            try:
                server.accept()[0].close()
            except OSError:
                return

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


def run_check(
    fake_llm: Any, run_zen: Any, tmp_path: Path, home: Path, port: int, **env: str
) -> tuple[Any, dict[str, Any], dict[str, str]]:
    """One task whose check reports what it reached; (the run, the report, the report lines)."""
    (home / ".ssh").mkdir()
    secret = home / ".ssh" / "id_rsa"
    secret.write_text("PRIVATE KEY\n")
    outside = tmp_path / "outside.txt"
    assert not outside.exists()
    check = CHECK.replace("ALLOWED", repr(ALLOWED)).replace("PORT", str(port))
    check = check.replace("OUTSIDE", repr(str(outside))).replace("SECRET", repr(str(secret)))
    tasks = tmp_path / "tasks"
    task(tasks, "probe", "Say hello.", check=check)
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single", "--json", env={**SECRETS, **env})
    assert done.code == 0, done.err
    doc = json.loads(done.out)
    (row,) = doc["rows"]
    output = row["check_output"].splitlines()
    lines = dict(line.split(": ", 1) for line in output if ": " in line)
    if outside.exists():  # written for real, not in a private /tmp of the sandbox's
        lines["outside"] = "written"
    return done, doc, lines


@pytest.mark.skipif(_found.program is None, reason=f"no working sandbox here: {_found.problem}")
def test_the_check_runs_in_a_fresh_sandbox_with_an_allow_listed_environment(
    fake_llm, run_zen, tmp_path: Path, home: Path, listener: int
) -> None:
    done, doc, said = run_check(fake_llm, run_zen, tmp_path, home, listener)
    assert said == {
        "env": "ok",
        "network": "closed",
        "tests-mode": said["tests-mode"],
        "tests": "read-only",
        "outside": said["outside"],
        "secret": "hidden",
    }, said
    assert said["outside"] in ("read-only", "writable")  # not "written": it never got out
    assert doc["sandbox"] == {"mode": "auto", "active": True, "problem": None}
    assert "no sandbox" not in done.err


def test_without_a_sandbox_the_check_gets_the_same_environment_and_it_is_said(
    fake_llm, run_zen, tmp_path: Path, home: Path, listener: int
) -> None:
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(NO_SANDBOX)
    done, doc, said = run_check(fake_llm, run_zen, tmp_path, home, listener)
    assert said["env"] == "ok", said
    assert int(said["tests-mode"], 8) & 0o222 == 0  # read-only (root writes it anyway)
    assert doc["sandbox"]["active"] is False and "/nonexistent/bwrap" in doc["sandbox"]["problem"]
    assert "zen bench: no sandbox (sandbox_options.program: /nonexistent/bwrap" in done.err


def test_sandbox_on_where_it_cannot_run_runs_nothing(
    fake_llm, run_zen, tmp_path: Path, home: Path
) -> None:
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(f"sandbox: on\n{NO_SANDBOX}")
    tasks = tmp_path / "tasks"
    task(tasks, "never", "Say hello.")
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single")
    assert done.code == 2, done.err
    assert "bench: sandbox is on, but sandbox_options.program: /nonexistent/bwrap" in done.err
    assert fake.requests == []


@pytest.mark.e2e  # some reference solutions run the task's script
@pytest.mark.skipif(_found.program is None, reason=f"no working sandbox here: {_found.problem}")
@pytest.mark.parametrize("name", NAMES)
async def test_every_builtin_check_passes_its_reference_solution_in_its_sandbox(
    name: str, tmp_path: Path
) -> None:
    """Where `zen bench` runs them: read-only tests, no network, the allow-listed environment."""
    chosen = {t.name: t for t in tasks.load_suite(tasks.builtin_dir())}[name]
    ws = tmp_path / "ws" / name
    shutil.copytree(chosen.repo, ws)
    answer = solve(name, ws)
    box = check_sandbox("on", SandboxOptions())
    verdict = await verify(chosen, tmp_path, ws, answer, box)
    assert verdict.status == "passed", verdict.output

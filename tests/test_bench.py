"""`zen bench` end to end: a mini task folder written by each test, the real child `zen -p`
and checks, against the scripted fake server."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Done
from tests.fakes.server import Reply, call, text, tool_calls
from zen.bench.child import remove, run_folder

PASS_IF_OUT = (
    "import sys, pathlib\n"
    "out = pathlib.Path(sys.argv[1]) / 'out.txt'\n"
    "sys.exit(0 if out.is_file() and out.read_text() == 'ok\\n' else 1)\n"
)


def task(root: Path, name: str, instruction: str, check: str = PASS_IF_OUT, **files: str) -> Path:
    folder = root / name
    (folder / "repo").mkdir(parents=True)
    (folder / "tests").mkdir()
    (folder / "instruction.md").write_text(instruction)
    (folder / "tests" / "check.py").write_text(check)
    for path, content in (files or {"README.md": "a tiny repo\n"}).items():
        (folder / "repo" / path).write_text(content)
    return folder


def last_user(body: dict[str, Any]) -> str:
    users = [m for m in body["messages"] if m["role"] == "user"]
    return str(users[-1]["content"]) if users else ""


def scripted(body: dict[str, Any]) -> Reply:
    """`write out.txt` tasks write it with a tool call, then answer; anything else answers."""
    if body["messages"][-1]["role"] == "tool":
        return text("Wrote out.txt.", usage=(300, 20), cached=100)
    if "write out.txt" in last_user(body):
        return tool_calls([call("write-file", {"path": "out.txt", "content": "ok\n"})])
    return text("I did nothing.")


def bench(
    run_zen: Any,
    fake: Any,
    tasks: Path,
    *args: str,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> Done:
    flags = ["--base-url", fake.base_url, "--model", "fake-model", "--api-key", "sk-bench"]
    return run_zen("bench", "--tasks", str(tasks), *flags, *args, timeout=timeout, env=env)


def test_solved_and_failed_tasks_as_json(
    fake_llm, run_zen, tmp_path: Path, project: Path, home: Path
) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "a-solve", "Please write out.txt containing ok.")
    task(tasks, "b-fail", "Make out.txt say ok, somehow.")
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single", "--mode", "dual", "--json")
    assert done.code == 0, done.err
    assert "Traceback" not in done.err
    doc = json.loads(done.out)
    assert doc["model"] == "fake-model" and doc["base_url"] == fake.base_url
    assert doc["zen_version"] and doc["date"] and "temperature" in doc["sampling"]
    assert doc["modes"] == ["single", "dual"] and doc["collaboration"] == "delegated"
    assert doc["partial"] is False and doc["stopped"] is None
    assert "sk-bench" not in done.out + done.err
    rows = {(r["task"], r["mode"]): r for r in doc["rows"]}
    assert set(rows) == {(t, m) for t in ("a-solve", "b-fail") for m in ("single", "dual")}
    solved = rows["a-solve", "single"]
    assert solved["solved"] is True and solved["check"] == "passed" and solved["ended"] == "answer"
    assert solved["turns"] == 2
    assert solved["tool_calls"] == {"native": 1, "recovered": 0, "malformed": 0}
    assert solved["tokens"]["main"]["prompt_cached"] == 100
    assert solved["tokens"]["main"]["prompt_uncached"] == 200 + 10  # the first request: 10
    assert solved["total_tokens"]["output"] == 25 and solved["seconds"] > 0
    failed = rows["b-fail", "single"]
    assert failed["solved"] is False and failed["check"] == "failed" and failed["turns"] == 2
    assert failed["changed_nothing"] is True and solved["changed_nothing"] is False
    assert set(rows["a-solve", "dual"]["tokens"]) == {"main"}  # one model: the direct path
    assert rows["a-solve", "dual"]["collaboration"] == "delegated"
    assert rows["a-solve", "dual"]["triage"] == "direct"
    assert solved["triage"] is None and solved["triage_escalated"] is False
    # every request carried the key; none of it reached the start folder; the home got only
    # the results file, named in the last line, the same document
    assert all(h.get("authorization") == "Bearer sk-bench" for h in fake.request_headers)
    assert list(project.iterdir()) == []
    (kept,) = (home / ".zen" / "bench").iterdir()
    assert done.err.strip().splitlines()[-1] == f"zen bench: results in {kept}"
    assert json.loads(kept.read_text()) == doc
    # besides, the real home gets only the (empty) journal folder of the checks' sandbox
    found = {p.relative_to(home) for p in home.rglob("*")} - {Path(".zen/sandbox")}
    assert found == {Path(".zen"), Path(".zen/bench"), kept.relative_to(home)}
    assert "✓ a-solve · single" in done.err and "✗ b-fail · single" in done.err


def test_the_table_puts_modes_side_by_side(fake_llm, run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "solve", "write out.txt with ok")
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single", "--mode", "controlled")
    assert done.code == 0, done.err
    header, *lines = [line for line in done.out.splitlines() if line.strip()]
    assert header.startswith("zen bench: fake-model at http://127.0.0.1")
    assert header.endswith("· the server's temperature, tool protocol native · 1 task")
    assert "{" not in header  # no raw JSON
    assert lines[0].split() == ["task", "single", "dual/controlled"]
    assert lines[1].split()[:2] == ["solve", "✓"]
    solved = next(line for line in lines if line.startswith("solved"))
    assert solved.split()[1:] == ["1", "of", "1", "1", "of", "1"]
    assert any(line.startswith("tokens per solved task") for line in lines)


def test_a_crashing_check_is_its_rows_error_and_the_bench_goes_on(
    fake_llm, run_zen, tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "a-crash", "write out.txt", check="raise RuntimeError('the check is broken')\n")
    flood = "import sys\nsys.stdout.write('x' * 5_000_000)\nsys.exit(1)\n"
    task(tasks, "b-flood", "write out.txt", check=flood)
    task(tasks, "c-fine", "write out.txt")
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single", "--json")
    assert done.code == 0, done.err
    rows = {r["task"]: r for r in json.loads(done.out)["rows"]}
    assert rows["a-crash"]["check"] == "error" and not rows["a-crash"]["solved"]
    assert "the check is broken" in rows["a-crash"]["check_output"]
    assert rows["b-flood"]["check"] == "failed" and len(rows["b-flood"]["check_output"]) <= 400
    assert rows["c-fine"]["solved"] is True
    assert "! a-crash · single — check error" in done.err


def test_a_deadline_stops_the_run_and_says_so(fake_llm, run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "slow", "write out.txt")
    fake = fake_llm(lambda body: text("late", delay=30))
    started = time.monotonic()
    done = bench(run_zen, fake, tasks, "--mode", "single", "--timeout", "2", "--json")
    assert done.code == 0, done.err
    assert time.monotonic() - started < 25
    (row,) = json.loads(done.out)["rows"]
    assert row["ended"] == "deadline" and row["solved"] is False


SITE = """
import os, signal, subprocess, sys, time
if "-p" in sys.argv:  # the child zen, not the bench: ignore SIGTERM, start a grandchild, hang
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    code = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(300)"
    kid = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    open(os.environ["PID_FILE"], "w").write(f"{os.getpid()} {kid.pid}")
    time.sleep(300)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_child_that_ignores_sigterm_dies_with_its_tree(fake_llm, run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "stubborn", "write out.txt")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITE)
    pids = tmp_path / "pids"
    fake = fake_llm(scripted)
    flags = ["--base-url", fake.base_url, "--model", "m", "--api-key", "k"]
    root = str(Path(__file__).resolve().parent.parent)
    env = {"PYTHONPATH": f"{site}{os.pathsep}{root}", "PID_FILE": str(pids)}
    started = time.monotonic()
    done = run_zen("bench", "--tasks", str(tasks), *flags, "--mode", "single", "--timeout", "1",
                   "--json", env=env, timeout=60)  # fmt: skip
    assert done.code == 0, done.err
    assert time.monotonic() - started < 30
    (row,) = json.loads(done.out)["rows"]
    assert row["ended"] == "deadline"
    for pid in map(int, pids.read_text().split()):
        assert not _alive(pid), f"process {pid} outlived the deadline"


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


def test_a_server_that_is_down_is_one_line_before_any_task(run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "never", "write out.txt")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = run_zen("bench", "--tasks", str(tasks), "--base-url", f"http://127.0.0.1:{port}/v1",
                   "--model", "m", "--api-key", "k", timeout=60)  # fmt: skip
    assert done.code == 1
    assert "cannot reach" in done.err and "Traceback" not in done.err
    assert "never" not in done.err


@pytest.mark.parametrize(
    ("make", "says"),
    [
        (lambda t: (t / "x" / "tests" / "check.py").unlink(), "x: no tests/check.py"),
        (lambda t: (t / "x" / "instruction.md").unlink(), "x: no instruction.md"),
        (lambda t: (t / "x").rename(t / "bad name!"), "'bad name!'"),
        (lambda t: (t / "x" / "repo" / "key").symlink_to("/etc/hostname"), "links outside"),
        (lambda t: os.mkfifo(t / "x" / "repo" / "pipe"), "not a regular file"),
        (
            lambda t: (t / "x" / "task.toml").write_text("[agent]\ntimeout_sec = -1\n"),
            "timeout_sec",
        ),
    ],
)
def test_bad_task_folders_are_refused_before_running(
    make, says: str, fake_llm, run_zen, tmp_path: Path
) -> None:
    if sys.platform == "win32" and says in ("links outside", "not a regular file"):
        pytest.skip("symlinks and FIFOs: POSIX")
    tasks = tmp_path / "tasks"
    task(tasks, "x", "write out.txt")
    make(tasks)
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks)
    assert done.code == 2, done.err
    assert says in done.err and "Traceback" not in done.err
    assert fake.requests == []


def test_unknown_mode_and_task_names(fake_llm, run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "only", "write out.txt")
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "-k", "other")
    assert done.code == 2 and "no task matches 'other'; the tasks are: only" in done.err
    done = bench(run_zen, fake, tasks, "--mode", "triple")
    assert done.code == 2 and "invalid choice: 'triple'" in done.err
    assert fake.requests == []


def test_the_builtin_suite_lists(run_zen) -> None:
    done = run_zen("bench", "--list")
    assert done.code == 0
    assert len(done.out.splitlines()) >= 12 and "refuse-destructive:" in done.out


@pytest.mark.e2e
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigterm_stops_the_bench_and_its_running_task(
    fake_llm, home: Path, project: Path, tmp_path: Path
) -> None:
    import signal
    import subprocess

    from tests.conftest import reap, zen_env

    tasks = tmp_path / "tasks"
    task(tasks, "slow", "write out.txt")
    fake = fake_llm(lambda body: text("late", delay=60))
    flags = ["--base-url", fake.base_url, "--model", "m", "--api-key", "k", "--mode", "single"]
    temp = tmp_path / "tmp"  # its own: other runs' zen-bench-* folders are not this one's
    temp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "bench", "--tasks", str(tasks), *flags],
        cwd=project, env={**zen_env(home), "TMPDIR": str(temp)}, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.1)
        assert fake.requests, "the task never reached the model"
        assert list(temp.glob("zen-bench-*/run*/ws/slow")), "the task's workspace is not in TMPDIR"
        children = _children_of(proc.pid)
        assert children
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 128 + signal.SIGTERM, err
        assert "stopped by SIGTERM" in err and "Traceback" not in err
        assert not any(_alive(pid) for pid in children)
        assert not list(temp.glob("zen-bench-*/run*/ws/slow"))
    finally:
        reap(proc)


def _children_of(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_the_tool_protocol_reaches_the_child_and_the_header(tmp_path: Path) -> None:
    from zen.bench import endpoint

    over = {"base_url": "http://127.0.0.1:9/v1", "model": "m", "tool_protocol": "text"}
    point = endpoint.resolve(tmp_path, over, dual=False)
    assert "tool_protocol: text" in point.config_yaml
    assert point.header["sampling"]["tool_protocol"] == "text"


def test_the_sandbox_settings_reach_the_child(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tasks run in the sandbox where it works, with the user's rules (`~` made absolute: the
    child's home is another)."""
    import yaml

    from zen.bench import endpoint

    monkeypatch.setenv("HOME", str(home))
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(
        "sandbox: on\nsandbox_options: {network: on, writable: ['~/cache']}\n"
    )
    over = {"base_url": "http://127.0.0.1:9/v1", "model": "m"}
    data = yaml.safe_load(endpoint.resolve(tmp_path, over, dual=False).config_yaml)
    assert data["sandbox"] == "on"
    assert data["sandbox_options"]["network"] == "on"
    assert data["sandbox_options"]["writable"] == [str(home / "cache")]


FAIL_SAYING = "import sys\nprint('checking out.txt')\nprint('out.txt is missing')\nsys.exit(1)\n"


def test_the_table_says_why_each_run_failed_and_repeats_read_k_of_n(
    fake_llm, run_zen, tmp_path: Path
) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "a-solve", "Please write out.txt containing ok.")
    task(tasks, "b-fail", "Make out.txt say ok, somehow.", check=FAIL_SAYING)
    fake = fake_llm(scripted)
    done = bench(run_zen, fake, tasks, "--mode", "single", "--repeat", "2")
    assert done.code == 0, done.err
    lines = done.out.splitlines()
    assert lines[0].endswith("· 2 tasks × 2 runs")
    assert next(x for x in lines if x.startswith("a-solve")).split()[1:] == ["2", "of", "2"]
    solved = next(x for x in lines if x.startswith("solved"))
    assert solved.endswith("  1 of 2 in each of 2 runs")
    said = "changed no file; the check said: out.txt is missing"  # "Make" asks for a change
    assert f"✗ b-fail · single (run 1): {said}" in lines
    assert f"✗ b-fail · single (run 2): {said}" in lines
    assert not any("a-solve ·" in x for x in lines)


def test_a_deadline_is_the_reason_given(fake_llm, run_zen, tmp_path: Path) -> None:
    tasks = tmp_path / "tasks"
    task(tasks, "slow", "write out.txt")
    fake = fake_llm(lambda body: text("late", delay=30))
    done = bench(run_zen, fake, tasks, "--mode", "single", "--timeout", "2")
    assert "✗ slow · single: its deadline passed" in done.out.splitlines()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.e2e
@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGINT", 130)])
def test_an_interrupted_bench_prints_and_keeps_what_finished(
    signame: str, code: int, fake_llm, home: Path, project: Path, tmp_path: Path
) -> None:
    import signal
    import subprocess

    from tests.conftest import reap, zen_env

    tasks = tmp_path / "tasks"
    task(tasks, "a-quick", "Please write out.txt containing ok.")
    task(tasks, "b-slow", "Take your time.")

    def reply(body: dict[str, Any]) -> Reply:
        if "Take your time" in last_user(body):
            return text("late", delay=60)
        return scripted(body)

    fake = fake_llm(reply)
    output = tmp_path / "out" / "result.json"
    output.parent.mkdir()
    flags = ["--base-url", fake.base_url, "--model", "m", "--api-key", "k", "--mode", "single"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "bench", "--tasks", str(tasks), *flags, "--output",
         str(output)],
        cwd=project, env=zen_env(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(
            "Take your time" in last_user(r) for r in fake.requests
        ):
            time.sleep(0.1)
        kept = json.loads(output.read_text())
        assert [r["task"] for r in kept["rows"]] == ["a-quick"]  # written as it finished
        assert kept["partial"] is True
        proc.send_signal(getattr(signal, signame))
        out, err = proc.communicate(timeout=60)
    finally:
        reap(proc)
    assert proc.returncode == code, err
    assert "Traceback" not in err
    assert "a-quick" in out and "b-slow" not in out.split("partial:")[0].split("\n", 1)[1]
    why = "stopped by SIGTERM" if signame == "SIGTERM" else "interrupted (Ctrl-C)"
    assert f"partial: {why} after 1 of 2 runs" in out
    kept = json.loads(output.read_text())
    assert (kept["partial"], kept["stopped"], len(kept["rows"])) == (True, why, 1)
    (default,) = (home / ".zen" / "bench").iterdir()
    assert json.loads(default.read_text()) == kept
    assert err.strip().splitlines()[-1] == (f"zen bench: partial results in {default} and {output}")


def test_help_points_to_the_tasks_doc_and_list_cuts_at_a_word(run_zen, tmp_path: Path) -> None:
    done = run_zen("bench", "--help")
    assert "docs/bench.md" in done.out and "benchmarks.md" not in done.out
    tasks = tmp_path / "tasks"
    long = "Rename the function compute_totals to sum_totals everywhere, " * 3
    task(tasks, "long", long.strip())
    done = run_zen("bench", "--tasks", str(tasks), "--list")
    line = done.out.strip()
    assert line.endswith(" …") and len(line) <= len("long: ") + 100
    shown = line[len("long: ") : -len(" …")]
    assert long.startswith(shown) and long[len(shown)] == " "  # a whole word, then the cut


def test_the_bench_measures_the_model_the_server_serves(fake_llm, run_zen, tmp_path: Path) -> None:
    from tests.fakes import personas

    tasks = tmp_path / "tasks"
    task(tasks, "a-solve", "Please write out.txt containing ok.")
    fake = fake_llm(scripted, **personas.llama_server())
    done = run_zen("bench", "--tasks", str(tasks), "--provider", "llamacpp", "--base-url",
                   fake.base_url, "--mode", "single", "--json")  # fmt: skip
    assert done.code == 0, done.err
    assert json.loads(done.out)["model"] == personas.QWEN_FILE
    assert {r["model"] for r in fake.requests} == {personas.QWEN_FILE}


def test_dual_with_one_model_sends_singles_first_request_byte_for_byte(
    fake_llm, run_zen, tmp_path: Path
) -> None:
    """Each run's workspace is at the same path (`child.run_folder`): it is in the system
    prompt, and a random one made single and dual's direct path differ at temperature 0 by
    the path's tokens alone. A folder a stranger could have made is not used."""
    tasks = tmp_path / "tasks"
    task(tasks, "solve", "write out.txt with ok")
    fake = fake_llm(scripted)
    alone = tmp_path / "tmp"  # no other test's bench takes the folder meanwhile
    alone.mkdir()
    flags = ("--mode", "single", "--mode", "dual", "--repeat", "2")
    done = bench(run_zen, fake, tasks, *flags, env={"TMPDIR": str(alone)})
    assert done.code == 0, done.err
    firsts = [r for r in fake.requests if [m["role"] for m in r["messages"]] == ["system", "user"]]
    assert len(firsts) == 4
    assert all(r["messages"] == firsts[0]["messages"] for r in firsts)
    assert all(r.get("tools") == firsts[0].get("tools") for r in firsts)
    assert "/ws/solve" in firsts[0]["messages"][0]["content"] + firsts[0]["messages"][1]["content"]


def test_the_run_folder_is_private_and_reused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    first = run_folder()
    second = run_folder()  # another bench at the same time
    assert first != second and first.parent == second.parent
    assert first.parent.stat().st_mode & 0o777 == 0o700
    remove(first)
    assert run_folder() == first
    if os.name == "posix":
        os.chmod(first.parent, 0o777)  # shared: a stranger could plant files in it
        assert run_folder().parent == tmp_path

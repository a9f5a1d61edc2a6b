"""`zen -p` end to end: a subprocess against the scripted fake server, as a new user runs it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import reap, zen_env
from tests.fakes.server import call, status, text, tool_calls
from zen.base.preamble import asked

CALC = "def add(a, b):\n    return a + b\n"


def tool_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "test-key", "--model", "fake-model"]


def test_adds_a_function_next_to_another(fake_llm, run_zen, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "calc.py"})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {
                            "path": "calc.py",
                            "old_string": "    return a + b\n",
                            "new_string": "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n",  # noqa: E501
                        },
                    )
                ]
            ),
            text("Added sub() next to add()."),
        ]
    )
    done = run_zen("-p", "add a sub() next to add() in calc.py", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "Added sub() next to add()."
    assert "def sub(a, b):\n    return a - b\n" in (project / "calc.py").read_text()
    assert "read-file calc.py" in done.err and "edit-file calc.py" in done.err
    assert "Traceback" not in done.err
    assert len(fake.requests) == 3


def test_confirm_level_refused_without_yes(fake_llm, run_zen, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "touch created-by-bash"})]),
            text("I could not run it."),
        ]
    )
    done = run_zen("-p", "run it", *args_for(fake))
    assert done.code == 7, done.err  # refused for want of approval: said, and its own code
    assert not (project / "created-by-bash").exists()
    (result,) = tool_messages(fake.requests[1])
    assert "--yes" in result and "confirmation" in result


def test_guards_reach_the_model(fake_llm, run_zen, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm(
        [
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "calc.py", "old_string": "a + b", "new_string": "b + a"},
                    ),
                    call("write-file", {"path": "calc.py", "content": "oops\n"}),
                    call("read-file", {"path": "../outside.txt"}),
                ]
            ),
            text("ok"),
        ]
    )
    done = run_zen("-p", "try things", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC
    edit, write, read = tool_messages(fake.requests[1])
    assert "read" in edit.lower() and "before" in edit.lower()
    assert "overwrite" in write
    assert "outside the workspace" in read


def test_bad_tool_calls_become_readable_errors(fake_llm, run_zen) -> None:
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("read-file", '{"path": "a.py"'),
                    call("no-such-tool", {}),
                    call("read-file", {}),
                    call("read-file", {"path": 3}),
                ]
            ),
            text("recovered"),
        ]
    )
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "recovered"
    broken, unknown, missing, wrong_type = tool_messages(fake.requests[1])
    assert "not valid JSON" in broken
    assert "unknown tool" in unknown and "read-file" in unknown
    assert "path" in missing and "required" in missing.lower()
    assert "path" in wrong_type and "string" in wrong_type.lower()


def test_every_request_extends_the_last_byte_for_byte(fake_llm, run_zen, project: Path) -> None:
    (project / "a.txt").write_text("hello\n")
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "a.txt"})]),
            tool_calls([call("glob", {"pattern": "*.txt"})]),
            text("done"),
        ]
    )
    assert run_zen("-p", "look", *args_for(fake)).code == 0
    first, second, third = fake.requests
    for before, after in ((first, second), (second, third)):
        dumped = [json.dumps(m, sort_keys=True) for m in before["messages"]]
        assert [json.dumps(m, sort_keys=True) for m in after["messages"][: len(dumped)]] == dumped
        assert json.dumps(after["tools"]) == json.dumps(before["tools"])
    assert "temperature" not in first


def test_single_agent_prompt_and_tools_stay_small(fake_llm, run_zen) -> None:
    fake = fake_llm([text("hi")])
    assert run_zen("-p", "hi", *args_for(fake)).code == 0
    request = fake.requests[0]
    tools = json.dumps(request["tools"], separators=(",", ":"), ensure_ascii=False)
    facts = len(request["messages"][1]["content"]) - len("hi")  # the facts framed before it
    size = len(request["messages"][0]["content"]) + len(tools) + facts
    assert size < 6000, size


def test_same_call_three_times_is_called_looping(fake_llm, run_zen, project: Path) -> None:
    (project / "a.txt").write_text("x\n")
    same = call("read-file", {"path": "a.txt"})
    fake = fake_llm([tool_calls([same]), tool_calls([same]), tool_calls([same]), text("ok")])
    assert run_zen("-p", "go", *args_for(fake)).code == 0
    assert "looping" in tool_messages(fake.requests[3])[-1]


def test_json_output(fake_llm, run_zen, project: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("write-file", {"path": "new.txt", "content": "x\n"})], usage=(100, 7)),
            text("wrote it", usage=(120, 3)),
        ]
    )
    done = run_zen("-p", "write", "--yes", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    result = json.loads(done.out)
    assert result["result"] == "wrote it"
    assert result["is_error"] is False
    assert result["turns"] == 2
    assert result["files_changed"] == ["new.txt"]
    assert result["usage"]["main"]["prompt_tokens"] == 220
    assert result["usage"]["main"]["completion_tokens"] == 10


def test_json_counts_tool_calls_native_and_malformed(fake_llm, run_zen) -> None:
    """An unknown tool and arguments that do not parse are malformed; the good call is native."""
    fake = fake_llm(
        [
            tool_calls([call("glob", {"pattern": "*"}), call("no-such-tool", {})]),
            tool_calls([call("read-file", "{not json")]),
            tool_calls([call("glob", {"wrong": 1})]),
            text("done"),
        ]
    )
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    assert json.loads(done.out)["tool_calls"] == {"native": 1, "recovered": 0, "malformed": 3}


def test_json_output_lists_files_bash_changed_too(fake_llm, run_zen, project: Path) -> None:
    """The run's checkpoints show what bash changed; only file tools' changes were listed."""
    (project / "old.txt").write_text("x\n")
    (project / "kept.txt").write_text("x\n")
    fake = fake_llm(
        [
            tool_calls([call("write-file", {"path": "new.txt", "content": "x\n"})]),
            tool_calls([call("bash", {"command": "echo y > made.txt; rm old.txt"})]),
            text("done"),
        ]
    )
    done = run_zen("-p", "go", "--yes", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    assert json.loads(done.out)["files_changed"] == ["new.txt", "made.txt", "old.txt"]


def test_stream_json_output(fake_llm, run_zen) -> None:
    fake = fake_llm([tool_calls([call("glob", {"pattern": "*"})]), text("fine")])
    done = run_zen("-p", "go", "--output-format", "stream-json", *args_for(fake))
    assert done.code == 0, done.err
    lines = [json.loads(line) for line in done.out.splitlines()]
    kinds = [line["type"] for line in lines]
    assert "ToolCallFinished" in kinds and "TextDelta" in kinds
    assert kinds[-1] == "result" and lines[-1]["result"] == "fine"


def test_task_from_stdin(fake_llm, run_zen) -> None:
    fake = fake_llm([text("got it")])
    done = run_zen("-p", "-", *args_for(fake), stdin="the task from a pipe\n")
    assert done.code == 0, done.err
    assert asked(fake.requests[0]["messages"][-1]["content"]).strip() == "the task from a pipe"


@pytest.mark.e2e
def test_task_from_stdin_is_utf8_whatever_the_code_page(fake_llm, home: Path) -> None:
    fake = fake_llm([text("got it")])
    done = subprocess.run(
        [sys.executable, "-m", "zen", "-p", "-", *args_for(fake)],
        input="\ufeffrésumé 中文 ✓\n".encode(),  # with the BOM PowerShell may send
        capture_output=True,
        env=zen_env(home, PYTHONIOENCODING="cp1252"),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert asked(fake.requests[0]["messages"][-1]["content"]).strip() == "résumé 中文 ✓"


@pytest.mark.e2e
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_answer_is_exact_utf8_whatever_the_code_page(
    fake_llm, home: Path, project: Path, fmt: str
) -> None:
    """Windows pipes get the ANSI code page (cp1252); PYTHONIOENCODING makes Linux do the
    same. The answer comes after an edit: it must not be lost to a UnicodeEncodeError."""
    answer = "résumé ✓ 中文 › done"
    fake = fake_llm(
        [tool_calls([call("write-file", {"path": "n.txt", "content": "é\n"})]), text(answer)]
    )
    done = subprocess.run(
        [sys.executable, "-m", "zen", "-p", "go", "--yes", "--output-format", fmt, *args_for(fake)],
        cwd=project,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env=zen_env(home, PYTHONIOENCODING="cp1252"),
        timeout=60,
    )
    err = done.stderr.decode("utf-8")
    assert done.returncode == 0, err
    assert (project / "n.txt").read_bytes() == "é\n".encode()
    out = done.stdout.decode("utf-8")
    assert (out.strip() if fmt == "text" else json.loads(out)["result"]) == answer
    if fmt == "text":
        assert "write-file n.txt" in err and "?" not in err


def test_retries_a_server_error(fake_llm, run_zen) -> None:
    fake = fake_llm([status(500, headers={"retry-after-ms": "10"}), text("second time")])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "second time"
    assert len(fake.requests) == 2


def test_auth_error_is_one_line_exit_1(fake_llm, run_zen) -> None:
    fake = fake_llm([status(401)])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 1
    assert "Traceback" not in done.err
    assert len(done.err.strip().splitlines()) == 1
    assert "API key" in done.err or "auth" in done.err.lower()


def test_max_turns_exit_3(fake_llm, run_zen) -> None:
    fake = fake_llm(
        [
            tool_calls([call("glob", {"pattern": "*"})]),
            tool_calls([call("glob", {"pattern": "*.py"})]),
        ]
    )
    done = run_zen("-p", "go", "--max-turns", "2", *args_for(fake))
    assert done.code == 3
    assert "max" in done.err.lower()


def test_config_error_names_file_and_key(run_zen, project: Path) -> None:
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("max_turns: lots\n")
    done = run_zen("-p", "go", "--trust")
    assert done.code == 2
    assert "config.yaml" in done.err and "max_turns" in done.err
    assert "Traceback" not in done.err


def test_missing_api_key_says_how_to_set_one(run_zen) -> None:
    done = run_zen("-p", "go")
    assert done.code == 2
    assert "ZEN_API_KEY" in done.err or "OPENAI_API_KEY" in done.err
    assert "Traceback" not in done.err


@pytest.mark.e2e
def test_ctrl_c_stops_cleanly(fake_llm, home: Path, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([text("a slow answer " * 200, chunk=2, chunk_delay=0.02)])
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "go", *args_for(fake)],
        cwd=project,
        env=zen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.time() + 20
    while not fake.requests and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert (project / "calc.py").read_text() == CALC


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals: nohup and SIG_IGN")
@pytest.mark.parametrize("signame", ["SIGHUP", "SIGINT"])
def test_a_signal_ignored_at_start_stays_ignored(
    fake_llm, home: Path, project: Path, signame: str
) -> None:
    """`nohup zen -p ... &` survives the terminal closing; a background job survives Ctrl-C."""
    signum = getattr(signal, signame)
    fake = fake_llm([text("slow answer " * 20, chunk=8, chunk_delay=0.05)])
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "go", *args_for(fake)],
        cwd=project,
        env=zen_env(home),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signum, signal.SIG_IGN),
    )
    deadline = time.time() + 20
    while not fake.requests and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert out.count("slow answer") == 20


def test_a_server_that_silently_truncates_is_called_out(fake_llm, run_zen) -> None:
    big_task = "explain this log:\n" + "the build failed at step seven again\n" * 600
    cutting = fake_llm([text("ok", usage=(2048, 5))])  # what Ollama reports at num_ctx 2048
    done = run_zen("-p", "-", *args_for(cutting), stdin=big_task)
    assert done.code == 0, done.err
    assert "2,048 prompt tokens" in done.err and "OLLAMA_CONTEXT_LENGTH" in done.err
    honest = fake_llm([text("ok", usage="estimate")])
    done = run_zen("-p", "-", *args_for(honest), stdin=big_task)
    assert done.code == 0, done.err
    assert "prompt tokens" not in done.err


def test_allowed_roots_extend_the_workspace(fake_llm, run_zen, project: Path) -> None:
    shared = project.parent / "shared-docs"
    shared.mkdir()
    (shared / "api.md").write_text("the shared api\n")
    (project.parent / "private.txt").write_text("keep out\n")
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text(f"allowed_roots: ['{shared}']\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("read-file", {"path": str(shared / "api.md")}),
                    call("read-file", {"path": "../private.txt"}),
                ]
            ),
            text("ok"),
        ]
    )
    assert run_zen("-p", "read", "--trust", *args_for(fake)).code == 0
    allowed, refused = tool_messages(fake.requests[1])
    assert "the shared api" in allowed
    assert "outside the workspace" in refused and "keep out" not in refused


def priced(home: Path) -> None:
    """A user config giving the fake model a (steep) price; a local server is otherwise free."""
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(
        "pricing:\n  fake-model: {input: 1000.0, cached_input: 250.0, output: 5000.0}\n"
    )


def test_json_has_cost_and_duration(fake_llm, run_zen, home: Path) -> None:
    priced(home)
    fake = fake_llm(
        [
            tool_calls([call("glob", {"pattern": "*"})], usage=(1000, 0), cached=500),
            text("done", usage=(0, 100)),
        ]
    )
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    result = json.loads(done.out)
    assert result["cost_usd"] == pytest.approx(0.5 + 0.125 + 0.5)
    assert result["usage"]["main"]["cost_usd"] == result["cost_usd"]
    assert isinstance(result["duration_ms"], int) and result["duration_ms"] > 0
    assert result["permission_denials"] == []


def test_a_continued_run_reports_its_own_usage_and_cost(fake_llm, run_zen, home: Path) -> None:
    """Issue 40 (4): `-p -c` reported the whole session's usage and cost as the run's, so a
    script summing `cost_usd` counted the earlier runs again."""
    priced(home)
    fake = fake_llm([text("one", usage=(1000, 100)), text("two", usage=(2000, 10))])
    first = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    second = run_zen("-p", "again", "-c", "--output-format", "json", *args_for(fake))
    assert first.code == 0 and second.code == 0, first.err + second.err
    one, two = json.loads(first.out), json.loads(second.out)
    assert one["session_id"] == two["session_id"]
    assert one["cost_usd"] == pytest.approx(1.0 + 0.5)
    assert two["cost_usd"] == pytest.approx(2.0 + 0.05)
    assert two["usage"]["main"]["prompt_tokens"] == 2000
    assert two["usage"]["main"]["completion_tokens"] == 10
    assert two["usage"]["main"]["requests"] == 1


def test_cost_is_null_when_the_price_is_unknown(fake_llm, run_zen) -> None:
    fake = fake_llm([text("hi"), text("hi")])
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    assert json.loads(done.out)["cost_usd"] == 0  # a server on this machine costs nothing
    # the same server under a name zen does not know as local: no price, so null
    remote = fake.base_url.replace("127.0.0.1", "[::ffff:127.0.0.1]")
    done = run_zen(
        "-p",
        "go",
        "--output-format",
        "json",
        "--base-url",
        remote,
        "--api-key",
        "k",
        "--model",
        "fake-model",
    )
    assert done.code == 0, done.err
    assert json.loads(done.out)["cost_usd"] is None


def test_max_budget_stops_the_run(fake_llm, run_zen, home: Path) -> None:
    priced(home)
    fake = fake_llm(
        [tool_calls([call("glob", {"pattern": "*"})], usage=(2000, 0))] * 5 + [text("never")]
    )
    done = run_zen("-p", "go", "--max-budget-usd", "3", "--output-format", "json", *args_for(fake))
    assert done.code == 8, done.err
    result = json.loads(done.out)
    assert result["is_error"] and result["stop"] == "max_budget"
    assert "max_budget_usd" in result["result"] and "Traceback" not in done.err
    assert len(fake.requests) == 2  # $2, then $4 > $3: stopped


def test_piped_stdin_is_context_for_the_task(fake_llm, run_zen) -> None:
    fake = fake_llm([text("it failed at line 2")])
    log = "line 1 café\nERROR at line 2 ✓\n"
    done = run_zen("-p", "explain", *args_for(fake), stdin=log)
    assert done.code == 0, done.err
    sent = asked(fake.requests[0]["messages"][-1]["content"])
    assert sent.startswith("explain") and f"<stdin>\n{log}</stdin>" in sent


@pytest.mark.e2e
def test_a_silent_open_stdin_does_not_hang(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([text("fine")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "go", *args_for(fake)],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=zen_env(home),
        text=True,
    )
    try:
        started = time.monotonic()
        while proc.poll() is None and time.monotonic() - started < 30:
            time.sleep(0.05)  # stdin stays open and silent the whole time
        assert proc.returncode == 0
        assert proc.stdout is not None and proc.stdout.read().strip() == "fine"
        assert asked(fake.requests[0]["messages"][-1]["content"]) == "go"
    finally:
        reap(proc)


def test_refused_calls_get_their_own_exit_code(fake_llm, run_zen, project: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "touch made"})]),
            tool_calls([call("glob", {"pattern": "*"})]),  # the run goes on after the refusal
            text("could not run it"),
        ]
    )
    done = run_zen("-p", "run it", "--output-format", "json", *args_for(fake))
    assert done.code == 7, done.err
    assert not (project / "made").exists() and len(fake.requests) == 3
    result = json.loads(done.out)
    assert result["permission_denials"] == [
        {"tool": "bash", "agent": "main", "args": {"command": "touch made"}}
    ]
    assert "--yes" in done.err and "permissions" in done.err


def test_model_flag_says_which_roles_keep_their_own(fake_llm, run_zen, home: Path) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("dual_agent:\n  coder:\n    model: coder-model\n")
    fake = fake_llm([text("ok")])
    done = run_zen("-p", "go", "--dual", *args_for(fake))
    assert done.code == 0, done.err
    assert (
        "--model fake-model applies to every role without its own model; coder keeps "
        "coder-model" in done.err
    )
    assert fake.requests[0]["model"] == "fake-model"


def test_json_output_still_warns_on_stderr(fake_llm, run_zen) -> None:
    """The server counted fewer prompt tokens than zen's tool schemas alone (it dropped the
    tools): stdout stays one JSON object, and the warning reaches stderr."""
    fake = fake_llm([text("no tools here", usage=(60, 5))])
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    assert json.loads(done.out)["result"] == "no tools here"
    assert "zen: warning:" in done.err and "dropped the tools" in done.err, done.err

"""`zen -p` when things go wrong: deadlines, odd bytes, cut answers, and `--output-format json`
always ending with one object. Subprocesses against the scripted fake server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import call, llamacpp, raw, sse, status, text, tool_calls
from zen.agent.loop import CUT_MARK
from zen.agent.protocols.base import CUT_CALL
from zen.base.preamble import asked


def args_for(fake: Any, model: bool = True) -> list[str]:
    args = ["--base-url", fake.base_url, "--api-key", "test-key"]
    return [*args, "--model", "fake-model"] if model else args


def last_json(out: str) -> dict[str, Any]:
    lines = out.strip().splitlines()
    assert lines, "no output at all"
    obj = json.loads(lines[-1])
    assert obj["type"] == "result"
    return obj


@pytest.mark.parametrize("fmt", ["json", "stream-json"])
def test_json_ends_with_an_object_on_api_errors(fake_llm, run_zen, fmt: str) -> None:
    fake = fake_llm([status(401)])
    done = run_zen("-p", "go", "--output-format", fmt, *args_for(fake))
    assert done.code == 1 and "Traceback" not in done.err
    obj = last_json(done.out)
    assert obj["is_error"] is True and "authentication failed" in obj["result"]


def test_json_ends_with_an_object_on_config_errors(run_zen, project: Path) -> None:
    done = run_zen("-p", "go", "--output-format", "json")  # no API key anywhere
    assert done.code == 2 and "Traceback" not in done.err
    obj = last_json(done.out)
    assert obj["is_error"] is True and "no API key" in obj["result"]


def test_json_ends_with_an_object_on_bad_config_and_flags(run_zen, project: Path) -> None:
    done = run_zen("-p", "go", "--output-format", "json", "--max-turns", "0")
    assert done.code == 2 and "max-turns" in last_json(done.out)["result"]
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("max_turns: lots\n")
    done = run_zen("-p", "go", "--trust", "--output-format", "stream-json")
    obj = last_json(done.out)
    assert done.code == 2 and obj["is_error"] and "max_turns" in obj["result"]


def run_bytes(argv: list[bytes], home: Path, cwd: Path, stdin: bytes = b"") -> Any:
    return subprocess.run(
        [sys.executable.encode(), b"-m", b"zen", *argv],
        input=stdin,
        capture_output=True,
        env=zen_env(home),
        cwd=cwd,
        timeout=60,
    )


@pytest.mark.e2e
def test_task_bytes_that_are_not_utf8(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([text("one"), text("two")])
    args = [a.encode() for a in args_for(fake)]
    done = run_bytes([b"-p", b"caf\xe9 \xff", *args], home, project)
    assert done.returncode == 0, done.stderr
    done = run_bytes([b"-p", b"-", *args], home, project, stdin=b"na\xefve \xc3(\n")
    assert done.returncode == 0, done.stderr
    tasks = [asked(r["messages"][-1]["content"]) for r in fake.requests]
    assert tasks[0] == "caf\ufffd \ufffd" and tasks[1].strip() == "na\ufffdve \ufffd("


@pytest.mark.parametrize("fmt", ["text", "json", "stream-json"])
def test_lone_surrogate_from_the_model_is_printed(fake_llm, run_zen, fmt: str) -> None:
    body = sse(
        b'{"choices":[{"index":0,"delta":{"content":"hi \\ud83d there"},"finish_reason":"stop"}]}',
        "[DONE]",
    )
    fake = fake_llm([raw(body)])
    done = run_zen("-p", "go", "--output-format", fmt, *args_for(fake))
    assert done.code == 0 and "Traceback" not in done.err, done.err
    assert "hi \ufffd there" in (done.out if fmt == "text" else last_json(done.out)["result"])


def test_max_time_stops_the_task(fake_llm, run_zen) -> None:
    fake = fake_llm([text("late", delay=20)])
    start = time.monotonic()
    done = run_zen("-p", "go", "--max-time", "1", "--output-format", "json", *args_for(fake))
    assert time.monotonic() - start < 12  # start-up is slow on a loaded machine; not 20
    assert done.code == 4, done.err
    obj = last_json(done.out)
    assert obj["stop"] == "max_time" and obj["is_error"] and "max_time" in obj["result"]


def test_timeout_flag_bounds_a_silent_server(fake_llm, run_zen) -> None:
    fake = fake_llm([text("late", delay=20), text("late", delay=20), text("late", delay=20)])
    start = time.monotonic()
    done = run_zen("-p", "go", "--timeout", "0.5", *args_for(fake))
    assert time.monotonic() - start < 12
    assert done.code == 1 and len(fake.requests) == 2
    assert "no answer within 0.5 s of the request (timeout)" in done.err


def test_env_sets_the_deadlines(fake_llm, run_zen) -> None:
    fake = fake_llm([text("late", delay=20), text("late", delay=20)])
    done = run_zen("-p", "go", *args_for(fake), env={"ZEN_FIRST_BYTE_TIMEOUT": "0.4"})
    assert done.code == 1 and "within 0.4 s" in done.err


def test_a_slow_first_token_is_said_once_on_stderr(fake_llm, run_zen) -> None:
    fake = fake_llm([text("finally", delay=3.2)])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0 and done.out.strip() == "finally"
    waits = [line for line in done.err.splitlines() if line.startswith("waiting for")]
    assert waits == ["waiting for the model's first token (2s so far, giving up after 300s)"]


def test_short_stalls_inside_a_stream_print_no_lines(fake_llm, run_zen) -> None:
    """A slow local model pauses between tokens; -p's stderr must not get a line per pause
    (a wait inside an answer is said only once it is long, STALL_NOTICE)."""
    fake = fake_llm([text("one two three", chunk=5, chunk_delay=2.4)])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0 and done.out.strip() == "one two three"
    assert [line for line in done.err.splitlines() if line.startswith("waiting for")] == []


def test_an_answer_cut_at_max_tokens_is_marked(fake_llm, run_zen) -> None:
    fake = fake_llm(
        [
            text("the first half", finish_reason="length"),
            text("the first half", finish_reason="length"),
        ]
    )
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 5
    assert done.out.strip() == f"the first half\n\n{CUT_MARK}"
    assert "cut at max_tokens" in done.err
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake))
    obj = last_json(done.out)
    assert (done.code, obj["stop"], obj["is_error"]) == (5, "length", True)


def test_a_tool_call_cut_at_max_tokens_is_not_run(fake_llm, run_zen, project: Path) -> None:
    cut = tool_calls(
        [call("write-file", {"path": "big.txt", "content": "x" * 50})], finish_reason="length"
    )
    fake = fake_llm([cut, text("ok, smaller steps")])
    done = run_zen("-p", "go", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert not (project / "big.txt").exists()
    tool_message = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in tool_message] == [CUT_CALL]


def test_llamacpp_preset_end_to_end(fake_llm, run_zen, project: Path) -> None:
    """llama-cpp-python behind `--provider llamacpp`: the lookup recognizes it, so tools go out
    unstreamed with tool_choice, and its one model replaces the placeholder."""
    from tests.fakes import personas

    (project / "notes.md").write_text("hello\n")
    script = llamacpp([tool_calls([call("glob", {"pattern": "*.md"})]), text("found notes.md")])
    served = personas.llama_cpp_python("local-llama")
    fake = fake_llm(script, **served)
    done = run_zen(
        "-p",
        "list",
        "--provider",
        "llamacpp",
        "--output-format",
        "json",
        *args_for(fake, model=False),
    )
    assert done.code == 0, done.err
    obj = last_json(done.out)
    assert obj["result"] == "found notes.md"
    assert obj["usage"]["main"]["estimated"] is True and obj["usage"]["main"]["prompt_tokens"]
    first = fake.requests[0]
    assert (first["stream"], first["tool_choice"], first["model"]) == (False, "auto", "local-llama")


def test_a_wait_under_max_time_says_the_tasks_end(fake_llm, run_zen) -> None:
    """Not the first-byte deadline (300s) when --max-time ends the task sooner (issue 29)."""
    fake = fake_llm([text("late", delay=20)])
    done = run_zen("-p", "go", "--max-time", "3", *args_for(fake))
    assert done.code == 4, done.err
    waits = [line for line in done.err.splitlines() if line.startswith("waiting for")]
    assert len(waits) == 1, done.err
    # the task's end, counted from the wait's start: at most the 3 s the task had
    assert re.fullmatch(
        r"waiting for the model's first token \(2s so far, giving up after [23]s\)", waits[0]
    ), waits


def test_a_run_limit_is_not_a_model_failure() -> None:
    """max_time and max_budget_usd are the user's limits: no front-end may take them for an
    LLMError (which says the model or its server failed)."""
    from zen.agent.run_guards import BudgetLimit, RunLimit, TimeLimit
    from zen.llm.types import LLMError

    for limit in (TimeLimit, BudgetLimit):
        assert issubclass(limit, RunLimit) and not issubclass(limit, LLMError)

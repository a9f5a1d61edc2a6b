"""Sessions that survive what breaks them: a kill during a tool call, a key typed in a task,
bash asked to print zen's own keys."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import reap, zen_env
from tests.fakes.server import call, text, tool_calls
from tests.test_sessions import args_for, roles, wait_for


def test_kill_9_during_bash_leaves_a_session_a_strict_server_accepts(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    """Killed while bash ran, the stored assistant message has a call and no result; the next
    --continue answers it as interrupted, so a strict server (OpenAI) does not refuse the
    session forever."""
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "touch started; sleep 60"})], text="Running."),
            text("Resumed."),
            text("Again."),
        ],
        strict=True,
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "run it", "--yes", *args_for(fake)],
        cwd=project,
        env=zen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: (project / "started").exists())
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        reap(proc)
    done = run_zen("-p", "go on", "--continue", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "Resumed."
    sent = fake.requests[-1]["messages"]
    assert roles(fake.requests[-1]) == ["system", "user", "assistant", "tool", "user"]
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]
    assert sent[3]["content"].startswith("Interrupted: zen stopped while this call ran")
    again = run_zen("-p", "and?", "--continue", *args_for(fake))  # the repair was saved once
    assert again.code == 0, again.err
    assert roles(fake.requests[-1]) == [*roles(fake.requests[-2]), "assistant", "user"]


KEY = "sk-proj-Zq8vT3kLm9Xw2Rb7Yc4N"


def test_a_key_typed_in_a_task_reaches_no_file_zen_writes(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    """Titles, memo, project notes, checkpoint labels: only message rows were scrubbed."""
    (project / "a.py").write_text("A = 1\n")
    note = {"action": "write", "key": "file:a.py", "content": f"uses {KEY}", "summary": KEY}
    memo = {"action": "write", "key": "task:key", "content": f"the key is {KEY}"}
    fake = fake_llm(
        [
            tool_calls([call("memo", note), call("memo", memo)]),
            tool_calls([call("bash", {"command": "echo changed > a.py"})]),
            text("done"),
        ]
    )
    done = run_zen(
        "-p",
        f"deploy with key {KEY} please",
        "--yes",
        "--api-key",
        KEY,
        "--base-url",
        fake.base_url,
        "--model",
        "m",
    )
    assert done.code == 0, done.err
    listed = run_zen("sessions", "list")
    assert listed.code == 0 and "deploy with key" in listed.out and KEY not in listed.out
    leaks = [
        str(path)
        for path in (home / ".zen").rglob("*")
        if path.is_file() and KEY.encode() in path.read_bytes()
    ]
    assert leaks == []


def test_bash_does_not_inherit_zens_keys_unless_the_config_says_so(
    fake_llm, run_zen, home: Path
) -> None:
    command = 'echo "[${ZEN_API_KEY:0:10}-${ZEN_API_KEY:10}][${DEEPSEEK_API_KEY:-}]"'
    fake = fake_llm([tool_calls([call("bash", {"command": command})]), text("ok")] * 2)
    env = {"ZEN_API_KEY": KEY, "DEEPSEEK_API_KEY": KEY[::-1]}
    args = ["--yes", "--base-url", fake.base_url, "--model", "m"]
    assert run_zen("-p", "show", *args, env=env).code == 0
    output = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"][0]["content"]
    assert output.startswith("[-][]"), output
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("bash_inherits_keys: true\n")
    assert run_zen("-p", "show", *args, env=env).code == 0
    output = [m for m in fake.requests[3]["messages"] if m["role"] == "tool"][0]["content"]
    assert output.startswith(f"[{KEY[:10]}-{KEY[10:]}][{KEY[::-1]}]"), output

"""Sessions end to end: `zen -p` runs saved as they happen, continued, resumed, listed."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import call, status, text, tool_calls


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "test-key", "--model", "fake-model"]


def roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "user"]


def result_of(out: str) -> dict[str, Any]:
    return json.loads(out.strip().splitlines()[-1])


def test_continue_carries_the_conversation_memo_and_todos(fake_llm, run_zen, project: Path,
                                                          home: Path) -> None:
    (project / "a.py").write_text("print('a')\n")
    fake = fake_llm([
        tool_calls([
            call("read-file", {"path": "a.py"}),
            call("memo", {"action": "write", "key": "plan:x", "content": "the plan",
                          "summary": "a plan"}),
            call("todo", {"action": "add", "items": ["first step", "second step"]}),
        ]),
        text("First answer."),
        text("Second answer."),
    ])
    first = run_zen("-p", "look at a.py", "--output-format", "json", *args_for(fake))
    assert first.code == 0, first.err
    sid = result_of(first.out)["session_id"]
    assert sid

    second = run_zen("-p", "and now?", "--continue", "--output-format", "json",
                     *args_for(fake))
    assert second.code == 0, second.err
    assert result_of(second.out)["session_id"] == sid
    last = fake.requests[-1]
    assert user_texts(last)[-2:] == ["look at a.py", "and now?"]
    assert roles(last) == ["system", "user", "assistant", "tool", "tool", "tool", "assistant",
                           "user"]
    assert any(m.get("content") == "First answer." for m in last["messages"])

    db = home / ".zen" / "sessions.db"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    shown = run_zen("sessions", "show", sid)
    assert shown.code == 0, shown.err
    assert "plan:x" in shown.out and "first step" in shown.out
    assert "look at a.py" in shown.out and "Second answer." in shown.out

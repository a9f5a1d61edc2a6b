"""A scout's raw reads become stubs once it noted the file (`zen/agent/read_stubs.py`): what
the next request sends, end to end, and what a hostile or failed call leaves alone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.server import call, text, tool_calls
from tests.test_triage import args
from zen.agent.read_stubs import stub_for, stubbed

GREET = "def greet(name):\n    return f'Hi {name}'\n"


def calls(*made: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, n, a in made
        ],
    }


def test_only_noted_reads_become_stubs() -> None:
    messages = [
        {"role": "user", "content": "note a.py and b.py"},
        calls(("r1", "read-file", {"path": "a.py"}), ("r2", "read-file", {"path": "b.py"})),
        {"role": "tool", "tool_call_id": "r1", "content": "A" * 500},
        {"role": "tool", "tool_call_id": "r2", "content": "B" * 500},
        calls(
            ("m1", "memo", {"action": "write", "key": "file:a.py", "content": "a"}),
            ("m2", "memo", {"action": "write", "key": "file:b.py", "content": "b"}),
            ("x", "read-file", "not a dict"),
        ),
        {"role": "assistant", "tool_calls": [{"id": "y", "function": {"arguments": "{"}}]},
    ]
    out = stubbed(messages, noted=lambda key: key == "file:a.py")  # b.py's note failed
    assert out[2]["content"] == stub_for("a.py")
    assert out[3]["content"] == "B" * 500
    assert messages[2]["content"] == "A" * 500  # the input is left as it was


def test_a_scouts_next_request_holds_the_stub(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    note = {"action": "write", "key": "file:greet.py", "content": "greet(name) at line 1"}
    scout = [
        tool_calls([call("read-file", {"path": "greet.py"})]),
        tool_calls([call("memo", {**note, "summary": "greet"})]),
        text("greet.py: greet(name) at line 1."),
    ]
    orch = [
        tool_calls(
            [call("spawn-agents", {"tasks": [{"description": "s", "prompt": "note greet.py"}]})]
        ),
        text("greet(name) is at line 1."),
    ]
    seen: list[dict[str, Any]] = []

    def script(body: dict[str, Any]) -> Any:
        names = {t["function"]["name"] for t in body.get("tools", [])}
        if "send-to-coder" in names:
            return orch.pop(0)
        seen.append(body)
        return scout.pop(0)

    fake = fake_llm(script)
    done = run_zen("-p", "explain how greet works everywhere", *args(fake, "--triage", "large"))
    assert done.code == 0, done.err
    results = [[m["content"] for m in b["messages"] if m["role"] == "tool"] for b in seen]
    assert "Hi {name}" in results[1][0]  # before the note: the raw read
    assert results[2][0] == stub_for("greet.py")  # after it: the stub

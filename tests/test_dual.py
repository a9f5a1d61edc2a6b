"""Dual mode end to end: `zen -p --dual` against a fake server that tells the roles apart
by the tools each request offers (only the Orchestrator holds send-to-coder)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import Reply, call, text, tool_calls
from zen.base.preamble import asked

pytestmark = pytest.mark.usefixtures("two_models")  # orchestrated paths: a Coder model

GREET = "def greet(name):\n    return f'Hi {name}'\n"


def tools_of(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


class Roles:
    """A fake-server script: each role pops its own replies; requests are kept per role."""

    def __init__(self, orchestrator: list[Reply], coder: list[Reply]) -> None:
        self.replies = {"orchestrator": orchestrator, "coder": coder}
        self.requests: dict[str, list[dict[str, Any]]] = {"orchestrator": [], "coder": []}

    def __call__(self, body: dict[str, Any]) -> Reply:
        role = "orchestrator" if "send-to-coder" in tools_of(body) else "coder"
        self.requests[role].append(body)
        return self.replies[role].pop(0)


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def prompt_size(body: dict[str, Any], root: Path) -> int:
    """System prompt + tool schemas, as sent (compact JSON), + the facts before the task;
    the workspace's path counted as one character (pytest's temp paths vary in length)."""
    tools = json.dumps(body.get("tools", []), separators=(",", ":"), ensure_ascii=False)
    first = body["messages"][1]["content"]
    facts = first[: len(first) - len(asked(first))]
    sent = body["messages"][0]["content"] + tools + facts
    return len(sent.replace(str(root), "/"))


def base_args(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model", "--yes"]


def rename_script() -> Roles:
    return Roles(
        orchestrator=[
            tool_calls([call("read-file", {"path": "greet.py"})]),
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "plan:rename",
                            "content": "greet(name) in greet.py becomes welcome(name); no other callers",  # noqa: E501
                            "summary": "rename greet to welcome in greet.py",
                        },
                    )
                ]
            ),
            tool_calls(
                [
                    call(
                        "send-to-coder",
                        {
                            "task": "[goal] rename greet to welcome [files] greet.py [refs] plan:rename",  # noqa: E501
                        },
                    )
                ]
            ),
            text("Renamed greet() to welcome()."),
        ],
        coder=[
            tool_calls(
                [
                    call(
                        "edit-file",
                        {
                            "path": "greet.py",
                            "old_string": "def greet(",
                            "new_string": "def welcome(",
                        },
                    )
                ]
            ),
            tool_calls([call("read-file", {"path": "greet.py"})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {
                            "path": "greet.py",
                            "old_string": "def greet(",
                            "new_string": "def welcome(",
                        },
                    )
                ]
            ),
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "file:greet.py",
                            "content": "welcome(name) returns a greeting",
                            "summary": "greeting now welcome()",
                        },
                    )
                ]
            ),
            text("Renamed greet to welcome in greet.py."),
        ],
    )


def test_delegated(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = rename_script()
    fake = fake_llm(roles)
    done = run_zen("-p", "rename greet() to welcome() everywhere", "--dual", *base_args(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "Renamed greet() to welcome()."
    assert "def welcome(name):" in (project / "greet.py").read_text()

    orch, coder = roles.requests["orchestrator"], roles.requests["coder"]
    assert {"write-file", "edit-file"} & tools_of(orch[0]) == set()
    assert tools_of(coder[0]) == {"read-file", "write-file", "edit-file", "memo"}
    assert prompt_size(coder[0], project) < 4000
    # The Coder starts fresh: its system prompt and one task message with the memo index.
    first = coder[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "rename greet to welcome [files] greet.py" in first[1]["content"]
    # plan:* notes come in full, so the Coder need not memo read them.
    assert (
        "[plan:rename]\ngreet(name) in greet.py becomes welcome(name); no other callers"
        in (first[1]["content"])
    )
    assert "rename greet() to welcome() everywhere" not in json.dumps(first)
    # The Orchestrator's read does not count for the Coder.
    refused = tool_results(coder[1])[0]
    assert "read" in refused.lower() and "before" in refused.lower()
    # The Coder's report, files and memo keys come back to the Orchestrator.
    report = tool_results(orch[3])[-1]
    assert "Renamed greet to welcome in greet.py." in report
    assert "greet.py" in report.split("files changed:")[1]
    assert "file:greet.py" in report
    # The user sees the Coder's memo summary.
    assert "memo file:greet.py — greeting now welcome()" in done.err


def test_autonomous_coder_can_search(fake_llm, run_zen, project: Path) -> None:
    roles = Roles(
        orchestrator=[tool_calls([call("send-to-coder", {"task": "add hello.py"})]), text("ok")],
        coder=[
            tool_calls([call("glob", {"pattern": "*.py"})]),
            tool_calls([call("write-file", {"path": "hello.py", "content": "print('hi')\n"})]),
            text("Created hello.py."),
        ],
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "add hello", "--dual", "--collab", "autonomous", *base_args(fake))
    assert done.code == 0, done.err
    assert tools_of(roles.requests["coder"][0]) >= {"glob", "grep", "bash", "todo", "edit-file"}
    assert prompt_size(roles.requests["coder"][0], project) < 4000
    assert (project / "hello.py").read_text() == "print('hi')\n"


def test_controlled_orchestrator_applies_the_code(fake_llm, run_zen, project: Path) -> None:
    roles = Roles(
        orchestrator=[
            tool_calls([call("send-to-coder", {"task": "write hello.py printing hi"})]),
            tool_calls([call("write-file", {"path": "hello.py", "content": "print('hi')\n"})]),
            text("hello.py written."),
        ],
        coder=[text("path: hello.py\n```python\nprint('hi')\n```\nPrints hi.")],
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "hello", "--dual", "--collab", "controlled", *base_args(fake))
    assert done.code == 0, done.err
    (coder,) = roles.requests["coder"]
    assert "tools" not in coder or coder["tools"] == []
    assert {"write-file", "edit-file"} <= tools_of(roles.requests["orchestrator"][0])
    assert "print('hi')" in tool_results(roles.requests["orchestrator"][1])[-1]
    assert (project / "hello.py").read_text() == "print('hi')\n"


def test_per_role_models_and_endpoints(fake_llm, run_zen, project: Path) -> None:
    coder_side = fake_llm([text("Nothing to change.")])
    orch_side = fake_llm([tool_calls([call("send-to-coder", {"task": "check"})]), text("ok")])
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text(
        "agent_mode: dual\n"
        "dual_agent:\n"
        f"  orchestrator: {{model: planner-model, base_url: '{orch_side.base_url}', api_key: a}}\n"
        f"  coder: {{model: cheap-coder, base_url: '{coder_side.base_url}', api_key: b}}\n"
    )
    done = run_zen(
        "-p",
        "go",
        "--output-format",
        "json",
        "--base-url",
        orch_side.base_url,
        "--api-key",
        "k",
        "--trust",
    )
    assert done.code == 0, done.err
    assert [r["model"] for r in orch_side.requests] == ["planner-model", "planner-model"]
    assert [r["model"] for r in coder_side.requests] == ["cheap-coder"]
    usage = json.loads(done.out)["usage"]
    assert usage["orchestrator"]["requests"] == 2 and usage["coder"]["requests"] == 1


def test_coder_turn_limit_is_an_error_result(fake_llm, run_zen, project: Path) -> None:
    (project / "a.txt").write_text("a\n")
    roles = Roles(
        orchestrator=[tool_calls([call("send-to-coder", {"task": "loop"})]), text("gave up")],
        coder=[
            tool_calls([call("read-file", {"path": "a.txt", "offset": n})]) for n in range(1, 4)
        ],
    )
    fake = fake_llm(roles)
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("coder_max_turns: 3\n")
    done = run_zen("-p", "go", "--dual", "--trust", *base_args(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "gave up"
    assert "turn limit (3)" in tool_results(roles.requests["orchestrator"][1])[-1]


def test_switching_modes_between_runs(fake_llm, run_zen) -> None:
    single = fake_llm([text("single")])
    assert run_zen("-p", "a", "--single", *base_args(single)).code == 0
    assert "send-to-coder" not in tools_of(single.requests[0])
    dual = fake_llm([text("dual")])
    assert run_zen("-p", "a", "--dual", *base_args(dual)).code == 0
    assert "send-to-coder" in tools_of(dual.requests[0])

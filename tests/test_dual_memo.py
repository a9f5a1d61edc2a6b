"""Dual mode end to end, what the roles share: the notes a Coder starts from, the memo keys
its run wrote, and the scouts' cheaper model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import Reply, call, text, tool_calls
from tests.test_dual import Roles, base_args, tool_results

pytestmark = pytest.mark.usefixtures("two_models")  # orchestrated paths: a Coder model


def note(key: str, content: str) -> Any:
    return call("memo", {"action": "write", "key": key, "content": content, "summary": key})


def test_coder_starts_from_the_notes_its_task_concerns(fake_llm, run_zen, project: Path) -> None:
    for name in ("a.py", "b.py", "c.py"):
        (project / name).write_text(f"# {name}\n")
    roles = Roles(
        orchestrator=[
            tool_calls([call("read-file", {"path": "c.py"})]),  # an auto-memo excerpt
            tool_calls(
                [
                    note("file:a.py", "A-NOTE: parse() at line 3"),
                    note("file:b.py", "B-NOTE: unrelated"),
                    note("plan:fix", "PLAN: rename parse to load"),
                ]
            ),
            tool_calls(
                [
                    call(
                        "send-to-coder",
                        {"task": "[goal] rename [files] a.py", "context": "see c.py too"},
                    )
                ]
            ),
            text("done"),
        ],
        coder=[text("Nothing needed.")],
    )
    fake = fake_llm(roles)
    assert run_zen("-p", "go", "--dual", *base_args(fake)).code == 0
    message = roles.requests["coder"][0]["messages"][1]["content"]
    notes, rest = message.split("Rest of the shared memo")
    assert "[file:a.py]\nA-NOTE: parse() at line 3" in notes
    assert "[plan:fix]\nPLAN: rename parse to load" in notes
    # Notes about other files, and raw excerpts of files read, stay one index line each.
    assert "B-NOTE" not in message and "file:b.py — file:b.py (orchestrator)" in rest
    assert "# c.py" not in message and "file:c.py — " in rest
    assert "file:a.py —" not in rest


def test_explore_sub_agents_run_on_the_scout_model(
    fake_llm, run_zen, home: Path, project: Path
) -> None:
    (project / "a.py").write_text("x = 1\n")

    def script(body: dict[str, Any]) -> Reply:
        done = any(m["role"] == "tool" for m in body["messages"])
        if body["model"] == "planner":
            if done:
                return text("ok")
            return tool_calls(
                [
                    call(
                        "spawn-agents",
                        {
                            "tasks": [
                                {"description": "look", "prompt": "read a.py"},
                                {"description": "fix", "prompt": "edit a.py", "type": "code"},
                            ]
                        },
                    )
                ]
            )
        return text("report")

    fake = fake_llm(script)
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(
        "dual_agent: {scout: {model: cheap-reader}, coder: {model: cheap-coder}}\n"
    )
    done = run_zen(
        "-p",
        "go",
        "--dual",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        "--model",
        "planner",
        "--yes",
    )
    assert done.code == 0, done.err
    by_model = sorted(r["model"] for r in fake.requests)
    assert by_model == ["cheap-coder", "cheap-reader", "planner", "planner"]
    explorer = next(r for r in fake.requests if r["model"] == "cheap-reader")
    assert "explorer sub-agent" in explorer["messages"][0]["content"]


def test_dual_with_cheap_scouts_costs_half_of_single() -> None:
    """dev/bench/tokens.py's goal on its mixed task: scouts and Coder at a quarter of the price."""
    import asyncio

    from dev.bench import tokens

    shape = tokens.SHAPES["mixed"]
    single = asyncio.run(tokens.run(shape, "single", scouts=False))
    dual = asyncio.run(tokens.run(shape, "delegated", scouts=True))
    assert set(dual) == {"orchestrator", "scout", "coder"}
    ratio = tokens.cost(dual, 0.1, 0.25) / tokens.cost(single, 0.1, 1.0)
    assert ratio <= 0.5, ratio


def test_memo_keys_are_the_ones_the_coders_run_wrote(fake_llm, run_zen, project: Path) -> None:
    """Memo entries record the run that wrote them: a second Coder that only reads app.py
    (its read refreshes the first Coder's `file:app.py` note) is not credited with the note."""
    (project / "app.py").write_text("print('app')\n")
    roles = Roles(
        orchestrator=[
            tool_calls([call("send-to-coder", {"task": "describe app.py"})]),
            tool_calls([call("send-to-coder", {"task": "check app.py again"})]),
            text("Both done."),
        ],
        coder=[
            tool_calls([call("read-file", {"path": "app.py"})]),
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "file:app.py",
                            "content": "prints app",
                            "summary": "prints app",
                        },
                    )
                ]
            ),
            text("Described app.py."),
            tool_calls([call("read-file", {"path": "app.py"})]),
            text("Checked app.py."),
        ],
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "look at app.py twice", "--dual", *base_args(fake))
    assert done.code == 0, done.err
    orch = roles.requests["orchestrator"]
    first, second = tool_results(orch[1])[-1], tool_results(orch[2])[-1]
    assert "Described app.py." in first and "memo keys written: file:app.py" in first
    assert "Checked app.py." in second and "memo keys written: none" in second

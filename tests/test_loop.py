"""The agent loop's contracts: call order, read-only concurrency and clean cancellation."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import call, text, tool_calls
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base.events import EventLog, ToolCallRunning
from zen.base.preamble import asked
from zen.settings.loading import load_config
from zen.tools.base import Approval, ApprovalRequest, refuse_all

pytestmark = pytest.mark.usefixtures("close_clients")


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


def session_for(fake, root: Path, **extra: Any) -> Session:
    config = load_config(root, {"base_url": fake.base_url, "api_key": "k", **extra}, env={})
    return closing(Session(config, make_workspace(config, root)))


async def test_results_come_back_in_call_order(fake_llm, tmp_path: Path) -> None:
    for name in "abc":
        (tmp_path / f"{name}.txt").write_text(name * 3 + "\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("read-file", {"path": "a.txt"}),
                    call("bash", {"command": "echo b"}),
                    call("read-file", {"path": "c.txt"}),
                ]
            ),
            text("done"),
        ]
    )
    result = await session_for(fake, tmp_path).run("go", EventLog(), yes)
    assert result.text == "done"
    tools = [m for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tools] == ["call_fake_1", "call_fake_2", "call_fake_3"]
    assert "aaa" in tools[0]["content"] and "b" in tools[1]["content"]
    assert "ccc" in tools[2]["content"]


async def test_cancelling_mid_tool_closes_every_call(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "sleep 30"}), call("glob", {"pattern": "*"})]),
            text("after the interruption"),
        ]
    )
    session = session_for(fake, tmp_path)
    log = EventLog()
    task = asyncio.create_task(session.run("go", log, yes))
    while not any(isinstance(e, ToolCallRunning) for e in log.events):
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.2)
    started = time.monotonic()
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    assert time.monotonic() - started < 5
    # The conversation stays valid: every tool call has its result, then a new task works.
    result = await session.run("next", EventLog(), yes)
    assert result.text == "after the interruption"
    messages = fake.requests[1]["messages"]
    calls = [c["id"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls", [])]
    answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    assert calls == answered == ["call_fake_1", "call_fake_2"]
    bash, glob = [m["content"] for m in messages if m["role"] == "tool"]
    assert "while running; it may have partly run" in bash
    assert "before it ran" in glob
    assert messages[-1] == {"role": "user", "content": "next"}


async def test_switching_modes_keeps_the_conversation_and_its_reads(
    fake_llm, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "a.txt"})]),
            text("read it"),
            tool_calls(
                [call("edit-file", {"path": "a.txt", "old_string": "one", "new_string": "two"})]
            ),
            text("edited"),
        ]
    )
    session = session_for(fake, tmp_path, dual_agent={"coder": {"model": "fake-coder"}})
    await session.run("read a.txt", EventLog(), yes)
    session.set_mode("dual")
    session.set_collaboration("controlled")  # the Orchestrator may edit in this mode
    result = await session.run("now change it", EventLog(), yes)
    assert result.text == "edited"
    assert (tmp_path / "a.txt").read_text() == "two\n"
    third = fake.requests[2]
    assert "send-to-coder" in {t["function"]["name"] for t in third["tools"]}
    assert [asked(m["content"]) for m in third["messages"] if m["role"] == "user"] == [
        "read a.txt",
        "now change it",
    ]
    session.clear()
    assert session.conversation.history == [] and not session.conversation.reads.seen


async def test_each_run_brings_its_own_context(fake_llm, tmp_path: Path) -> None:
    """Events, approvals and memo credit belong to the run that caused them: the agent keeps
    nothing of one run's context for the next, and its tool context cannot be rewired."""
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "echo one"})]),
            text("first"),
            tool_calls([call("bash", {"command": "echo two"})]),
            text("second"),
        ]
    )
    session = session_for(fake, tmp_path)
    first, second = EventLog(), EventLog()
    assert (await session.run("one", first, yes)).text == "first"
    assert (await session.run("two", second, refuse_all)).text == "second"
    ran = [e for e in first.events if isinstance(e, ToolCallRunning)]
    assert [e.args["command"] for e in ran] == ["echo one"]
    assert not any(isinstance(e, ToolCallRunning) and "one" in str(e.args) for e in second.events)
    refused = [m for m in fake.requests[3]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "one" in [m for m in fake.requests[1]["messages"] if m["role"] == "tool"][-1]["content"]
    assert "two" not in refused and "--yes" in refused  # the second run's approver said no
    agent = session.conversation.agent()
    with pytest.raises(dataclasses.FrozenInstanceError):
        agent.ctx.agent = "someone else"  # type: ignore[misc]

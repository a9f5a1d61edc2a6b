"""spawn-agents: sub-agents run side by side against the fake model server, in-process.

Each test drives a real Session (real ChatClient, real HTTP, real tools) whose fake model
answers differently for the main agent and for each sub-agent, told apart by their messages.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import Reply, call, status, text, tool_calls
from zen.agent.session import Session
from zen.agent.subagents import agent_names
from zen.base import events as ev
from zen.base.preamble import asked
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace

TURN = 0.3
"""Seconds the fake model takes for each sub-agent turn."""


class Approver:
    """Says `decision` to everything and remembers what it was asked."""

    def __init__(self, decision: str = "yes") -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval(self.decision)  # type: ignore[arg-type]


class Timed:
    """An Emit that keeps every event with the time it arrived."""

    def __init__(self) -> None:
        self.events: list[tuple[float, ev.Event]] = []

    def __call__(self, event: ev.Event) -> None:
        self.events.append((time.monotonic(), event))

    def of(self, kind: type[ev.Event]) -> list[Any]:
        return [e for _, e in self.events if isinstance(e, kind)]

    def call_seconds(self, name: str) -> float:
        start = next(
            t for t, e in self.events if isinstance(e, ev.ToolCallRunning) and e.name == name
        )
        end = next(
            t for t, e in self.events if isinstance(e, ev.ToolCallFinished) and e.name == name
        )
        return end - start


def config(fake: Any, **extra: Any) -> Config:
    return Config(model="fake-model", base_url=fake.base_url, api_key="test-key", **extra)


def spawn(*tasks: dict[str, str]) -> Reply:
    return tool_calls([call("spawn-agents", {"tasks": list(tasks)})])


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def last_call(body: dict[str, Any]) -> str:
    for message in reversed(body["messages"]):
        for c in message.get("tool_calls") or []:
            return c["function"]["name"]
    return ""


def is_main(body: dict[str, Any]) -> bool:
    """The top agent (zen or the Orchestrator), not a sub-agent."""
    return "sub-agent" not in body["messages"][0]["content"].split("\n", 1)[0]


def task_of(body: dict[str, Any]) -> str:
    """A sub-agent's first user message starts with its prompt: the test's task marker."""
    return asked(body["messages"][1]["content"]).split("\n", 1)[0]


def script(main: list[Reply], sub: Callable[[dict[str, Any]], Reply]) -> Callable[..., Reply]:
    """The main agent's replies in order; sub-agents' replies from `sub`."""
    main = list(main)
    lock = threading.Lock()

    def reply(body: dict[str, Any]) -> Reply:
        if is_main(body):
            with lock:
                return main.pop(0)
        return sub(body)

    return reply


def explorer(body: dict[str, Any]) -> Reply:
    """One slow tool turn (read notes.txt), then one slow answer naming its task."""
    if not tool_results(body):
        return tool_calls([call("read-file", {"path": "notes.txt"})], delay=TURN)
    return text(f"report for {task_of(body)}: notes.txt has 2 lines", delay=TURN)


def explore(n: int) -> list[dict[str, str]]:
    return [{"description": f"look {i}", "prompt": f"task-{i}"} for i in range(1, n + 1)]


async def spawn_explorers(fake_llm: Any, project: Path, n: int) -> tuple[float, Timed, Any]:
    fake = fake_llm(script([spawn(*explore(n)), text("all done")], explorer))
    session = Session(config(fake), Workspace(project))
    log = Timed()
    result = await session.run("survey the notes", log, Approver())
    assert result.text == "all done"
    return log.call_seconds("spawn-agents"), log, fake


@pytest.fixture
def notes(project: Path) -> Path:
    (project / "notes.txt").write_text("first\nsecond\n")
    return project


async def test_three_explorers_take_the_time_of_one(fake_llm, notes: Path) -> None:
    one, _, _ = await spawn_explorers(fake_llm, notes, 1)
    three, log, fake = await spawn_explorers(fake_llm, notes, 3)
    assert one >= 2 * TURN
    assert three < 2 * one, f"3 explorers took {three:.2f}s, one took {one:.2f}s"

    # every sub-agent started fresh: its own system prompt and only its task, no main history
    subs = [b for b in fake.requests if not is_main(b)]
    assert len(subs) == 6
    for body in subs:
        assert body["messages"][0]["content"].startswith("You are an explorer sub-agent")
        assert "survey the notes" not in str(body["messages"])
        names = {t["function"]["name"] for t in body["tools"]}
        assert names == {"read-file", "glob", "grep", "memo"}

    # the report lists each sub-agent in task order
    (report,) = tool_results(fake.requests[-1])
    positions = [report.index(f"## {i}. look {i} (explore): done") for i in (1, 2, 3)]
    assert positions == sorted(positions)
    for i in (1, 2, 3):
        assert f"report for task-{i}: notes.txt has 2 lines" in report

    # events carry the sub-agent's name, so front-ends can nest them
    reads = [e for e in log.of(ev.ToolCallFinished) if e.name == "read-file"]
    assert sorted(e.agent for e in reads) == ["sub:look 1", "sub:look 2", "sub:look 3"]
    turns = {e.agent for e in log.of(ev.TurnStarted)}
    assert turns == {"main", "sub:look 1", "sub:look 2", "sub:look 3"}


async def test_parallel_agents_max_bounds_concurrency(fake_llm, notes: Path) -> None:
    fake = fake_llm(script([spawn(*explore(3)), text("all done")], explorer))
    session = Session(config(fake, parallel_agents_max=1), Workspace(notes))
    log = Timed()
    await session.run("survey the notes", log, Approver())
    assert log.call_seconds("spawn-agents") >= 3 * 2 * TURN
    # one at a time: each sub-agent finished before the next began
    order = [e.agent for e in log.of(ev.TurnStarted) if e.agent != "main"]
    assert order == ["sub:look 1"] * 2 + ["sub:look 2"] * 2 + ["sub:look 3"] * 2


async def test_spawn_needs_confirmation(fake_llm, notes: Path) -> None:
    fake = fake_llm(script([spawn(*explore(2)), text("could not")], explorer))
    session = Session(config(fake), Workspace(notes))
    approver = Approver("no")
    await session.run("survey", ev.ignore, approver)
    assert [a.tool for a in approver.asked] == ["spawn-agents"]
    assert "explore: look 1\nexplore: look 2" in approver.asked[0].preview
    assert all(is_main(b) for b in fake.requests)
    assert "declined" in tool_results(fake.requests[-1])[0]


ORIGINAL = 'def alpha():\n    return "alpha"\n\n\ndef beta():\n    return "beta"\n'
EDITS = {
    "edit alpha": ('    return "alpha"\n', '    return "ALPHA, edited by the first agent"\n'),
    "edit beta": ('    return "beta"\n', '    return "BETA"\n'),
}


async def test_two_coders_on_one_file_lose_no_change(fake_llm, project: Path) -> None:
    """Both read the file, then both edit it: the second edit is refused as stale, that agent
    reads again and redoes its edit, and the file ends with both changes."""
    (project / "shared.py").write_text(ORIGINAL)
    both_read = threading.Barrier(2)
    first_edit: set[str] = set()
    lock = threading.Lock()

    def coder(body: dict[str, Any]) -> Reply:
        task = task_of(body)
        results = tool_results(body)
        if not results or "changed on disk" in results[-1]:
            return tool_calls([call("read-file", {"path": "shared.py"})], delay=0.05)
        if last_call(body) == "read-file":
            with lock:
                first = task not in first_edit
                first_edit.add(task)
            if first:
                both_read.wait(timeout=10)
            old, new = EDITS[task]
            return tool_calls(
                [
                    call(
                        "edit-file",
                        {
                            "path": "shared.py",
                            "old_string": old,
                            "new_string": new,
                        },
                    )
                ]
            )
        return text(f"{task}: done")

    tasks = [{"description": d, "prompt": d, "type": "code"} for d in EDITS]
    fake = fake_llm(script([spawn(*tasks), text("both edited")], coder))
    session = Session(config(fake), Workspace(project))
    log = Timed()
    await session.run("edit both functions", log, Approver())

    final = (project / "shared.py").read_text()
    expected = ORIGINAL
    for old, new in EDITS.values():
        expected = expected.replace(old, new)
    assert final == expected
    refusals = [e for e in log.of(ev.ToolCallFinished) if e.name == "edit-file" and not e.ok]
    assert len(refusals) == 1 and "changed on disk since you read it" in refusals[0].output
    (report,) = tool_results(fake.requests[-1])
    assert "(code): done" in report and "FAILED" not in report
    assert report.count("files changed: shared.py") == 2
    code_tools = {t["function"]["name"] for t in fake.requests[1]["tools"]}
    assert code_tools == {"read-file", "write-file", "edit-file", "memo"}


async def test_a_failing_sub_agent_does_not_sink_the_others(fake_llm, notes: Path) -> None:
    def sub(body: dict[str, Any]) -> Reply:
        task = task_of(body)
        if task == "task-2":
            return status(401)
        if task == "task-3":  # never stops reading: hits its turn limit
            offset = len(tool_results(body)) + 1
            return tool_calls([call("read-file", {"path": "notes.txt", "offset": offset})])
        return explorer(body)

    fake = fake_llm(script([spawn(*explore(4)), text("partial results")], sub))
    session = Session(config(fake, coder_max_turns=2), Workspace(notes))
    log = Timed()
    result = await session.run("survey", log, Approver())
    assert result.text == "partial results"

    (report,) = tool_results(fake.requests[-1])
    assert "## 1. look 1 (explore): done" in report
    assert "## 2. look 2 (explore): FAILED" in report
    assert "## 3. look 3 (explore): FAILED\nHit its turn limit (2)" in report
    assert "## 4. look 4 (explore): done" in report
    assert "report for task-1" in report and "report for task-4" in report
    spawned = next(e for e in log.of(ev.ToolCallFinished) if e.name == "spawn-agents")
    assert spawned.ok and spawned.summary == "2 done, 2 failed"
    warnings = [e for e in log.of(ev.Notice) if e.agent == "sub:look 2"]
    assert len(warnings) == 1 and "sub-agent failed" in warnings[0].text


async def test_a_sub_agent_that_cannot_start_is_a_failed_report(fake_llm, notes: Path) -> None:
    """A code sub-agent in dual mode uses the Coder's model; with no key for it, it cannot be
    built. That is its failure alone: the explorer beside it still reports."""
    fake = fake_llm(
        script(
            [
                spawn(
                    {"description": "fix", "prompt": "task-1", "type": "code"},
                    {"description": "look", "prompt": "task-2"},
                ),
                text("one of two"),
            ],
            explorer,
        )
    )
    settings = config(fake, agent_mode="dual", triage="large").model_dump()
    settings["dual_agent"] = {"coder": {"provider": "deepseek"}}  # and no DEEPSEEK_API_KEY
    session = Session(Config.model_validate(settings), Workspace(notes))
    result = await session.run("go", Timed(), Approver())
    assert result.text == "one of two"
    (report,) = tool_results(fake.requests[-1])
    assert "## 1. fix (code): FAILED" in report and "no API key" in report
    assert "## 2. look (explore): done" in report


async def test_cancelling_the_run_stops_every_sub_agent(fake_llm, notes: Path) -> None:
    fake = fake_llm(script([spawn(*explore(3))], lambda body: text("late", delay=5)))
    session = Session(config(fake), Workspace(notes))
    log = Timed()
    run = asyncio.ensure_future(session.run("survey", log, Approver()))
    while sum(not is_main(b) for b in fake.requests) < 3:
        await asyncio.sleep(0.02)
    started = time.monotonic()
    run.cancel()
    with pytest.raises(asyncio.CancelledError):
        await run
    assert time.monotonic() - started < 1.0
    assert not [e for e in log.of(ev.ToolCallFinished) if e.agent.startswith("sub:")]


async def test_feature_off_hides_the_tool(fake_llm, notes: Path) -> None:
    fake = fake_llm([text("hi"), text("hi")])
    on = Session(config(fake), Workspace(notes))
    await on.run("hi", ev.ignore)
    off = Session(config(fake, features={"parallel_agents": "off"}), Workspace(notes))
    await off.run("hi", ev.ignore)
    names = [{t["function"]["name"] for t in b["tools"]} for b in fake.requests]
    assert "spawn-agents" in names[0] and "spawn-agents" not in names[1]


async def test_orchestrator_holds_the_tool_in_dual_mode(fake_llm, notes: Path) -> None:
    scout, planner = explore(2)
    fake = fake_llm(script([spawn(scout, {**planner, "type": "plan"}), text("scouted")], explorer))
    session = Session(config(fake, agent_mode="dual", triage="large"), Workspace(notes))
    log = Timed()
    result = await session.run("scout", log, Approver())
    assert result.text == "scouted"
    assert "spawn-agents" in {t["function"]["name"] for t in fake.requests[0]["tools"]}
    reads = {e.agent for e in log.of(ev.ToolCallFinished) if e.name == "read-file"}
    assert reads == {"sub:look 1", "sub:look 2"}
    prompts = {task_of(b): b["messages"][0]["content"] for b in fake.requests if not is_main(b)}
    assert prompts["task-1"].startswith("You are an explorer sub-agent")
    assert prompts["task-2"].startswith("You are a planning sub-agent")
    assert "## 2. look 2 (plan): done" in tool_results(fake.requests[-1])[0]


def test_sub_agent_names_are_unique_and_never_empty() -> None:
    assert agent_names(["scan  the\nparser", "scan the parser", "", "lexer"]) == [
        "sub:scan the parser",
        "sub:scan the parser #2",
        "sub:task 3",
        "sub:lexer",
    ]


async def test_each_sub_agent_is_saved_under_the_call(
    fake_llm, notes: Path, tmp_path: Path
) -> None:
    from zen.stores.sessions import SessionStore
    from zen.ui.sessions_cmd import show_lines

    fake = fake_llm(script([spawn(*explore(2)), text("all done")], explorer))
    store = SessionStore(tmp_path / "sessions.db")
    session = Session(config(fake), Workspace(notes), store=store)
    await session.run("survey the notes", Timed(), Approver())
    assert session.record.id is not None
    (spawned,) = [c for m in store.messages(session.record.id) for c in m.get("tool_calls") or []]
    subs = store.children(session.record.id)
    assert sorted(s.agent for s in subs) == ["sub:look 1", "sub:look 2"]
    assert {s.parent_call for s in subs} == {spawned["id"]}
    for sub in subs:
        roles = [m["role"] for m in store.messages(sub.id)]
        assert roles == ["user", "assistant", "tool", "assistant"]
    shown = "\n".join(show_lines(store, store.info(session.record.id)))
    assert "[sub:look 1]" in shown and "[sub:look 2]" in shown
    assert "report for task-1" in shown and "report for task-2" in shown
    await session.aclose()

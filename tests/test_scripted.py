"""The loop, compaction, triage and the protocols on the in-process scripted model
(`tests/fakes/scripted.py`): the whole session above the client, no sockets, no subprocess.

End-to-end versions of these run `zen -p` against the HTTP fake (test_loop, test_compaction,
test_triage, test_text_protocol); these pin the same behaviour at unit speed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.scripted import ScriptedModel, ScriptExhausted
from tests.fakes.server import Reply, call, status, text, tool_calls
from tests.test_compaction import FIRST, WINDOW, assert_tool_pairs_intact, is_summary, run_all
from tests.test_compaction import scripted as compaction_script
from tests.test_compaction import state as summary_of
from tests.test_text_protocol import CALC, EDIT
from tests.test_triage import CODER_DONE, GREET, Roles
from zen.agent.protocols.base import CUT_CALL
from zen.agent.session import Session
from zen.base import events as ev
from zen.base.preamble import asked
from zen.settings.loading import load_config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


CODER_MODEL = {"coder": {"model": "m2"}}
"""Dual mode's orchestrated paths need a Coder model of its own (one model starts direct)."""


def session_on(model: ScriptedModel, root: Path, **settings: Any) -> Session:
    config = load_config(root, {"model": "m", "api_key": "k", **settings}, env={})
    return Session(config, Workspace(root), connect=model.connect)


def tool_results(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["messages"] if m["role"] == "tool"]


# -- the loop --------------------------------------------------------------------------------


async def test_a_turn_runs_its_calls_and_answers_them_in_order(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaa\n")
    model = ScriptedModel(
        [
            tool_calls([call("read-file", {"path": "a.txt"}), call("bash", {"command": "echo b"})]),
            text("done"),
        ]
    )
    log = ev.EventLog()
    result = await session_on(model, tmp_path).run("go", log, yes)
    assert (result.text, result.turns) == ("done", 2)
    first, second = tool_results(model.requests[1])
    assert "aaa" in first and "b" in second
    finished = [e.name for e in log.events if isinstance(e, ev.ToolCallFinished)]
    assert finished == ["read-file", "bash"]


async def test_a_call_cut_at_max_tokens_is_answered_never_run(tmp_path: Path) -> None:
    cut = tool_calls([call("write-file", {"path": "x.py", "content": "x"})], finish_reason="length")
    model = ScriptedModel([cut, text("smaller steps"), text("smaller then")])  # then the nudge's
    result = await session_on(model, tmp_path).run("write x.py", ev.ignore, yes)
    assert result.text == "smaller then"
    assert tool_results(model.requests[1]) == [CUT_CALL]
    assert not (tmp_path / "x.py").exists()


async def test_cancelled_mid_answer_the_text_so_far_stays(tmp_path: Path) -> None:
    gate = asyncio.Event()

    def script(body: dict[str, Any]) -> Reply:
        if len(body["messages"]) > 3:
            return text("after")
        return text("a long answer " * 50, chunk=3)

    model = ScriptedModel(script)
    session = session_on(model, tmp_path)

    def emit(event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta) and not gate.is_set():
            gate.set()
            asyncio.current_task().cancel()  # type: ignore[union-attr]

    with pytest.raises(asyncio.CancelledError):
        await session.run("tell me", emit)
    assert session.conversation.history[-1]["content"].endswith("[interrupted by the user]")
    assert (await session.run("go on", ev.ignore)).text == "after"


async def test_a_script_run_out_fails_loudly(tmp_path: Path) -> None:
    model = ScriptedModel([tool_calls([call("glob", {"pattern": "*"})])])
    with pytest.raises(ScriptExhausted):
        await session_on(model, tmp_path).run("go", ev.ignore)


# -- compaction -------------------------------------------------------------------------------


async def test_a_full_window_compacts_into_the_memo(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("data line of the big file\n" * 500)
    model = ScriptedModel(compaction_script(summary_of(f"Add a --verbose flag.\n- {FIRST}")))
    session = session_on(model, tmp_path, context_window=WINDOW)
    log = ev.EventLog()
    await run_all(session, log)
    assert len([r for r in model.requests if is_summary(r)]) == 1
    assert [e.memo_keys for e in log.events if isinstance(e, ev.Compacted)] == [6]
    assert session.memo.read("task:next") is not None
    for request in model.requests:
        assert_tool_pairs_intact(request)


async def test_an_overflow_compacts_and_sends_again(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("data line of the big file\n" * 500)
    overflow = status(
        400, message="maximum context length exceeded", code="context_length_exceeded"
    )
    model = ScriptedModel(
        [
            tool_calls([call("read-file", {"path": "big.txt"})]),
            overflow,
            text(summary_of(FIRST)),
            text("compacted"),
            text("done after compacting"),  # the answer to the nudge: FIRST asks for a change
        ]
    )
    session = session_on(model, tmp_path, context_window=100_000)
    result = await session.run(FIRST, ev.ignore)
    assert result.text == "done after compacting"
    assert is_summary(model.requests[2])
    assert len(model.requests[3]["messages"]) < len(model.requests[1]["messages"])


# -- triage -------------------------------------------------------------------------------------


async def test_the_small_path_opens_the_run_with_its_call(tmp_path: Path) -> None:
    (tmp_path / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[], coder=list(CODER_DONE))
    model = ScriptedModel(roles)
    session = session_on(model, tmp_path, agent_mode="dual", dual_agent=CODER_MODEL)
    result = await session.run("rename greet to welcome in greet.py", ev.ignore, yes)
    assert result.text == "Renamed greet to welcome in greet.py."
    assert roles.order == ["coder"] * 3  # no Orchestrator request
    assert "def welcome(" in (tmp_path / "greet.py").read_text()
    assert session.triage is not None and not session.triage.escalated
    opened = session.conversation.history
    assert [m["role"] for m in opened] == ["user", "assistant", "tool", "assistant"]
    assert opened[1]["tool_calls"][0]["function"]["name"] == "send-to-coder"


async def test_the_small_path_escalates_when_the_coder_does_not_finish(tmp_path: Path) -> None:
    (tmp_path / "greet.py").write_text(GREET)
    roles = Roles(
        orchestrator=[text("I will plan it."), text("Planned.")],  # each nudged once
        coder=[text("I could not."), text("I still could not.")],
    )
    model = ScriptedModel(roles)
    session = session_on(model, tmp_path, agent_mode="dual", dual_agent=CODER_MODEL)
    log = ev.EventLog()
    result = await session.run("rename greet to welcome in greet.py", log, yes)
    assert result.text == "Planned."
    assert roles.order == ["coder", "coder", "orchestrator", "orchestrator"]
    assert session.triage is not None and session.triage.escalated
    assert [e.escalated for e in log.events if isinstance(e, ev.Triaged)] == [False, True]
    assert "I still could not." in tool_results(roles.requests["orchestrator"][0])[0]


# -- the protocols ------------------------------------------------------------------------------


async def test_edit_blocks_are_applied_and_their_results_are_the_next_message(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    model = ScriptedModel([text(EDIT), text("Done.")])
    session = session_on(model, tmp_path, tool_protocol="text")
    result = await session.run("In calc.py, make add subtract.", ev.ignore, yes)
    assert result.text == "Done."
    assert model.requests[0]["tools"] == []
    assert "return a - b" in (tmp_path / "calc.py").read_text()
    results = model.requests[1]["messages"][-1]
    assert results["role"] == "user" and results["content"].startswith("[zen] results")


async def test_calls_written_as_text_run_as_calls(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("aaa\n")
    written = '<tool_call>\n{"name": "read-file", "arguments": {"path": "a.txt"}}\n</tool_call>'
    model = ScriptedModel([text(written), text("read it")])
    log = ev.EventLog()
    result = await session_on(model, tmp_path).run("read a.txt", log, yes)
    assert result.text == "read it"
    assert "aaa" in tool_results(model.requests[1])[0]
    (finished,) = [e for e in log.events if isinstance(e, ev.ToolCallFinished)]
    assert finished.origin == "text"
    assert [asked(m["content"]) for m in model.requests[1]["messages"] if m["role"] == "user"] == [
        "read a.txt"
    ]


async def test_auto_switches_once_to_edit_blocks(tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    prose_code = "Change it like this:\n```python\ndef add(a, b):\n    return a - b\n```"
    model = ScriptedModel([text(prose_code), text(EDIT), text("Done.")])
    session = session_on(model, tmp_path, tool_protocol="auto")
    log = ev.EventLog()
    result = await session.run("make add in calc.py subtract", log, yes)
    assert result.text == "Done."
    first, second, third = model.requests
    assert first["tools"] and second["tools"] == [] and third["tools"] == []
    assert "You have no tools" not in first["messages"][0]["content"]
    assert "You have no tools" in second["messages"][0]["content"]
    assert second["messages"][-1]["content"].startswith("[zen] ")  # the task again, with files
    assert "return a - b" in (tmp_path / "calc.py").read_text()
    switched = [e for e in log.events if isinstance(e, ev.Notice) and "switching" in e.text]
    assert len(switched) == 1


async def test_a_protocol_per_role_an_edit_block_coder_under_a_native_orchestrator(
    tmp_path: Path,
) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    task = {"task": "[goal] make add subtract [files] calc.py"}
    roles = Roles(
        orchestrator=[tool_calls([call("send-to-coder", task)]), text("The Coder did it.")],
        coder=[text(EDIT), text("Changed add().")],
    )
    model = ScriptedModel(roles)
    session = session_on(
        model,
        tmp_path,
        agent_mode="dual",
        triage="large",
        dual_agent={"coder": {"tool_protocol": "text"}},
    )
    result = await session.run("make add subtract", ev.ignore, yes)
    assert result.text == "The Coder did it."
    assert roles.order == ["orchestrator", "coder", "coder", "orchestrator"]
    assert all(r["tools"] == [] for r in roles.requests["coder"])
    assert all(r["tools"] for r in roles.requests["orchestrator"])
    assert "return a - b" in (tmp_path / "calc.py").read_text()

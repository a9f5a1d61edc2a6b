"""Compaction against the fake server reporting a small window: the threshold, the memo, the
user's words kept, tool pairs intact, the append-only prefix after it, a 400 context-length
reply (what summaries must keep, and the dual roles': test_compaction_summary.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import Reply, call, status, text, tool_calls
from zen.agent.context import RESTART_HEADER
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base import events as ev
from zen.base.preamble import asked
from zen.settings.loading import load_config

pytestmark = pytest.mark.usefixtures("close_clients")


WINDOW = 4000
CONSTRAINT = "Never change the signature of parse(), other modules call it."
FIRST = f"Add a --verbose flag to cli.py. {CONSTRAINT}"
COMPACT_ASK = "The conversation is about to be compacted"


def session_for(fake: Any, root: Path, **extra: Any) -> Session:
    config = load_config(root, {"base_url": fake.base_url, "api_key": "k", **extra}, env={})
    return closing(Session(config, make_workspace(config, root)))


def is_summary(body: dict[str, Any]) -> bool:
    last = body["messages"][-1]
    return last["role"] == "user" and str(last["content"]).startswith(COMPACT_ASK)


def state(constraints: str) -> str:
    return (
        "## task:goal\nAdd a --verbose flag to cli.py.\n"
        f"## task:constraints\n- {constraints}\n"
        "## task:decisions\nUse argparse's store_true.\n"
        "## task:done\nRead big.txt.\n"
        "## task:next\nEdit cli.py.\n"
        "## file:big.txt\nA large data file.\nNothing to change in it.\n"
    )


def request_tokens(body: dict[str, Any]) -> int:
    """The request as a server would roughly count it (its JSON / 4): errs high."""
    return len(json.dumps(body["messages"]) + json.dumps(body.get("tools", []))) // 4


def assert_tool_pairs_intact(body: dict[str, Any]) -> None:
    open_calls: list[str] = []
    for message in body["messages"]:
        if message["role"] == "tool":
            assert message["tool_call_id"] in open_calls, "a result without its call"
            open_calls.remove(message["tool_call_id"])
        else:
            assert not open_calls, "a call without its result"
            open_calls = [c["id"] for c in message.get("tool_calls") or ()]
    assert not open_calls


def restart_message(body: dict[str, Any]) -> str:
    found = [
        asked(m["content"])
        for m in body["messages"]
        if m["role"] == "user" and asked(str(m["content"])).startswith(RESTART_HEADER)
    ]
    assert len(found) == 1
    return found[0]


def scripted(summary: str) -> Any:
    """Three small runs (the first, a change not made yet, is nudged once), then a big read;
    the summary request answers `summary`."""
    replies = iter(
        [
            text("noted", usage="estimate"),
            text("noted: the change comes after reading", usage="estimate"),  # the nudge's
            text("ok", usage="estimate"),
            text("fine", usage="estimate"),
            tool_calls([call("read-file", {"path": "big.txt"})], usage="estimate"),
            text("read it: the flag goes in main()", usage="estimate"),
        ]
    )

    def reply(body: dict[str, Any]) -> Reply:
        if is_summary(body):
            return text(summary, usage="estimate")
        return next(replies)

    return reply


async def run_all(session: Session, log: ev.EventLog) -> None:
    for message in (
        FIRST,
        "Keep the help text short.",
        "Use tabs in cli.py.",
        "Now look at big.txt first.",
    ):
        await session.run(message, log)


async def test_threshold_compacts_into_the_memo(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("data line of the big file\n" * 500)
    every_instruction = f"Add a --verbose flag to cli.py.\n- {CONSTRAINT}"
    fake = fake_llm(scripted(state(every_instruction)), context_window=WINDOW)
    session = session_for(fake, tmp_path)
    log = ev.EventLog()
    await run_all(session, log)

    summaries = [r for r in fake.requests if is_summary(r)]
    assert len(summaries) == 1
    after = fake.requests[fake.requests.index(summaries[0]) + 1]
    assert request_tokens(after) < WINDOW * 0.8
    note = restart_message(after)
    assert CONSTRAINT in note
    assert "continue" in note and "compacted" in note
    # the same system prompt (the cached prefix); the run's facts open the restart message again
    assert after["messages"][0] == fake.requests[0]["messages"][0]
    assert after["messages"][1]["content"].startswith("<context>\nEnvironment: ")
    assert "Now look at big.txt first." in note  # the newest user messages, verbatim
    # the first message is represented in task:constraints, so it is not kept whole
    assert f"<user-message>\n{FIRST}" not in note
    for body in fake.requests:
        assert_tool_pairs_intact(body)
    # the memo holds the state under the fixed keys
    memo = session.memo
    assert memo.read("task:constraints") is not None
    assert CONSTRAINT in memo.read("task:constraints").content  # type: ignore[union-attr]
    assert memo.read("task:next") is not None and memo.read("file:big.txt") is not None
    # the project instructions were re-read and one log line was emitted
    compacted = [e for e in log.events if isinstance(e, ev.Compacted)]
    assert len(compacted) == 1
    assert compacted[0].after < compacted[0].before
    assert compacted[0].line.startswith("compacted: ") and "memo: 6 keys" in compacted[0].line


async def test_a_paraphrased_constraint_keeps_the_message(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("data line of the big file\n" * 500)
    fake = fake_llm(scripted(state("Keep parse() as it is.")), context_window=WINDOW)
    session = session_for(fake, tmp_path)
    await run_all(session, ev.EventLog())
    after = fake.requests[next(i for i, r in enumerate(fake.requests) if is_summary(r)) + 1]
    note = restart_message(after)
    assert f"<user-message>\n{FIRST}\n</user-message>" in note


async def test_after_compaction_requests_are_append_only_again(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("data line of the big file\n" * 500)
    (tmp_path / "small.txt").write_text("small\n")
    replies = iter(
        [
            tool_calls([call("read-file", {"path": "big.txt"})], usage="estimate"),
            tool_calls([call("read-file", {"path": "small.txt"})], usage="estimate"),
            tool_calls([call("glob", {"pattern": "*.txt"})], usage="estimate"),
            text("done", usage="estimate"),
            text("done: nothing to change", usage="estimate"),  # the nudge appends too
        ]
    )

    def reply(body: dict[str, Any]) -> Reply:
        return text(state(FIRST), usage="estimate") if is_summary(body) else next(replies)

    fake = fake_llm(reply, context_window=WINDOW)
    session = session_for(fake, tmp_path)
    await session.run(FIRST + " " + "Some background. " * 60, ev.EventLog())
    index = next(i for i, r in enumerate(fake.requests) if is_summary(r))
    later = fake.requests[index + 1 :]
    assert len(later) >= 2
    for before, after in zip(later, later[1:], strict=False):
        dumped = [json.dumps(m, sort_keys=True) for m in before["messages"]]
        assert [json.dumps(m, sort_keys=True) for m in after["messages"][: len(dumped)]] == dumped
        assert json.dumps(after["tools"]) == json.dumps(before["tools"])


async def test_context_length_error_compacts_and_retries(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("alpha line of the file\n" * 400)
    overflow = status(
        400,
        message="This model's maximum context length is 4096 tokens. "
        "However, your messages resulted in 5000 tokens.",
        code="context_length_exceeded",
    )
    replies = iter(
        [
            tool_calls([call("read-file", {"path": "a.txt"})], usage="estimate"),
            text("read", usage="estimate"),
            text("read, nothing to change yet", usage="estimate"),  # after the nudge
            overflow,
            text("done after compacting", usage="estimate"),
        ]
    )

    def reply(body: dict[str, Any]) -> Reply:
        return text(state(CONSTRAINT)) if is_summary(body) else next(replies)

    fake = fake_llm(reply)
    session = session_for(fake, tmp_path)
    log = ev.EventLog()
    await session.run(FIRST, log)
    result = await session.run("and now the tests", log)
    assert result.text == "done after compacting"
    assert [is_summary(r) for r in fake.requests] == [False] * 4 + [True, False]
    retried = fake.requests[-1]
    note = restart_message(retried)
    assert CONSTRAINT in note and "and now the tests" in note
    assert_tool_pairs_intact(retried)
    assert [e.reason for e in log.events if isinstance(e, ev.Compacted)] == ["overflow"]
    # the window is learned from the refusal, so the threshold now acts before the server does
    window = (await session.conversation.context_split()).window
    assert window.source == "overflow" and 4000 < window.tokens < 128_000


async def test_a_second_overflow_ends_the_run(fake_llm, tmp_path: Path) -> None:
    from zen.llm.errors import ContextLengthError

    overflow = status(400, message="prompt is too long", code="context_length_exceeded")

    def reply(body: dict[str, Any]) -> Reply:
        return text(state(CONSTRAINT)) if is_summary(body) else overflow

    fake = fake_llm(reply)
    session = session_for(fake, tmp_path)
    with pytest.raises(ContextLengthError):
        await session.run(FIRST, ev.EventLog())
    assert sum(is_summary(r) for r in fake.requests) == 1
    assert len(fake.requests) == 3  # the request, the summary, one retry


async def test_pruning_old_tool_outputs_is_tried_first(fake_llm, tmp_path: Path) -> None:
    for name in ("one", "two", "three"):
        (tmp_path / f"{name}.txt").write_text(f"{name} line of data\n" * 400)
    replies = iter(
        [
            tool_calls([call("read-file", {"path": "one.txt"})], usage="estimate"),
            tool_calls([call("read-file", {"path": "two.txt"})], usage="estimate"),
            tool_calls([call("read-file", {"path": "three.txt"})], usage="estimate"),
            text("read them all", usage="estimate"),
        ]
    )
    fake = fake_llm(lambda body: next(replies), context_window=10_000)
    session = session_for(fake, tmp_path)
    log = ev.EventLog()
    await session.run("read the three files", log)
    compacted = [e for e in log.events if isinstance(e, ev.Compacted)]
    assert len(compacted) == 1 and compacted[0].memo_keys == 0
    assert "old tool outputs dropped" in compacted[0].line
    last = fake.requests[-1]
    outputs = [m["content"] for m in last["messages"] if m["role"] == "tool"]
    assert outputs[0].startswith("[output of read-file one.txt, ")
    assert outputs[0].endswith(" chars, dropped]")
    assert "three line of data" in outputs[-1]  # the newest output stays
    assert_tool_pairs_intact(last)
    assert not any(is_summary(r) for r in fake.requests)


async def test_manual_compact_keeps_roles_alternating(fake_llm, tmp_path: Path) -> None:
    replies = iter([text("noted"), text("noted: nothing to change yet"), text("next answer")])

    def reply(body: dict[str, Any]) -> Reply:
        return text(state(CONSTRAINT)) if is_summary(body) else next(replies)

    fake = fake_llm(reply)
    session = session_for(fake, tmp_path)
    log = ev.EventLog()
    assert await session.compact(log) is None  # nothing yet
    await session.run(FIRST, log)
    event = await session.compact(log, "the flag's name")
    assert event is not None and event.reason == "manual"
    assert "the flag's name" in fake.requests[2]["messages"][-1]["content"]
    await session.run("go on", log)
    roles = [m["role"] for m in fake.requests[-1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]

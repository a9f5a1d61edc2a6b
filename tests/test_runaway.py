"""Runaway output: the cap on the wire, repetition stopped mid-stream and across turns, and
legitimately repetitive output left alone."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import call, endless, text, tool_calls
from zen.agent.runaway import STREAM_NOTE
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base import events as ev
from zen.llm.repetition import MIN_SPAN, repeated_tail
from zen.llm.request import output_cap
from zen.settings.loading import load_config
from zen.settings.providers import LOCAL_MAX_TOKENS
from zen.settings.schema import ModelSettings
from zen.tools.base import Approval, ApprovalRequest

pytestmark = pytest.mark.usefixtures("close_clients")

LOOP = "I will fix the test now and run it again.\n"


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


def session_for(fake: Any, root: Path, **config: Any) -> Session:
    settings = {"base_url": fake.base_url, "api_key": "k", **config}
    loaded = load_config(root, settings, env={})
    return closing(Session(loaded, make_workspace(loaded, root)))


def hung_up(fake: Any, n: int = 1) -> bool:
    """The fake saw `n` streams the client hung up on (its next write fails: poll a little)."""
    ends = time.monotonic() + 10
    while fake.aborted < n and time.monotonic() < ends:
        time.sleep(0.02)
    return fake.aborted == n


def table(rows: int) -> str:
    lines = ["| # | name | status |", "|---|---|---|"]
    lines += [f"| {i} | test_case_{i % 7} | passed |" for i in range(rows)]
    return "\n".join(lines) + "\n"


# -- the detector --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "unit", ["a", "ok ", LOOP, "\n", "".join(f"line {i}\n" for i in range(300))]
)
def test_a_tail_repeating_one_piece_is_found(unit: str) -> None:
    before = "Here is my plan.\n"
    copies = max(10, MIN_SPAN // len(unit) + 1)
    found = repeated_tail(before + unit * copies + unit[: len(unit) // 2], 10)
    assert found is not None
    start, period = found
    assert period == len(unit) and start <= len(before) + len(unit)


@pytest.mark.parametrize(
    "legit",
    [
        table(400),
        "".join(f"    assert parse({i}) == {i * 2}\n" for i in range(300)),
        "-" * (MIN_SPAN - 1),
        LOOP * 9,  # nine copies: under the limit of ten
        "x = [" + ", ".join("0" for _ in range(300)) + "]\n",
    ],
)
def test_legitimately_repetitive_text_is_not_a_runaway(legit: str) -> None:
    assert repeated_tail(legit, 10) is None


def test_the_cap_is_sent_to_local_servers_only() -> None:
    def cap(base_url: str, **kw: Any) -> int | None:
        return output_cap(ModelSettings(model="m", base_url=base_url, **kw))

    assert cap("http://localhost:8080/v1") == LOCAL_MAX_TOKENS
    assert cap("http://192.168.1.9:11434/v1", provider="ollama") == LOCAL_MAX_TOKENS
    assert cap("https://api.openai.com/v1") is None  # reasoning models refuse max_tokens
    assert cap("https://api.deepseek.com", max_tokens=2000) == 2000
    assert cap("http://localhost:8080/v1", max_tokens=0) is None


# -- end to end ----------------------------------------------------------------------------


async def test_the_cap_is_on_the_wire(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([text("a"), text("b"), text("c")])
    await session_for(fake, tmp_path).run("hi", ev.EventLog(), yes)
    await session_for(fake, tmp_path, max_tokens=512).run("hi", ev.EventLog(), yes)
    await session_for(fake, tmp_path, max_tokens=0).run("hi", ev.EventLog(), yes)
    sent = [r.get("max_tokens") for r in fake.requests]
    assert sent == [LOCAL_MAX_TOKENS, 512, None]


async def test_a_repeating_stream_is_stopped_and_the_model_told(fake_llm, tmp_path: Path) -> None:
    nudged = text("fixed it")  # the answer after the nudge: no file changed
    fake = fake_llm([endless(LOOP, prefix="Looking at it.\n"), text("fixing it"), nudged])
    log = ev.EventLog()
    started = time.monotonic()
    result = await session_for(fake, tmp_path).run("fix the test", log, yes)
    assert time.monotonic() - started < 10  # the fake would stream for 20 s
    assert hung_up(fake)  # zen closed the stream, it did not read to the end
    assert result.text == "fixed it" and result.stop == "done"
    messages = fake.requests[1]["messages"]
    kept = messages[-2]  # the answer up to the repeats (cut where they began), not them
    assert kept["role"] == "assistant" and kept["content"] in ("Looking at it.", "Looking at it")
    assert messages[-1] == {"role": "user", "content": STREAM_NOTE}
    warnings = [e.text for e in log.events if isinstance(e, ev.Notice) and e.level == "warning"]
    assert any("kept repeating" in w for w in warnings)


async def test_blocks_before_the_repeats_are_applied_on_edit_blocks(fake_llm, tmp_path: Path):
    """Qwen2.5-Coder-1.5B wrote a right block, then looped: the block was lost."""
    (tmp_path / "a.txt").write_text("old\n")
    block = "a.txt\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n\n"
    fake = fake_llm([endless(LOOP, prefix=block), text("done")])
    session = session_for(fake, tmp_path, tool_protocol="text")
    result = await session.run("change a.txt", ev.EventLog(), yes)
    assert result.text == "done" and (tmp_path / "a.txt").read_text() == "new\n"
    told = fake.requests[1]["messages"][-1]["content"]
    assert "1. a.txt: " in told and "stopped your answer where it began repeating" in told
    assert STREAM_NOTE not in told  # one message says both


async def test_a_runaway_inside_a_call_is_stopped_too(fake_llm, tmp_path: Path) -> None:
    args = '{"path": "out.txt", "content": "' + "same line\\n" * 3000 + '"}'
    nudged = text("ok")  # the answer after the nudge: no file changed
    fake = fake_llm([tool_calls([call("write-file", args)], chunk=40), text("ok"), nudged])
    result = await session_for(fake, tmp_path).run("write it", ev.EventLog(), yes)
    assert result.text == "ok" and not (tmp_path / "out.txt").exists()
    assert fake.requests[1]["messages"][-1]["content"] == STREAM_NOTE


def test_a_second_runaway_ends_the_run(fake_llm, run_zen) -> None:
    fake = fake_llm([endless(LOOP), endless("again " * 3)])
    done = run_zen(
        "-p", "go", "--output-format", "json", "--base-url", fake.base_url, "--api-key", "k"
    )
    result = json.loads(done.out)
    assert result["stop"] == "runaway" and result["is_error"] is True
    assert done.code == 5
    assert len(fake.requests) == 2 and hung_up(fake, 2)


async def test_the_same_call_in_a_row_is_refused_then_ends_the_run(
    fake_llm, tmp_path: Path
) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    same = call("read-file", {"path": "a.txt"})
    fake = fake_llm([tool_calls([same]) for _ in range(4)])
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("go", log, yes)
    assert result.stop == "runaway" and len(fake.requests) == 4
    results = [m["content"] for m in fake.requests[3]["messages"] if m["role"] == "tool"]
    assert "looping" in results[2] and "looping" not in results[1]
    warnings = [e.text for e in log.events if isinstance(e, ev.Notice) and e.level == "warning"]
    assert len([w for w in warnings if "loop_limit" in w]) == 2
    assert "task ends" in warnings[-1]


async def test_both_limits_can_be_turned_off(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    same = call("read-file", {"path": "a.txt"})
    fake = fake_llm([*(tool_calls([same]) for _ in range(5)), text(LOOP * 60)])
    session = session_for(fake, tmp_path, loop_limit=0, repeat_limit=0)
    result = await session.run("go", ev.EventLog(), yes)
    assert result.stop == "done" and result.text == LOOP * 60


async def test_a_long_table_and_a_long_file_are_not_stopped(fake_llm, tmp_path: Path) -> None:
    content = "".join(f"def test_{i}():\n    assert add({i}, 1) == {i + 1}\n\n" for i in range(400))
    answer = table(600)
    fake = fake_llm(
        [
            tool_calls([call("write-file", {"path": "t.py", "content": content})], chunk=30),
            text(answer, chunk=5),
        ]
    )
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("write the tests", log, yes)
    assert result.text == answer and (tmp_path / "t.py").read_text() == content
    assert not [e for e in log.events if isinstance(e, ev.Notice) and "repeat" in e.text]


async def test_a_conversation_that_outgrows_the_window_is_called_out_once(
    fake_llm, tmp_path: Path
) -> None:
    """A message larger than the window survives compaction whole: zen says so, once."""

    def reply(body: dict[str, Any]) -> Any:
        last = body["messages"][-1]
        if last["role"] == "user" and "compacted" in str(last["content"]):
            return text("## task:goal\nRead the data.\n", usage="estimate")
        if last["role"] == "tool":
            return text("done", usage="estimate")
        return tool_calls([call("glob", {"pattern": "*"})], usage="estimate")

    fake = fake_llm(reply)
    log = ev.EventLog()
    session = session_for(fake, tmp_path, context_window=4000)
    huge = "Remember these numbers exactly: " + " ".join(str(i) for i in range(4000))
    await session.run(huge, log, yes)
    await session.run("and again", log, yes)
    said = [e.text for e in log.events if isinstance(e, ev.Notice) and "no longer fits" in e.text]
    assert len(said) == 1 and "num_ctx" in said[0] and "4,000 tokens, config" in said[0]

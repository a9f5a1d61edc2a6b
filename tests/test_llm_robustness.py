"""Hostile and broken servers: deadlines, odd SSE, malformed chunks, bad bytes, empty streams.

Each case runs zen's real client against the fake server over HTTP; the fake scripts the exact
bytes (`raw`), so the stream parser sees what a broken proxy or server would send.
"""

from __future__ import annotations

import json
import socket
import time
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import (
    FakeLLM,
    call,
    chunk_json,
    llamacpp,
    raw,
    sse,
    status,
    text,
    tool_calls,
)
from zen.base.events import EventLog, Retrying, TextDelta, Usage, Waiting
from zen.llm.client import ChatClient
from zen.llm.deadlines import Deadlines
from zen.llm.types import LLMError
from zen.settings.schema import ModelSettings

pytestmark = pytest.mark.usefixtures("close_clients")

USER = [{"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read-file",
            "description": "Read a file.",
            "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
        },
    }
]
FAST = Deadlines(connect=5, first_byte=5, idle=5, total=10, notice=0.1)


def client(
    fake: FakeLLM, retries: int = 4, deadlines: Deadlines = FAST, **settings: Any
) -> ChatClient:
    return closing(
        ChatClient(
            ModelSettings(model="fake-model", base_url=fake.base_url, **settings),
            retries=retries,
            deadlines=deadlines,
        )
    )


def good_stream(content: str = "hello") -> bytes:
    return sse(
        chunk_json({"role": "assistant", "content": content}), chunk_json({}, "stop"), "[DONE]"
    )


# --- SSE fields without data are ignored, as the spec says -----------------------------------


async def test_sse_fields_without_data_are_ignored() -> None:
    def data(delta: dict[str, Any], finish: str | None = None) -> bytes:
        return b"data: " + json.dumps(chunk_json(delta, finish)).encode()

    first = (
        b"retry: 10\n\n"
        b"event: ping\n\n"
        b"data: \n\n"
        b": keep-alive\n\n"
        b"id: 7\nevent: message\n" + data({"content": "hel"}) + b"\r\n\r\n"
    )
    second = data({"content": "lo"}) + b"\r\r" + data({}, "stop") + b"\n\ndata: [DONE]"
    with FakeLLM([raw(first, second)]) as fake:
        turn = await client(fake).stream(USER, [], EventLog(), "main")
    assert turn.content == "hello" and len(fake.requests) == 1


async def test_stream_split_at_every_byte_still_parses() -> None:
    with FakeLLM([raw(good_stream("split"), per_byte=True)]) as fake:
        turn = await client(fake).stream(USER, [], EventLog(), "main")
    assert turn.content == "split"


# --- malformed chunks: retried, then one clear line; never silently dropped ------------------

MALFORMED = {
    "choices a string": sse({"choices": "oops"}),
    "delta a string": sse(chunk_json("x")),  # type: ignore[arg-type]
    "tool_calls an object": sse(chunk_json({"tool_calls": {}})),
    "function a string": sse(chunk_json({"tool_calls": [{"index": 0, "function": "x"}]})),
    "arguments a number": sse(
        chunk_json(
            {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "n", "arguments": 5}}]}
        )
    ),
    "content a list": sse(chunk_json({"content": [{"type": "text", "text": "hi"}]})),
    "usage a string": sse(chunk_json({"content": "a"}, "stop", usage="x")),
    "prompt_tokens text": sse(chunk_json({}, "stop", usage={"prompt_tokens": "many"})),
    "data a list": sse("[1,2]"),
    "not JSON": sse("{nope"),
    "invalid UTF-8": b'data: {"choices":[{"delta":{"content":"caf\xff"}}]}\n\n',
    "index a string": sse(chunk_json({"tool_calls": [{"index": "0", "function": {}}]})),
    "nested too deeply": sse("[" * 100_000),
}


@pytest.mark.parametrize("name", list(MALFORMED))
async def test_malformed_chunk_fails_the_attempt_and_is_retried(name: str) -> None:
    log = EventLog()
    with FakeLLM([raw(MALFORMED[name]), raw(good_stream("fine"))]) as fake:
        turn = await client(fake).stream(USER, [], log, "main")
    assert turn.content == "fine" and len(fake.requests) == 2
    retry = next(e for e in log.events if isinstance(e, Retrying))
    assert "the server sent" in retry.reason or "not UTF-8" in retry.reason


async def test_malformed_every_time_ends_in_one_line() -> None:
    with FakeLLM([raw(MALFORMED["choices a string"])] * 3) as fake, pytest.raises(LLMError) as info:
        await client(fake, retries=2).stream(USER, [], EventLog(), "main")
    message = str(info.value)
    assert "\n" not in message and "choices is a string" in message
    assert "after 3 attempts" in message and len(fake.requests) == 3


async def test_lone_surrogates_are_replaced_in_text_and_arguments() -> None:
    body = sse(
        b'{"choices":[{"index":0,"delta":{"content":"smile \\ud83d!"}}]}',
        b'{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":'
        b'{"name":"read-file","arguments":"{\\"path\\": \\"a\\udc80.py\\"}"}}]},'
        b'"finish_reason":"tool_calls"}]}',
        "[DONE]",
    )
    log = EventLog()
    with FakeLLM([raw(body)]) as fake:
        turn = await client(fake).stream(USER, TOOLS, log, "main")
    assert turn.content == "smile \ufffd!"
    assert json.loads(turn.tool_calls[0].arguments) == {"path": "a\ufffd.py"}
    for e in log.events:  # every event can be printed and serialised
        json.dumps(e.to_json(), ensure_ascii=False).encode("utf-8")


async def test_error_object_in_the_stream_is_one_line() -> None:
    expected = "reported an error mid-stream: model crashed"
    with (
        FakeLLM([raw(sse({"error": "model crashed"}))]) as fake,
        pytest.raises(LLMError, match=expected),
    ):
        await client(fake).stream(USER, [], EventLog(), "main")
    assert len(fake.requests) == 1


async def test_json_answer_to_a_streamed_request_is_used() -> None:
    body = json.dumps(
        {
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": "whole"},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1},
        }
    ).encode()
    with FakeLLM([raw(body, content_type="application/json")]) as fake:
        turn = await client(fake).stream(USER, [], EventLog(), "main")
    assert (turn.content, turn.usage.prompt_tokens, turn.usage.estimated) == ("whole", 3, False)


# --- empty streams ---------------------------------------------------------------------------


async def test_empty_stream_is_its_own_error_retried_once() -> None:
    with FakeLLM([raw(), raw(), raw()]) as fake, pytest.raises(LLMError) as info:
        await client(fake, retries=4).stream(USER, TOOLS, EventLog(), "main")
    assert len(fake.requests) == 2
    assert "empty stream" in str(info.value) and "stream_tools: false" in str(info.value)


async def test_stream_tools_false_sends_tools_unstreamed_with_tool_choice() -> None:
    reply = tool_calls([call("read-file", {"path": "a.py"})])
    with FakeLLM(llamacpp([reply, text("done")])) as fake:
        c = client(fake, stream_tools=False)
        turn = await c.stream(USER, TOOLS, EventLog(), "main")
        again = await c.stream(USER, [], EventLog(), "main")
    first, second = fake.requests
    assert (first["stream"], first["tool_choice"], "stream_options" in first) == (
        False,
        "auto",
        False,
    )
    assert second["stream"] is True and "tool_choice" not in second
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [("read-file", '{"path": "a.py"}')]
    assert turn.usage.estimated and turn.usage.prompt_tokens > 0
    assert again.content == "done"


async def test_llamacpp_like_server_drops_streamed_tools_which_the_preset_avoids() -> None:
    script = llamacpp(lambda body: tool_calls([call("read-file", {"path": "a"})]))
    with FakeLLM(script) as fake:
        settings = ModelSettings(model="m", base_url=fake.base_url)
        plain = closing(ChatClient(settings, deadlines=FAST))
        dropped = await plain.stream(USER, TOOLS, EventLog(), "main")
        preset = closing(
            ChatClient(
                ModelSettings(
                    model="m", base_url=fake.base_url, provider="llamacpp", stream_tools=False
                ),
                deadlines=FAST,
            )
        )
        honoured = await preset.stream(USER, TOOLS, EventLog(), "main")
    assert not dropped.tool_calls and "tool_choice" not in fake.requests[0]
    assert [c.name for c in honoured.tool_calls] == ["read-file"]


# --- deadlines -------------------------------------------------------------------------------


async def test_silent_server_gives_up_after_first_byte_deadline_and_one_retry() -> None:
    log = EventLog()
    d = Deadlines(connect=5, first_byte=0.5, idle=5, total=10, notice=0.1)
    start = time.monotonic()
    expected = (
        r"after 2 attempts: no answer within 0.5 s of the "
        r"request \(first_byte_timeout\)"
    )
    with (
        FakeLLM([text("late", delay=3), text("late", delay=3)]) as fake,
        pytest.raises(LLMError, match=expected),
    ):
        await client(fake, retries=4, deadlines=d).stream(USER, [], log, "main")
    assert time.monotonic() - start < 2.5
    waits = [e for e in log.events if isinstance(e, Waiting)]
    assert waits and waits[0].what == "the model's first token" and waits[0].limit == 0.5
    assert all(0.1 <= w.elapsed <= 0.6 for w in waits)


async def test_drip_feeding_server_is_stopped_by_the_total() -> None:
    log = EventLog()
    d = Deadlines(connect=5, first_byte=5, idle=5, total=0.8, notice=0.1)
    start = time.monotonic()
    expected = r"took longer than 0.8 s \(timeout\)"
    with (
        FakeLLM([raw(good_stream("x" * 500), per_byte=True, gap=0.05)]) as fake,
        pytest.raises(LLMError, match=expected),
    ):
        await client(fake, retries=0, deadlines=d).stream(USER, [], log, "main")
    assert time.monotonic() - start < 2.0


async def test_stalled_stream_is_stopped_by_the_idle_deadline() -> None:
    log = EventLog()
    d = Deadlines(connect=5, first_byte=5, idle=0.4, total=10, notice=0.1)
    first = sse(chunk_json({"role": "assistant", "content": "start"}))
    expected = r"stalled for 0.4 s \(idle_timeout\)"
    with FakeLLM([raw(first, hang=3)]) as fake, pytest.raises(LLMError, match=expected):
        await client(fake, retries=0, deadlines=d).stream(USER, [], log, "main")
    waits = [e for e in log.events if isinstance(e, Waiting)]
    assert waits and waits[-1].what == "more of the model's answer"
    assert any(isinstance(e, TextDelta) for e in log.events)


async def test_slow_first_token_is_announced_then_succeeds() -> None:
    log = EventLog()
    with FakeLLM([text("ok", delay=0.5)]) as fake:
        turn = await client(fake).stream(USER, [], log, "main")
    waits = [e for e in log.events if isinstance(e, Waiting)]
    assert turn.content == "ok" and len(waits) >= 2
    assert [w.elapsed for w in waits] == sorted(w.elapsed for w in waits)


async def test_connection_refused_fails_fast_naming_the_url() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    start = time.monotonic()
    with pytest.raises(LLMError) as info:
        await ChatClient(ModelSettings(model="m", base_url=url), retries=4).stream(
            USER, [], EventLog(), "main"
        )
    assert time.monotonic() - start < 3
    assert f"after 2 attempts: could not connect to {url}" in str(info.value)


@pytest.mark.parametrize("value", ["-5", "nan", "-1e9"])
async def test_negative_or_senseless_retry_after_means_backoff(value: str) -> None:
    log = EventLog()
    with FakeLLM([status(429, headers={"Retry-After": value}), text("ok")]) as fake:
        await client(fake).stream(USER, [], log, "main")
    delays = [e.delay for e in log.events if isinstance(e, Retrying)]
    assert len(delays) == 1 and 0.3 <= delays[0] <= 0.5


async def test_huge_retry_after_is_refused_at_once() -> None:
    expected = "asks to wait 86400 s"
    with (
        FakeLLM([status(429, headers={"Retry-After": "86400"})]) as fake,
        pytest.raises(LLMError, match=expected),
    ):
        await client(fake).stream(USER, [], EventLog(), "main")
    assert len(fake.requests) == 1


async def test_long_backoff_is_announced() -> None:
    log = EventLog()
    with FakeLLM([status(503, headers={"Retry-After": "0.5"}), text("ok")]) as fake:
        await client(fake).stream(USER, [], log, "main")
    waits = [e for e in log.events if isinstance(e, Waiting)]
    assert waits and all(w.what == "retry" and w.limit == 0.5 for w in waits)


async def test_usage_missing_is_estimated() -> None:
    log = EventLog()
    with FakeLLM([text("x" * 400, usage=None)]) as fake:
        turn = await client(fake).stream(USER, [], log, "main")
    usage = next(e for e in log.events if isinstance(e, Usage))
    assert (usage.completion_tokens, usage.estimated) == (100, True)
    assert turn.usage.estimated


async def test_lone_surrogate_escapes_in_arguments_never_reach_a_tool(tmp_path: Any) -> None:
    from zen.llm.types import ToolCall
    from zen.stores.memo import MemoStore
    from zen.stores.read_tracker import ReadTracker
    from zen.stores.todo import TodoStore
    from zen.tools.base import ToolContext, refuse_all
    from zen.tools.catalog import builtin_tools
    from zen.tools.registry import ToolRegistry
    from zen.tools.workspace import Workspace

    ctx = ToolContext(Workspace(tmp_path), "main", ReadTracker(), MemoStore(), TodoStore())
    registry = ToolRegistry(list(builtin_tools().values()))
    for name, args in [
        ("read-file", '{"path": "a\\ud800.txt"}'),
        ("grep", '{"pattern": "\\udc80"}'),
        ("glob", "[" * 100_000),
        ("memo", '{"action": "write", "key": "k\\ud83d", "content": "x"}'),
    ]:
        result = await registry.call(ToolCall("c", name, args), ctx, refuse_all)
        result.output.encode("utf-8")
        result.summary.encode("utf-8")


async def test_a_server_that_drops_the_tools_is_called_out_once() -> None:
    from zen.base.events import Notice

    big = [{**TOOLS[0], "function": {**TOOLS[0]["function"], "name": f"t{i}"}} for i in range(20)]
    log = EventLog()
    with FakeLLM([text("no tools here", usage=(271, 5))] * 2) as fake:
        c = client(fake)
        await c.stream(USER, big, log, "main")
        await c.stream(USER, big, log, "main")
    notes = [e.text for e in log.events if isinstance(e, Notice)]
    assert len(notes) == 1 and "dropped the tools" in notes[0] and "271" in notes[0]
    honest = EventLog()
    with FakeLLM([text("fine", usage="estimate")]) as fake:
        await client(fake).stream(USER, big, honest, "main")
    assert not [e for e in honest.events if isinstance(e, Notice)]


def test_endless_events_and_answers_are_bounded() -> None:
    from zen.llm import accumulator, sse

    decoder = sse.SseDecoder()
    with pytest.raises(sse.Malformed, match="event larger than"):
        for _ in range(20):
            decoder.feed(b"data: " + b"x" * (1 << 20) + b"\n")
    acc = accumulator.StreamAccumulator()
    piece = chunk_json({"content": "y" * (1 << 20)})
    with pytest.raises(sse.Malformed, match="answer grew past"):
        for _ in range(accumulator.MAX_ANSWER // (1 << 20) + 1):
            acc.feed(piece)

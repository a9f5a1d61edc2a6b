"""ChatClient against the fake server over real HTTP: streaming, events, retries, errors."""

from __future__ import annotations

import asyncio
import socket
import time
from email.utils import formatdate
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import FakeLLM, call, cut, sse_error, status, text, tool_calls
from zen.base.events import (
    EventLog,
    ReasoningDelta,
    Retrying,
    TextDelta,
    ToolCallArgsDelta,
    ToolCallStarted,
    Usage,
)
from zen.llm.client import ChatClient
from zen.llm.deadlines import Deadlines
from zen.llm.errors import ContextLengthError, is_context_overflow
from zen.llm.retry import retry_after
from zen.llm.types import LLMError
from zen.settings.providers import LOCAL_MAX_TOKENS
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
NOW = {"Retry-After": "0"}


def client(
    fake: FakeLLM, retries: int = 4, deadlines: Deadlines | None = None, **settings: Any
) -> ChatClient:
    return closing(
        ChatClient(
            ModelSettings(model="fake-model", base_url=fake.base_url, **settings),
            retries=retries,
            deadlines=deadlines or Deadlines(5, 30, 30, 30),
        )
    )


async def test_text_streams_as_events_tagged_with_the_agent() -> None:
    log = EventLog()
    with FakeLLM([text("hello world", chunk=4, usage=(12, 3), cached=8)]) as fake:
        turn = await client(fake, api_key="sk-abc").stream(USER, [], log, "coder")
    assert turn.content == "hello world" and turn.tool_calls == [] and turn.finish_reason == "stop"
    assert log.events == [
        TextDelta(agent="coder", text="hell"),
        TextDelta(agent="coder", text="o wo"),
        TextDelta(agent="coder", text="rld"),
        Usage(agent="coder", prompt_tokens=12, completion_tokens=3, cached_tokens=8),
    ]
    u = turn.usage
    assert (u.prompt_tokens, u.completion_tokens, u.cached_tokens, u.requests) == (12, 3, 8, 1)
    body = fake.requests[0]
    assert body["model"] == "fake-model" and body["messages"] == USER and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert "tools" not in body and "temperature" not in body
    assert body["max_tokens"] == LOCAL_MAX_TOKENS  # the fake is a server on this machine
    assert fake.request_headers[0]["authorization"] == "Bearer sk-abc"


async def test_tool_calls_and_their_events() -> None:
    log = EventLog()
    reply = tool_calls(
        [call("read-file", {"path": "a.py"}, id="c1"), call("ls", {}, id="c2")],
        text="Looking.",
        chunk=5,
    )
    with FakeLLM([reply]) as fake:
        turn = await client(fake).stream(USER, TOOLS, log, "main")
    assert fake.requests[0]["tools"] == TOOLS
    assert turn.content == "Looking." and turn.finish_reason == "tool_calls"
    assert [(c.id, c.name, c.arguments) for c in turn.tool_calls] == [
        ("c1", "read-file", '{"path": "a.py"}'),
        ("c2", "ls", "{}"),
    ]
    started = [e for e in log.events if isinstance(e, ToolCallStarted)]
    assert started == [
        ToolCallStarted(agent="main", call_id="c1", name="read-file"),
        ToolCallStarted(agent="main", call_id="c2", name="ls"),
    ]
    args = "".join(
        e.delta for e in log.events if isinstance(e, ToolCallArgsDelta) and e.call_id == "c1"
    )
    assert args == '{"path": "a.py"}'


@pytest.mark.parametrize("shape", ["whole", "no_index", "lmstudio", "index0"])
async def test_provider_tool_call_shapes_over_http(shape: str) -> None:
    reply = tool_calls(
        [call("read-file", {"path": "a.py"}), call("grep", {"q": "x"})],
        shape=shape,
        finish_reason="stop",
    )  # type: ignore[arg-type]
    with FakeLLM([reply]) as fake:
        turn = await client(fake).stream(USER, TOOLS, EventLog(), "main")
    assert [(c.name, c.arguments) for c in turn.tool_calls] == [
        ("read-file", '{"path": "a.py"}'),
        ("grep", '{"q": "x"}'),
    ]
    assert len({c.id for c in turn.tool_calls}) == 2


async def test_reasoning_is_kept_apart_from_content() -> None:
    log = EventLog()
    with FakeLLM(
        [
            text("answer", reasoning="let me think"),
            text("b", reasoning="via alias", reasoning_key="reasoning"),
        ]
    ) as fake:
        c = client(fake, provider="deepseek")
        turn = await c.stream(USER, [], log, "main")
        alias = await c.stream(USER, [], EventLog(), "main")
    assert (turn.reasoning, turn.content) == ("let me think", "answer")
    assert alias.reasoning == "via alias"
    assert "".join(e.text for e in log.events if isinstance(e, ReasoningDelta)) == "let me think"
    assert "".join(e.text for e in log.events if isinstance(e, TextDelta)) == "answer"
    assert c.echo_reasoning is True


def test_echo_reasoning_follows_the_provider() -> None:
    s = ModelSettings(model="m", base_url="http://127.0.0.1:9/v1")
    assert ChatClient(s).echo_reasoning is False
    assert ChatClient(s.model_copy(update={"provider": "kimi"})).echo_reasoning is True
    for name in ("custom", "openai"):
        by_url = s.model_copy(update={"provider": name, "base_url": "https://api.deepseek.com"})
        assert ChatClient(by_url).echo_reasoning is True
    explicit = s.model_copy(update={"provider": "glm", "base_url": "https://api.deepseek.com"})
    assert ChatClient(explicit).echo_reasoning is False


async def test_stream_options_rejected_then_dropped_for_good() -> None:
    log = EventLog()
    with FakeLLM([text("one"), text("two")], reject_stream_options=True) as fake:
        c = client(fake)
        first = await c.stream(USER, [], log, "main")
        second = await c.stream(USER, [], log, "main")
    assert (first.content, second.content) == ("one", "two")
    assert ["stream_options" in r for r in fake.requests] == [True, False, False]
    assert not any(isinstance(e, Retrying) for e in log.events)


async def test_provider_without_stream_usage_never_asks() -> None:
    with FakeLLM([text("ok")]) as fake:
        turn = await client(fake, provider="lmstudio").stream(USER, [], EventLog(), "main")
    assert "stream_options" not in fake.requests[0]
    # no usage sent: estimated from UTF-8 bytes / 4 ("hi" -> 1, "ok" -> 1) and marked so
    u = turn.usage
    assert (u.prompt_tokens, u.completion_tokens, u.requests, u.estimated) == (1, 1, 1, True)


async def test_temperature_only_when_configured_max_tokens_local_default() -> None:
    with FakeLLM([text("a"), text("b")]) as fake:
        await client(fake).stream(USER, [], EventLog(), "main")
        await client(fake, temperature=0.2, max_tokens=99).stream(USER, [], EventLog(), "main")
    assert "temperature" not in fake.requests[0]
    assert fake.requests[0]["max_tokens"] == LOCAL_MAX_TOKENS
    assert fake.requests[1]["temperature"] == 0.2 and fake.requests[1]["max_tokens"] == 99


async def test_429_with_retry_after_then_success() -> None:
    log = EventLog()
    with FakeLLM(
        [status(429, headers=NOW), status(429, headers={"retry-after-ms": "10"}), text("ok")]
    ) as fake:
        turn = await client(fake).stream(USER, [], log, "main")
    assert turn.content == "ok" and len(fake.requests) == 3
    retries = [e for e in log.events if isinstance(e, Retrying)]
    assert [(r.attempt, r.delay) for r in retries] == [(1, 0.0), (2, 0.01)]
    assert "429" in retries[0].reason and "Rate limit" in retries[0].reason


async def test_500_twice_then_success_with_backoff() -> None:
    log = EventLog()
    with FakeLLM([status(500), status(503), text("ok")]) as fake:
        start = time.monotonic()
        turn = await client(fake).stream(USER, [], log, "main")
        elapsed = time.monotonic() - start
    assert turn.content == "ok" and len(fake.requests) == 3
    delays = [e.delay for e in log.events if isinstance(e, Retrying)]
    assert 0.375 <= delays[0] <= 0.5 and 0.75 <= delays[1] <= 1.0
    assert elapsed >= sum(delays)


@pytest.mark.parametrize("graceful", [False, True])
async def test_cut_stream_is_retried_and_partial_text_dropped(graceful: bool) -> None:
    log = EventLog()
    with FakeLLM([cut("partial answer", graceful=graceful), text("full answer")]) as fake:
        turn = await client(fake).stream(USER, [], log, "main")
    assert turn.content == "full answer" and len(fake.requests) == 2
    kinds = [type(e).__name__ for e in log.events]
    assert kinds.index("Retrying") > kinds.index("TextDelta")  # shown, then withdrawn
    retry = next(e for e in log.events if isinstance(e, Retrying))
    assert ("mid-stream" in retry.reason) if not graceful else ("ended" in retry.reason)


async def test_cut_tool_call_is_not_kept() -> None:
    with FakeLLM([cut('{"path": "a'), tool_calls([call("ls", {}, id="x")])]) as fake:
        turn = await client(fake).stream(USER, TOOLS, EventLog(), "main")
    assert [c.id for c in turn.tool_calls] == ["x"] and turn.content == ""


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (
            status(401, message="Incorrect API key provided: sk-xx"),
            ["authentication failed", "HTTP 401", "Incorrect API key", "check your API key"],
        ),
        (status(403, message="forbidden"), ["authentication failed", "HTTP 403"]),
        (
            status(404, message="model not found"),
            ["'fake-model' not found at http://127.0.0.1:", "HTTP 404", "model not found"],
        ),
        (status(400, message="messages[3]: bad role"), ["rejected", "HTTP 400", "bad role"]),
        (
            status(429, code="insufficient_quota", message="You exceeded your current quota"),
            ["quota", "HTTP 429"],
        ),
        (status(429, headers={"Retry-After": "3600"}), ["wait 3600 s", "HTTP 429"]),
        (
            status(500, body="<html>Bad Gateway</html>", headers={"x-should-retry": "false"}),
            ["HTTP 500", "Bad Gateway"],
        ),
        (sse_error("model overloaded", text="half"), ["mid-stream", "model overloaded"]),
    ],
)
async def test_errors_retrying_cannot_fix(reply: Any, words: list[str]) -> None:
    with FakeLLM([reply]) as fake, pytest.raises(LLMError) as info:
        await client(fake).stream(USER, [], EventLog(), "main")
    message = str(info.value)
    assert "\n" not in message
    for word in words:
        assert word in message
    assert len(fake.requests) == 1


@pytest.mark.parametrize(
    "reply",
    [
        status(
            400,
            code="context_length_exceeded",
            message="This model's maximum context length is "
            "128000 tokens. However, your messages resulted in 130000 tokens.",
        ),
        status(400, message="prompt is too long: 210000 tokens > 200000 maximum"),
        status(400, message="the request exceeds the available context size, try increasing it"),
    ],
)
async def test_context_overflow(reply: Any) -> None:
    with FakeLLM([reply]) as fake, pytest.raises(ContextLengthError, match="model's context"):
        await client(fake).stream(USER, [], EventLog(), "main")
    assert len(fake.requests) == 1


def test_overflow_phrases_and_the_throttling_guard() -> None:
    assert is_context_overflow("x", "context_length_exceeded")
    assert is_context_overflow("Input exceeded model token limit: 262144")
    assert is_context_overflow("keeping 5000 tokens is greater than the context length")
    assert not is_context_overflow("Rate limit reached: too many tokens per minute")
    assert not is_context_overflow("Too Many Requests")
    assert not is_context_overflow("invalid temperature: only 1 is allowed")


async def test_retries_exhausted() -> None:
    log = EventLog()
    script = [
        status(500, message="boom", headers=NOW),
        status(502, headers=NOW),
        status(503, message="overloaded", headers=NOW),
    ]
    with FakeLLM(script) as fake, pytest.raises(LLMError) as info:
        await client(fake, retries=2).stream(USER, [], log, "main")
    assert len(fake.requests) == 3
    assert str(info.value) == (
        "model request failed after 3 attempts: server error (HTTP 503: overloaded)"
    )
    assert [e.attempt for e in log.events if isinstance(e, Retrying)] == [1, 2]


async def test_exhausted_fake_script_fails_at_once() -> None:
    with FakeLLM([]) as fake, pytest.raises(LLMError, match="fake script exhausted at request 1"):
        await client(fake).stream(USER, [], EventLog(), "main")
    assert len(fake.requests) == 1


async def test_unreachable_server() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = ModelSettings(model="m", base_url=f"http://127.0.0.1:{port}/v1")
    log = EventLog()
    with pytest.raises(LLMError, match=r"failed after 2 attempts: could not connect to http://"):
        await closing(ChatClient(settings, retries=1)).stream(USER, [], log, "main")
    assert [type(e).__name__ for e in log.events] == ["Retrying"]


async def test_timeout_is_reported() -> None:
    timed_out = r"after 1 attempt: no answer within 0.2 s of the request \(first_byte_timeout\)"
    with FakeLLM([text("slow", delay=1.0)]) as fake, pytest.raises(LLMError, match=timed_out):
        await client(fake, retries=0, deadlines=Deadlines(5, 0.2, 5, 5)).stream(
            USER, [], EventLog(), "main"
        )


async def test_cancellation_propagates_and_hangs_up() -> None:
    log = EventLog()
    first = asyncio.Event()

    def emit(event: Any) -> None:
        log(event)
        if isinstance(event, TextDelta):
            first.set()

    with FakeLLM([text("x" * 400, chunk=1, chunk_delay=0.02)]) as fake:
        task = asyncio.create_task(client(fake).stream(USER, [], emit, "main"))
        await asyncio.wait_for(first.wait(), 5)
        task.cancel()
        start = time.monotonic()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - start < 0.5
        deadline = time.monotonic() + 3
        while not fake.aborted and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert fake.aborted == 1
    assert not any(isinstance(e, Usage) for e in log.events)


def test_retry_after_forms() -> None:
    assert retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert retry_after({"retry-after": "2"}) == 2.0
    assert retry_after({}) is None
    assert retry_after({"retry-after": "soon"}) is None
    later = retry_after({"retry-after": formatdate(time.time() + 30, usegmt=True)})
    assert later is not None and 28 <= later <= 31


@pytest.mark.e2e
def test_openai_is_not_imported_by_the_module() -> None:
    import subprocess
    import sys

    code = "import sys, zen.llm.client; print('openai' in sys.modules)"
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root
    )
    assert out.stdout.strip() == "False"

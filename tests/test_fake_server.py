"""The fake server itself, checked with the stdlib only (no openai SDK in the loop)."""

from __future__ import annotations

import http.client
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.conftest import reap
from tests.fakes.server import (
    FakeLLM,
    call,
    cut,
    fake_servers,
    long_markdown,
    sse_error,
    status,
    text,
    tool_calls,
)

ROOT = Path(__file__).resolve().parent.parent


def post(base_url: str, body: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    req = urllib.request.Request(
        base_url + "/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json", "Authorization": "Bearer sk-test"},
    )
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def events(raw: bytes) -> list[Any]:
    """SSE `data:` payloads, JSON-decoded except the final `[DONE]`."""
    out: list[Any] = []
    for line in raw.decode().splitlines():
        if line.startswith("data: "):
            data = line[6:]
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def stream_body(**extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": True, **extra}


def test_text_stream_chunks_usage_and_done() -> None:
    with FakeLLM([text("hello world", chunk=4, reasoning="hm", usage=(7, 3), cached=2)]) as fake:
        code, headers, raw = post(
            fake.base_url, stream_body(stream_options={"include_usage": True})
        )
    assert code == 200 and headers["Content-Type"].startswith("text/event-stream")
    evs = events(raw)
    assert evs[-1] == "[DONE]"
    deltas = [e["choices"][0]["delta"] for e in evs[:-1] if e["choices"]]
    assert [d["reasoning_content"] for d in deltas if d.get("reasoning_content")] == ["hm"]
    assert [d["content"] for d in deltas if d.get("content")] == ["hell", "o wo", "rld"]
    finishes = [e["choices"][0]["finish_reason"] for e in evs[:-1] if e["choices"]]
    assert finishes[-1] == "stop" and set(finishes[:-1]) == {None}
    usage_chunk = evs[-2]
    assert usage_chunk["choices"] == []
    assert usage_chunk["usage"]["prompt_tokens"] == 7
    assert usage_chunk["usage"]["prompt_tokens_details"]["cached_tokens"] == 2
    assert fake.requests[0]["stream_options"] == {"include_usage": True}
    assert fake.request_headers[0]["authorization"] == "Bearer sk-test"
    assert fake.paths == ["/v1/chat/completions"]


def test_no_usage_chunk_unless_asked() -> None:
    with FakeLLM([text("ok")]) as fake:
        _, _, raw = post(fake.base_url, stream_body())
    assert all(e == "[DONE]" or e["choices"] for e in events(raw))


@pytest.mark.parametrize("shape", ["openai", "whole", "no_index", "lmstudio", "index0"])
def test_tool_call_shapes_carry_the_arguments(shape: str) -> None:
    calls = [call("read-file", {"path": "a.py"}, id="c1"), call("ls", "{bad", id="c2")]
    with FakeLLM([tool_calls(calls, shape=shape)]) as fake:  # type: ignore[arg-type]
        _, _, raw = post(fake.base_url, stream_body())
    parts = [tc for e in events(raw)[:-1] for tc in e["choices"][0]["delta"].get("tool_calls", [])]
    ids = [p.get("id") for p in parts if p.get("id")]
    assert ids == ["c1", "c2"]
    args = "".join(p["function"]["arguments"] for p in parts)
    assert args == '{"path": "a.py"}{bad'
    has_index = ["index" in p for p in parts]
    assert all(has_index) if shape != "no_index" else not any(has_index)
    if shape == "whole":
        assert len(parts) == 2
    if shape == "index0":
        assert {p["index"] for p in parts} == {0}
    if shape == "lmstudio":
        assert all(p["function"]["name"] == "" for p in parts if "id" not in p)
    assert events(raw)[-2]["choices"][0]["finish_reason"] == "tool_calls"


def test_status_reply_is_openai_shaped() -> None:
    with FakeLLM(
        [
            status(429, headers={"Retry-After": "3"}),
            status(400, code="context_length_exceeded", message="too long"),
        ]
    ) as fake:
        code, headers, raw = post(fake.base_url, stream_body())
        assert code == 429 and headers["Retry-After"] == "3"
        assert json.loads(raw)["error"]["type"] == "rate_limit_error"
        code, _, raw = post(fake.base_url, stream_body())
        assert code == 400
        assert json.loads(raw)["error"] == {
            "message": "too long",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
            "param": None,
        }


def test_exhausted_script_fails_loudly() -> None:
    with FakeLLM([text("one")]) as fake:
        post(fake.base_url, stream_body())
        code, headers, raw = post(fake.base_url, stream_body())
    assert code == 500 and headers["x-should-retry"] == "false"
    assert "fake script exhausted at request 2" in json.loads(raw)["error"]["message"]


def test_callable_script_sees_the_request() -> None:
    def script(body: dict[str, Any]) -> Any:
        names = {t["function"]["name"] for t in body.get("tools", [])}
        return text("coder" if "write-file" in names else "other")

    tools = [{"type": "function", "function": {"name": "write-file", "parameters": {}}}]
    with FakeLLM(script) as fake:
        _, _, raw = post(fake.base_url, {**stream_body(), "stream": False, "tools": tools})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "coder"
        _, _, raw = post(fake.base_url, {**stream_body(), "stream": False})
        assert json.loads(raw)["choices"][0]["message"]["content"] == "other"


def test_non_streaming_tool_calls_and_models() -> None:
    with FakeLLM(
        [tool_calls([call("ls", {"path": "."}, id="x")], text="looking")], models=("a", "b")
    ) as fake:
        _, _, raw = post(fake.base_url, {**stream_body(), "stream": False})
        with urllib.request.urlopen(fake.base_url + "/models", timeout=5) as resp:
            models = json.loads(resp.read())
    message = json.loads(raw)["choices"][0]["message"]
    assert message["content"] == "looking"
    assert message["tool_calls"][0]["function"] == {"name": "ls", "arguments": '{"path": "."}'}
    assert [m["id"] for m in models["data"]] == ["a", "b"]
    assert fake.paths == ["/v1/chat/completions", "/v1/models"]
    assert len(fake.requests) == 1


def test_reject_stream_options_flag() -> None:
    with FakeLLM([text("ok")], reject_stream_options=True) as fake:
        code, _, raw = post(fake.base_url, stream_body(stream_options={"include_usage": True}))
        assert code == 400 and "stream_options" in json.loads(raw)["error"]["message"]
        code, _, _ = post(fake.base_url, stream_body())
        assert code == 200
    assert len(fake.requests) == 2


def _raw_stream(base_url: str) -> tuple[bytes, bool]:
    """Read a stream with http.client; True when the body ended cleanly."""
    url = urlsplit(base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    conn.request(
        "POST",
        url.path + "/chat/completions",
        json.dumps(stream_body()),
        {"Content-Type": "application/json"},
    )
    resp = conn.getresponse()
    try:
        return resp.read(), True
    except http.client.IncompleteRead as err:
        return err.partial, False
    finally:
        conn.close()


def test_cut_drops_the_connection_without_finish() -> None:
    with FakeLLM([cut("partial text"), cut("abc", graceful=True)]) as fake:
        raw, clean = _raw_stream(fake.base_url)
        assert not clean
        assert b"partial text"[:4] in raw and b"[DONE]" not in raw
        assert b'"finish_reason":"' not in raw
        raw, clean = _raw_stream(fake.base_url)
        assert clean and b"[DONE]" not in raw and b'"finish_reason":"' not in raw


def test_sse_error_chunk() -> None:
    with FakeLLM([sse_error("overloaded", text="hi")]) as fake:
        _, _, raw = post(fake.base_url, stream_body())
    assert events(raw)[-1] == {
        "error": {"message": "overloaded", "type": "server_error", "code": None, "param": None}
    }


def test_fake_servers_helper_stops_everything() -> None:
    with fake_servers() as start:
        a = start([text("a")])
        b = start([text("b")])
        assert a.base_url != b.base_url
        url = a.base_url
    with pytest.raises(urllib.error.URLError):
        post(url, stream_body())


def test_long_markdown_is_deterministic_markdown() -> None:
    md = long_markdown(2_000)
    assert md == long_markdown(2_000)
    assert 2_000 <= len(md.split()) < 2_400
    assert md.startswith("## ") and "```python" in md and "**" in md and "\n- " in md
    assert len(long_markdown(20_000).split()) >= 20_000


@pytest.mark.e2e
def test_main_prints_base_url_and_serves_echo() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.fakes.server", "--port", "0", "--scenario", "echo"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        base_url = proc.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        _, _, raw = post(
            base_url,
            {
                **stream_body(),
                "stream": False,
                "messages": [{"role": "user", "content": "repeat me"}],
            },
        )
        assert json.loads(raw)["choices"][0]["message"]["content"] == "repeat me"
    finally:
        proc.terminate()
        proc.wait(timeout=5)
        reap(proc)

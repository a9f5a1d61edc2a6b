"""A fake OpenAI-compatible chat server on 127.0.0.1 that streams real SSE.

Tests drive zen's real HTTP stack against it instead of patching the openai client. A *script*
says what each request gets: a list of replies (used in order; a request past the end gets a loud
HTTP 500) or a callable `(request_body) -> Reply`. Every request is recorded.

    with FakeLLM([text("hello"), tool_calls([call("read-file", {"path": "a.py"})])]) as fake:
        client = ChatClient(ModelSettings(model="m", base_url=fake.base_url))
        ...
        assert len(fake.requests) == 2

`raw(...)` scripts exact bytes (odd SSE fields, bad UTF-8, wrong-typed chunks, a server that
drips a byte at a time); `llamacpp(script)` imitates llama-cpp-python's tool habits.

Run `python -m tests.fakes.server --scenario ok|long|echo|llamacpp` for benches and manual sessions;
the first stdout line is the base URL. Stdlib only, so it starts fast and runs anywhere.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Shape = Literal["openai", "whole", "no_index", "lmstudio", "index0"]
UsageSpec = tuple[int, int] | Literal["estimate"] | None

# ---------------------------------------------------------------------------------------------
# Replies


@dataclass(kw_only=True)
class Reply:
    delay: float = 0.0
    """Seconds to sleep before answering (slow servers, Ctrl-C, parallel agents)."""


@dataclass(kw_only=True)
class Text(Reply):
    content: str
    chunk: int = 4
    chunk_delay: float = 0.0
    reasoning: str | None = None
    reasoning_key: str = "reasoning_content"
    usage: UsageSpec = (10, 5)
    cached: int = 0
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Call:
    name: str
    args: dict[str, Any] | str
    id: str | int | None = None

    @property
    def arguments(self) -> str:
        return self.args if isinstance(self.args, str) else json.dumps(self.args)


@dataclass(kw_only=True)
class ToolCalls(Reply):
    calls: list[Call]
    content: str | None = None
    shape: Shape = "openai"
    chunk: int = 8
    chunk_delay: float = 0.0
    reasoning: str | None = None
    reasoning_key: str = "reasoning_content"
    usage: UsageSpec = (10, 5)
    cached: int = 0
    finish_reason: str = "tool_calls"


@dataclass(kw_only=True)
class Status(Reply):
    status: int
    message: str | None = None
    code: str | None = None
    type: str | None = None
    param: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: str | dict[str, Any] | None = None
    """Replaces the whole OpenAI-shaped error body when given."""


@dataclass(kw_only=True)
class Cut(Reply):
    content: str = "partial"
    chunk: int = 4
    graceful: bool = False
    """False: drop the connection mid-body. True: end the HTTP body cleanly, but with no
    finish_reason and no [DONE] (a stream that simply stops)."""


@dataclass(kw_only=True)
class SseError(Reply):
    message: str
    code: str | None = None
    content: str = ""
    """Text streamed before the error chunk."""


@dataclass(kw_only=True)
class Endless(Reply):
    content: str
    prefix: str = ""
    limit: float = 20.0


def endless(content: str, prefix: str = "", *, limit: float = 20.0) -> Endless:
    """`prefix`, then `content` streamed over and over until the client hangs up (counted in
    `aborted`), or, so that a failing test cannot hang, until `limit` seconds passed (then the
    answer ends normally)."""
    return Endless(content=content, prefix=prefix, limit=limit)


@dataclass(kw_only=True)
class Raw(Reply):
    parts: list[bytes]
    gap: float = 0.0
    per_byte: bool = False
    status: int = 200
    content_type: str = "text/event-stream"
    hang: float = 0.0


def raw(
    *parts: bytes,
    gap: float = 0.0,
    per_byte: bool = False,
    status: int = 200,
    content_type: str = "text/event-stream",
    hang: float = 0.0,
    delay: float = 0.0,
) -> Raw:
    """Exactly these body bytes (chunked, one write per part, or per byte with `per_byte`),
    `gap` seconds apart; then `hang` seconds of silence before the body ends. No parts: an
    empty 200 stream."""
    return Raw(
        parts=list(parts),
        gap=gap,
        per_byte=per_byte,
        status=status,
        content_type=content_type,
        hang=hang,
        delay=delay,
    )


@dataclass(frozen=True)
class Page:
    """A route's answer that is not JSON: an HTML page, a status of its own."""

    body: bytes
    status: int = 200
    content_type: str = "text/html"


@dataclass(frozen=True)
class Huge:
    """A route's answer: a model list of `megabytes` MB (a server with a huge /models)."""

    megabytes: int


def sse(*events: dict[str, Any] | list[Any] | str | bytes) -> bytes:
    """SSE bytes: each event as one `data:` line and a blank line (objects as JSON, str and
    bytes as they are)."""
    out = []
    for e in events:
        data = (
            e
            if isinstance(e, bytes)
            else (e.encode("utf-8") if isinstance(e, str) else json.dumps(e).encode("utf-8"))
        )
        out.append(b"data: " + data + b"\n\n")
    return b"".join(out)


def chunk_json(
    delta: dict[str, Any] | None = None, finish_reason: str | None = None, **extra: Any
) -> dict[str, Any]:
    """One chat.completion.chunk object (for `sse`); `extra` replaces top-level fields."""
    out: dict[str, Any] = {
        "id": "chatcmpl-raw",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "fake-model",
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish_reason}],
    }
    out.update(extra)
    return out


def llamacpp(script: Script) -> Callable[[dict[str, Any]], Reply]:
    """llama-cpp-python's habits around `script`: tools sent without `tool_choice` are
    dropped (a tool-call reply becomes text saying so), with `tool_choice` a streamed request
    gets an empty 200 stream (only unstreamed requests get the tool calls), and no usage
    is ever sent."""
    replies = script if callable(script) else list(script)

    def reply(body: dict[str, Any]) -> Reply:
        r = replies(body) if callable(replies) else replies.pop(0)
        if body.get("tools") and body.get("tool_choice") and body.get("stream"):
            return raw()
        if isinstance(r, ToolCalls) and not (body.get("tools") and body.get("tool_choice")):
            r = text("(the tools were dropped, so no tool was called)")
        if isinstance(r, (Text, ToolCalls)):
            r.usage = None
        return r

    return reply


def text(
    content: str,
    chunk: int = 4,
    reasoning: str | None = None,
    delay: float = 0.0,
    usage: UsageSpec = (10, 5),
    cached: int = 0,
    *,
    chunk_delay: float = 0.0,
    reasoning_key: str = "reasoning_content",
    finish_reason: str = "stop",
) -> Text:
    """A plain answer streamed in `chunk`-char pieces, reasoning deltas first.

    `usage`: (prompt, completion); "estimate" for chars/4 of the request and answer; None to
    send no usage chunk even when asked.
    """
    return Text(
        content=content,
        chunk=chunk,
        reasoning=reasoning,
        delay=delay,
        usage=usage,
        cached=cached,
        chunk_delay=chunk_delay,
        reasoning_key=reasoning_key,
        finish_reason=finish_reason,
    )


def call(name: str, args: dict[str, Any] | str | None = None, id: str | int | None = None) -> Call:
    """One tool call; `args` as a dict (sent as JSON) or a raw string (e.g. broken JSON).

    `id=None` gets `call_fake_<n>`; pass `""` or an int to imitate providers that do that.
    """
    return Call(name, {} if args is None else args, id)


def tool_calls(
    calls: list[Call],
    text: str | None = None,
    shape: Shape = "openai",
    reasoning: str | None = None,
    *,
    delay: float = 0.0,
    chunk: int = 8,
    chunk_delay: float = 0.0,
    usage: UsageSpec = (10, 5),
    cached: int = 0,
    finish_reason: str = "tool_calls",
    reasoning_key: str = "reasoning_content",
) -> ToolCalls:
    """A tool-call turn in one of the provider shapes.

    openai: id+name first, then argument fragments by index. whole: each call complete in one
    chunk (Ollama). no_index: like openai with no `index` field. lmstudio: continuation chunks
    carry `function.name: ""`. index0: every call at index 0, told apart only by id (vLLM).
    """
    return ToolCalls(
        calls=list(calls),
        content=text,
        shape=shape,
        reasoning=reasoning,
        delay=delay,
        chunk=chunk,
        chunk_delay=chunk_delay,
        usage=usage,
        cached=cached,
        finish_reason=finish_reason,
        reasoning_key=reasoning_key,
    )


_DEFAULT_MESSAGES = {
    400: "Bad request",
    401: "Incorrect API key provided",
    403: "Permission denied",
    404: "The model does not exist",
    429: "Rate limit reached, please try again later",
    500: "The server had an error while processing your request",
    502: "Bad gateway",
    503: "The engine is currently overloaded",
}


def status(
    code_: int,
    *,
    message: str | None = None,
    code: str | None = None,
    type: str | None = None,
    param: str | None = None,
    headers: dict[str, str] | None = None,
    body: str | dict[str, Any] | None = None,
    delay: float = 0.0,
) -> Status:
    """An HTTP error with an OpenAI-shaped body `{"error": {message, type, code, param}}`."""
    return Status(
        status=code_,
        message=message,
        code=code,
        type=type,
        param=param,
        headers=dict(headers or {}),
        body=body,
        delay=delay,
    )


def cut(
    text: str = "partial", *, chunk: int = 4, graceful: bool = False, delay: float = 0.0
) -> Cut:
    """Streams some content, then stops with no finish_reason and no [DONE]."""
    return Cut(content=text, chunk=chunk, graceful=graceful, delay=delay)


def sse_error(
    message: str, *, code: str | None = None, text: str = "", delay: float = 0.0
) -> SseError:
    """A `data: {"error": {...}}` chunk in the middle of a 200 stream."""
    return SseError(message=message, code=code, content=text, delay=delay)


Script = list[Reply] | Callable[[dict[str, Any]], Reply]

# ---------------------------------------------------------------------------------------------
# Wire format


def _pieces(s: str, n: int) -> list[str]:
    n = max(1, n)
    return [s[i : i + n] for i in range(0, len(s), n)] or []


def _estimate(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / 4)


def _last_user_text(body: dict[str, Any]) -> str:
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return "".join(p.get("text", "") for p in content if isinstance(p, dict))
            return str(content or "")
    return ""


class _Stream:
    """Writes one SSE response with HTTP/1.1 chunked encoding (so the connection stays
    reusable, as with real servers), coalescing writes when no pacing is asked for."""

    def __init__(self, handler: _Handler, model: str, paced: bool) -> None:
        self.handler = handler
        self.paced = paced
        self.buf: list[bytes] = []
        self.size = 0
        n = next(handler.fake._ids)
        self.prefix = (
            f'{{"id":"chatcmpl-fake-{n}","object":"chat.completion.chunk",'
            f'"created":{int(time.time())},"model":{json.dumps(model)},'
            '"system_fingerprint":null,"choices":'
        )

    def event(self, data: str) -> None:
        payload = b"data: " + data.encode("utf-8") + b"\n\n"
        self.buf.append(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.size += len(payload)
        if self.paced or self.size > 65536:
            self.flush()

    def choice(self, delta: dict[str, Any], finish_reason: str | None = None) -> None:
        fr = "null" if finish_reason is None else json.dumps(finish_reason)
        self.event(
            self.prefix
            + '[{"index":0,"delta":'
            + json.dumps(delta, separators=(",", ":"))
            + ',"logprobs":null,"finish_reason":'
            + fr
            + "}]}"
        )

    def content(self, piece: str) -> None:
        # the hot path of long streams: skip building a dict per chunk
        self.event(
            self.prefix
            + '[{"index":0,"delta":{"content":'
            + json.dumps(piece)
            + '},"logprobs":null,"finish_reason":null}]}'
        )

    def flush(self) -> None:
        if self.buf:
            self.handler.wfile.write(b"".join(self.buf))
            self.buf.clear()
            self.size = 0

    def end(self) -> None:
        self.buf.append(b"0\r\n\r\n")
        self.flush()


# ---------------------------------------------------------------------------------------------
# Server


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "FakeLLM/1.0"
    timeout = 60
    disable_nagle_algorithm = True  # small SSE writes would otherwise wait ~40 ms for ACKs
    fake: FakeLLM

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read `fake.paths`, not stderr."""

    def do_GET(self) -> None:
        self.fake._record_path(self.path, {k.lower(): v for k, v in self.headers.items()})
        if self._route():
            return
        path = self.path.split("?")[0].rstrip("/")
        if path.endswith("/models") and self.fake._serves_api(path):
            data = [
                {"id": m, "object": "model", "created": 0, "owned_by": self.fake.owned_by}
                for m in self.fake.models or ()
            ]
            if self.fake.context_window is not None:  # as vLLM says it
                for entry in data:
                    entry["max_model_len"] = self.fake.context_window
            self._json(200, {"object": "list", "data": data})
        else:
            self._json(404, _error_body(f"no route GET {self.path}", "invalid_request_error"))

    def _route(self) -> bool:
        """Answer from `fake.routes` (a server's own routes: llama.cpp's /props, Ollama's
        /api/show, a web page); False when none matches."""
        path = self.path.split("?")[0]
        route = self.fake.routes.get(path, self.fake.routes.get("*"))
        if route is None:
            return False
        if self.command == "POST":
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                self.rfile.read(length)
        if isinstance(route, Huge):
            self._huge(route)
        elif isinstance(route, Page):
            self._json(route.status, route.body, {"Content-Type": route.content_type})
        else:
            self._json(200, route)
        return True

    def _huge(self, route: Huge) -> None:
        """A model list of `route.megabytes` MB, written in 64 KB pieces as long as the client
        reads; the bytes it took are counted in `fake.huge_sent`."""
        entry = json.dumps({"id": "m" * 200, "object": "model", "owned_by": "x"}).encode() + b","
        piece = entry * (65536 // len(entry))
        total = route.megabytes * 1024 * 1024
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(total))
        self.end_headers()
        head = b'{"object": "list", "data": ['
        sent = 0
        try:
            self.wfile.write(head)
            sent = len(head)
            while sent + len(piece) <= total:
                self.wfile.write(piece)
                sent += len(piece)
                self.fake.huge_sent = sent
        except OSError:  # the client hung up: the point of the test
            self.close_connection = True

    def do_POST(self) -> None:
        self.fake._record_path(self.path, {k.lower(): v for k, v in self.headers.items()})
        if self._route():
            return
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        path = self.path.split("?")[0].rstrip("/")
        if not (path.endswith("/chat/completions") and self.fake._serves_api(path)):
            self._json(404, _error_body(f"no route POST {self.path}", "invalid_request_error"))
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError as exc:
            self._json(400, _error_body(f"body is not JSON: {exc}", "invalid_request_error"))
            return
        n = self.fake._record(body, {k.lower(): v for k, v in self.headers.items()})
        unanswered = _unanswered_calls(body) if self.fake.strict else []
        if unanswered:  # OpenAI's own words for a conversation it refuses
            self._json(
                400,
                _error_body(
                    "An assistant message with 'tool_calls' must be followed by tool messages "
                    "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                    f"response messages: {', '.join(unanswered)}",
                    "invalid_request_error",
                ),
            )
            return
        if self.fake.reject_stream_options and "stream_options" in body:
            self._json(
                400,
                _error_body(
                    "Unrecognized request argument supplied: stream_options",
                    "invalid_request_error",
                ),
            )
            return
        try:
            reply = self.fake._next_reply(body, n)
        except _ScriptProblem as exc:
            # x-should-retry: false tells clients retrying is pointless, so a test fails at once
            self._json(
                500,
                _error_body(str(exc), "server_error", "fake_script"),
                {"x-should-retry": "false"},
            )
            return
        if reply.delay:
            time.sleep(reply.delay)
        try:
            self._answer(reply, body)
        except (BrokenPipeError, ConnectionResetError):
            self.fake._note_abort()
            self.close_connection = True

    # -- answers --------------------------------------------------------------------------

    def _json(self, code: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode("utf-8")
        headers = dict(headers or {})
        self.send_response(code)
        self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _raw(self, reply: Raw) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        pieces = [bytes([b]) for p in reply.parts for b in p] if reply.per_byte else reply.parts
        for i, piece in enumerate(pieces):
            if i and reply.gap:
                time.sleep(reply.gap)
            if piece:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
        if reply.hang:
            time.sleep(reply.hang)
        self.wfile.write(b"0\r\n\r\n")
        self.close_connection = True

    def _answer(self, reply: Reply, body: dict[str, Any]) -> None:
        if isinstance(reply, Raw):
            self._raw(reply)
            return
        if isinstance(reply, Status):
            if isinstance(reply.body, str):
                payload: Any = reply.body.encode("utf-8")
            elif reply.body is not None:
                payload = reply.body
            else:
                message = reply.message or _DEFAULT_MESSAGES.get(reply.status, "error")
                payload = _error_body(
                    message, reply.type or _error_type(reply.status), reply.code, reply.param
                )
            self._json(reply.status, payload, reply.headers)
            return
        if not body.get("stream"):
            self._json(200, _completion(reply, body))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        paced = bool(getattr(reply, "chunk_delay", 0.0)) or isinstance(reply, Endless)
        out = _Stream(self, str(body.get("model", "fake-model")), paced)
        if isinstance(reply, Endless):
            self._endless(out, reply)
            return
        want_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        if isinstance(reply, (Text, ToolCalls)):
            self._stream_turn(out, reply, body, want_usage)
        elif isinstance(reply, Cut):
            out.choice({"role": "assistant", "content": ""})
            for piece in _pieces(reply.content, reply.chunk):
                out.content(piece)
            out.flush()
            if reply.graceful:
                out.end()
                self.close_connection = True
            else:
                self._drop()
        else:  # SseError
            out.choice({"role": "assistant", "content": ""})
            for piece in _pieces(reply.content, 4):
                out.content(piece)
            err = {
                "message": reply.message,
                "type": "server_error",
                "code": reply.code,
                "param": None,
            }
            out.event(json.dumps({"error": err}))
            out.end()

    def _stream_turn(
        self, out: _Stream, reply: Text | ToolCalls, body: dict[str, Any], want_usage: bool
    ) -> None:
        gap = reply.chunk_delay
        out.choice({"role": "assistant", "content": ""})
        steps: Iterator[None] = itertools.chain(
            self._reasoning(out, reply),
            self._content(out, reply),
            self._calls(out, reply) if isinstance(reply, ToolCalls) else iter(()),
        )
        for _ in steps:
            if gap:
                time.sleep(gap)
        out.choice({}, reply.finish_reason)
        if want_usage and reply.usage is not None:
            out.event(out.prefix + '[],"usage":' + json.dumps(_usage(reply, body)) + "}")
        out.event("[DONE]")
        out.end()

    @staticmethod
    def _reasoning(out: _Stream, reply: Text | ToolCalls) -> Iterator[None]:
        for piece in _pieces(reply.reasoning or "", reply.chunk):
            out.choice({"content": None, reply.reasoning_key: piece})
            yield

    @staticmethod
    def _content(out: _Stream, reply: Text | ToolCalls) -> Iterator[None]:
        for piece in _pieces(reply.content or "", reply.chunk):
            out.content(piece)
            yield

    def _calls(self, out: _Stream, reply: ToolCalls) -> Iterator[None]:
        shape = reply.shape
        for i, c in enumerate(reply.calls):
            call_id = self.fake._call_id() if c.id is None else c.id
            index = 0 if shape == "index0" else i
            head: dict[str, Any] = {"id": call_id, "type": "function"}
            if shape != "no_index":
                head = {"index": index, **head}
            if shape == "whole":
                head["function"] = {"name": c.name, "arguments": c.arguments}
                out.choice({"tool_calls": [head]})
                yield
                continue
            head["function"] = {"name": c.name, "arguments": ""}
            out.choice({"tool_calls": [head]})
            yield
            for piece in _pieces(c.arguments, reply.chunk):
                fn: dict[str, Any] = {"arguments": piece}
                if shape == "lmstudio":
                    fn = {"name": "", "arguments": piece}
                part: dict[str, Any] = {"function": fn}
                if shape != "no_index":
                    part = {"index": index, **part}
                out.choice({"tool_calls": [part]})
                yield

    def _endless(self, out: _Stream, reply: Endless) -> None:
        out.choice({"role": "assistant", "content": reply.prefix})
        ends = time.monotonic() + reply.limit
        while time.monotonic() < ends:
            out.content(reply.content)  # a write after the client hung up raises: aborted
        out.choice({}, "stop")
        out.event("[DONE]")
        out.end()

    def _drop(self) -> None:
        """Close the socket mid-body, like a proxy or server dying."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _unanswered_calls(body: dict[str, Any]) -> list[str]:
    """Ids of tool calls not answered by the tool messages right after their assistant
    message: what OpenAI and most compatible servers reject with a 400."""
    messages = body.get("messages") or []
    missing: list[str] = []
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        wanted = [c.get("id") for c in message.get("tool_calls") or [] if isinstance(c, dict)]
        answered = set()
        for later in messages[i + 1 :]:
            if not isinstance(later, dict) or later.get("role") != "tool":
                break
            answered.add(later.get("tool_call_id"))
        missing += [str(w) for w in wanted if w not in answered]
    return missing


def _error_type(code: int) -> str:
    if code == 401:
        return "invalid_api_key"
    if code == 429:
        return "rate_limit_error"
    if code >= 500:
        return "server_error"
    return "invalid_request_error"


def _error_body(
    message: str, type_: str, code: str | None = None, param: str | None = None
) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "code": code, "param": param}}


def _usage(reply: Text | ToolCalls, body: dict[str, Any]) -> dict[str, Any]:
    if reply.usage == "estimate":
        sent = json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", []))
        answer = (reply.content or "") + (reply.reasoning or "")
        if isinstance(reply, ToolCalls):
            answer += "".join(c.name + c.arguments for c in reply.calls)
        prompt, completion = _estimate(sent), _estimate(answer)
    else:
        assert reply.usage is not None
        prompt, completion = reply.usage
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": reply.cached},
    }


def _completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    """The non-streaming answer (`stream: false`)."""
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    usage: dict[str, Any] | None = None
    if isinstance(reply, (Text, ToolCalls)):
        message["content"] = reply.content
        if reply.reasoning:
            message[reply.reasoning_key] = reply.reasoning
        finish = reply.finish_reason
        usage = _usage(reply, body) if reply.usage is not None else None
    elif isinstance(reply, (Cut, SseError)):
        message["content"] = reply.content
    if isinstance(reply, ToolCalls):
        message["tool_calls"] = [
            {
                "id": c.id if c.id is not None else f"call_fake_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": c.arguments},
            }
            for i, c in enumerate(reply.calls)
        ]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": usage,
    }


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that hangs up (Ctrl-C tests) is expected; anything else is printed."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        super().handle_error(request, client_address)


class FakeLLM:
    """The fake server. A context manager, or `start()`/`stop()` by hand.

    Records, in arrival order: `requests` (JSON bodies of chat-completion POSTs),
    `request_headers` (lower-cased, parallel to `requests`), `paths` (every request's path,
    including GET /v1/models). `aborted` counts streams the client hung up on.
    """

    def __init__(
        self,
        script: Script,
        *,
        reject_stream_options: bool = False,
        models: tuple[str, ...] | None = ("fake-model",),
        port: int = 0,
        context_window: int | None = None,
        strict: bool = False,
        host: str = "127.0.0.1",
        owned_by: str = "fake",
        routes: dict[str, Any] | None = None,
        v1_only: bool = False,
    ) -> None:
        self.script = script if callable(script) else list(script)
        self.host = host
        """Where it listens: another loopback address or this machine's LAN address plays a
        server elsewhere."""
        self.owned_by = owned_by
        """`owned_by` of every listed model: how servers mark their lists (`llamacpp`, `me`,
        `vllm`, `organization_owner`, `library`)."""
        self.routes: dict[str, Any] = dict(routes or {})
        """Exact paths (or "*": everything) answered with JSON, a `Page` or a `Huge` list,
        before the OpenAI routes (see tests/fakes/personas.py)."""
        self.v1_only = v1_only
        """Serve /models and /chat/completions only under /v1, as Ollama and llama.cpp do
        (a base URL without /v1 gets their 404s)."""
        self.huge_sent = 0
        """Bytes of a `Huge` body the client read before it hung up."""
        self.get_headers: list[dict[str, str]] = []
        """Headers of every request, GETs included (parallel to `paths`)."""
        self.strict = strict
        """Answer 400 to a conversation whose tool calls lack results, as OpenAI does."""
        self.reject_stream_options = reject_stream_options
        self.models = models
        """Served model ids; None: GET /models answers 404."""
        self.context_window = context_window
        """Reported as `max_model_len` in GET /v1/models, as vLLM does."""
        self.port = port
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self.paths: list[str] = []
        self.aborted = 0
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._call_ids = itertools.count(1)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._server is not None, "FakeLLM is not started"
        return f"http://{self.host}:{self._server.server_address[1]}/v1"

    @property
    def root(self) -> str:
        """The base URL without /v1 (Ollama's native URL, llama.cpp's own)."""
        return self.base_url[: -len("/v1")]

    @property
    def remaining(self) -> int:
        """Scripted replies not yet used (0 for a callable script)."""
        return len(self.script) if isinstance(self.script, list) else 0

    def start(self) -> FakeLLM:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._server = _Server((self.host, self.port), handler)
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="fake-llm",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- used by the handler threads ------------------------------------------------------

    def _record_path(self, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.paths.append(path)
            self.get_headers.append(headers)

    def _serves_api(self, path: str) -> bool:
        """The OpenAI routes answer at `path` (only under /v1 when `v1_only`)."""
        if self.models is None and path.endswith("/models"):
            return False
        return not self.v1_only or path.startswith("/v1/")

    def _record(self, body: dict[str, Any], headers: dict[str, str]) -> int:
        with self._lock:
            self.requests.append(body)
            self.request_headers.append(headers)
            return len(self.requests)

    def _note_abort(self) -> None:
        with self._lock:
            self.aborted += 1

    def _call_id(self) -> str:
        return f"call_fake_{next(self._call_ids)}"

    def _next_reply(self, body: dict[str, Any], n: int) -> Reply:
        """The reply for request `n`; `_ScriptProblem` when the script has none to give."""
        script = self.script
        if isinstance(script, list):
            with self._lock:
                if not script:
                    raise _ScriptProblem(f"fake script exhausted at request {n}")
                return script.pop(0)
        try:
            reply = script(body)
        except Exception as exc:  # the test's own callable broke: say so loudly
            raise _ScriptProblem(
                f"fake script raised at request {n}: {type(exc).__name__}: {exc}"
            ) from exc
        if not isinstance(reply, Reply):
            raise _ScriptProblem(f"fake script returned {reply!r} at request {n}, not a Reply")
        return reply


class _ScriptProblem(Exception):
    """The script had no reply for a request; answered as a loud, non-retryable 500."""


@contextmanager
def fake_servers() -> Iterator[Callable[..., FakeLLM]]:
    """Backs a pytest fixture that starts any number of servers and stops them all:

    @pytest.fixture
    def fake_llm():
        with fake_servers() as start:
            yield start          # in a test: fake = fake_llm([text("hi")])
    """
    started: list[FakeLLM] = []

    def start(script: Script, **kwargs: Any) -> FakeLLM:
        fake = FakeLLM(script, **kwargs).start()
        started.append(fake)
        return fake

    try:
        yield start
    finally:
        for fake in started:
            fake.stop()


# ---------------------------------------------------------------------------------------------
# Long markdown (bench) and the command line

_PROSE = (
    "the agent opens a file reads the failing test changes one function and runs the suite "
    "again keeping every edit small so the diff stays easy to review before it is committed"
)
_WORDS = _PROSE.split(" ")


def _sentence_words(seed: int, n: int) -> list[str]:
    return [_WORDS[(seed * 5 + k * 3) % len(_WORDS)] for k in range(n)]


def _paragraph(seed: int, n: int = 56) -> str:
    words = _sentence_words(seed, n)
    words[0] = words[0].capitalize()
    words[4] = f"**{words[4]}**"
    words[11] = f"`{words[11]}()`"
    words[19] = f"*{words[19]}*"
    return " ".join(words) + "."


def _fence(seed: int) -> str:
    return "\n".join(
        [
            "```python",
            f"def fix_{seed}(path: str, attempts: int = 3) -> int:",
            f'    """Patch {{path}} and re-run the tests (part {seed})."""',
            "    for attempt in range(attempts):",
            "        source = read(path)",
            f"        source = source.replace('bug_{seed}', 'fix_{seed}')",
            "        write(path, source)",
            "        if run_tests() == 0:",
            "            return attempt",
            "    raise RuntimeError('still failing')",
            "```",
        ]
    )


def long_markdown(words: int) -> str:
    """A deterministic markdown answer of at least `words` words: headings, paragraphs with
    inline bold/code/italic, bullet lists and ```python fences (a render benchmark's load)."""
    parts: list[str] = []
    count = 0
    section = 0
    while count < words:
        section += 1
        blocks = [f"## {section}. Step {section} of the plan"]
        blocks += [_paragraph(section * 3 + j) for j in range(3)]
        blocks.append(
            "\n".join(
                f"- point {k + 1}: " + " ".join(_sentence_words(section + k, 10)) for k in range(4)
            )
        )
        blocks.append(_fence(section))
        for block in blocks:
            count += len(block.split())
        parts.extend(blocks)
    return "\n\n".join(parts) + "\n"


def _scenario(name: str, words: int, chunk: int) -> Callable[[dict[str, Any]], Reply]:
    if name == "ok":
        return lambda body: text("ok", usage="estimate")
    if name == "echo":
        return lambda body: text(_last_user_text(body) or "(no user message)", usage="estimate")
    if name == "long":
        answer = long_markdown(words)
        return lambda body: text(answer, chunk=chunk, usage="estimate")
    if name == "llamacpp":

        def first_tool_then_echo(body: dict[str, Any]) -> Reply:
            if body.get("tools") and (body.get("messages") or [{}])[-1].get("role") == "user":
                return tool_calls([call("glob", {"pattern": "*"})])
            return text(_last_user_text(body) or "(no user message)")

        return llamacpp(first_tool_then_echo)
    raise SystemExit(f"unknown scenario {name!r} (ok, long, echo, llamacpp)")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Fake OpenAI-compatible chat server.")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--scenario", default="ok", choices=("ok", "long", "echo", "llamacpp"))
    parser.add_argument("--words", type=int, default=20_000, help="length of the long answer")
    parser.add_argument("--chunk", type=int, default=4, help="characters per content chunk")
    args = parser.parse_args(argv)
    fake = FakeLLM(_scenario(args.scenario, args.words, args.chunk), port=args.port).start()
    print(fake.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()


if __name__ == "__main__":
    main()

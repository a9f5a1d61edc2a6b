"""One attempt's answer, byte by byte: send the request, feed the body to the accumulator.

The SDK's SSE parser fails on legal streams (`retry:`, `event: ping`, empty `data:`) and on
one bad byte, so zen reads the raw body itself (`llm/sse.py`) and hangs up at `[DONE]`. An
unstreamed answer (`stream_tools: false`) is read whole, up to `MAX_BODY`, and folded in as
one chunk. The reader records each byte's arrival in `Progress` for the deadline watcher
(`llm/deadlines.py`). What can go wrong in the body becomes a `Retryable` (malformed chunk,
dropped connection, empty stream) or one `LLMError` line (an error object mid-stream); the
SDK's own errors pass through for `llm/errors.classify`.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Iterable
from typing import Any

from zen.base.events import Emit, Event
from zen.base.redaction import scrub
from zen.llm.accumulator import StreamAccumulator, StreamError, completion_as_chunk
from zen.llm.deadlines import Progress
from zen.llm.errors import one_line
from zen.llm.repetition import RepetitionGuard
from zen.llm.retry import Retryable
from zen.llm.sse import DONE, Malformed, SseDecoder, parse_payload
from zen.llm.types import LLMError

MAX_BODY = 32 * 1024 * 1024
"""An unstreamed answer larger than this is refused: memory stays bounded."""


async def read(
    create: Callable[..., Any],
    request: dict[str, Any],
    acc: StreamAccumulator,
    emit: Emit,
    progress: Progress,
    guard: RepetitionGuard | None = None,
) -> None:
    """Send `request` through the SDK's `create` and feed the answer's bytes to `acc`; hang up
    early when `guard` sees the answer repeat itself."""
    clock = asyncio.get_running_loop().time
    try:
        async with create(**request) as response:
            progress.started = True
            http = response.http_response
            kind = http.headers.get("content-type", "")
            sse = "event-stream" in kind or (request["stream"] and "json" not in kind)
            decoder = SseDecoder() if sse else None
            body: list[bytes] = []
            size = 0
            async for piece in http.aiter_bytes():
                progress.last = clock()
                if decoder is None:
                    size += len(piece)
                    if size > MAX_BODY:
                        raise Malformed(f"the answer is larger than {MAX_BODY >> 20} MB")
                    body.append(piece)
                elif feed(decoder.feed(piece), acc, emit, guard):
                    return  # [DONE] or a runaway: hang up rather than read on
            if decoder is None:
                chunk = completion_as_chunk(parse_payload(b"".join(body)))
                passed(acc.feed(chunk), emit, guard)
                return
            feed(decoder.finish(), acc, emit, guard)
            if not decoder.saw_data:
                raise Retryable(empty_stream(request), kind="empty")
    except Malformed as exc:
        raise Retryable(str(exc)) from None
    except StreamError as exc:
        raise LLMError(
            f"the model server reported an error mid-stream: {scrub(one_line(str(exc)))}"
        ) from None
    except transport_errors() as exc:
        detail = scrub(str(exc)) or type(exc).__name__
        raise Retryable(f"the connection dropped mid-stream ({detail})") from None


def feed(
    payloads: list[bytes],
    acc: StreamAccumulator,
    emit: Emit,
    guard: RepetitionGuard | None = None,
) -> bool:
    """Feed complete events; True at `[DONE]`, or when `guard` stopped a runaway answer."""
    for payload in payloads:
        if payload == DONE:
            return True
        if passed(acc.feed(parse_payload(payload)), emit, guard):
            return True
    return False


def passed(events: Iterable[Event], emit: Emit, guard: RepetitionGuard | None) -> bool:
    """Emit `events`; True as soon as `guard` says the answer runs away."""
    for event in events:
        emit(event)
        if guard is not None and guard.watch(event):
            return True
    return False


def empty_stream(request: dict[str, Any]) -> str:
    """Why an empty stream (HTTP 200, no data) failed, and the setting that may fix it."""
    reason = "the server sent an empty stream (HTTP 200, no data)"
    if request.get("tools"):
        reason += (
            "; if it cannot stream tool calls (llama-cpp-python cannot), set "
            "`stream_tools: false` in the config"
        )
    return reason


@functools.cache
def transport_errors() -> tuple[type[BaseException], ...]:
    """What the HTTP stack raises while a body is read (the SDK maps only the request)."""
    try:
        from openai._httpx2 import request_exceptions  # the SDK's own list

        return (*request_exceptions(), OSError)
    except ImportError:  # an SDK without it: its httpx is the one to catch
        import httpx

        return (httpx.TransportError, OSError)

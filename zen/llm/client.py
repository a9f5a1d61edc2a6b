"""One chat turn against any OpenAI-compatible endpoint: deadlines, retries, raw SSE.

The SDK retries only before a stream starts, knows nothing of provider habits, and its SSE
parser fails on legal streams (`retry:`, `event: ping`, empty `data:`) and on one bad byte.
So its retries are off (`max_retries=0`), zen reads the raw body itself (`llm/sse.py`), and
this module owns the single retry loop: 429/5xx, dropped connections, malformed chunks and
streams that stop before a finish_reason are retried with backoff (honouring a sane
Retry-After); a request that hit a deadline, an empty stream and a refused connection are
retried once; everything else becomes one clear `LLMError` line.

Every attempt runs under four deadlines (`Deadlines`): connect, first byte, the longest
silence inside a stream, and a total that stops a server dripping a byte at a time. Any wait
past two seconds is announced with `Waiting` events, about once a second.
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zen.base.events import Emit, Notice, Retrying, Usage, Waiting
from zen.base.redaction import remember, scrub
from zen.llm.accumulator import StreamAccumulator, StreamError, completion_as_chunk
from zen.llm.sse import DONE, Malformed, SseDecoder, parse_payload
from zen.llm.types import AssistantTurn, LLMError
from zen.settings import providers

if TYPE_CHECKING:
    from zen.llm.pricing import Price
    from zen.settings.schema import ModelSettings

TRUNCATION_RATIO = 0.7
"""Reported prompt tokens under this share of the estimate: the server cut the conversation."""
MAX_RETRY_AFTER = 120.0
"""A server asking for a longer wait than this gets a clear error instead of a silent hang."""
WAIT_NOTICE = 2.0
"""A wait longer than this is announced (`Waiting`)."""
MAX_BODY = 32 * 1024 * 1024
"""An unstreamed answer larger than this is refused: memory stays bounded."""
ONCE = {"deadline": 1, "empty": 1, "refused": 1}
"""Failures retried at most once whatever `retries` says: a silent server must not cost
`retries` × `first_byte_timeout`, and an empty stream is a setting, not bad luck."""

_OVERFLOW = re.compile(
    r"context_length_exceeded|prompt is too long|exceeds the context window"
    r"|maximum context length is \d+ tokens|exceeds the available context size"
    r"|greater than the context length|exceeded model token limit"
    r"|prompt too long; exceeded max context length|too many tokens"
    r"|context length exceeded|input is too long",
    re.IGNORECASE,
)
_THROTTLE = re.compile(r"rate limit|too many requests|throttl", re.IGNORECASE)


class ContextLengthError(LLMError):
    """The conversation no longer fits the model's window: compacting can fix it, retrying can't."""


class _Retryable(Exception):
    """An attempt failed in a way a later attempt may not."""

    def __init__(
        self, reason: str, retry_after: float | None = None, kind: str = "default"
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.kind = kind
        """Which budget it counts against: "default" (`retries`) or one in `ONCE`."""


@dataclass(frozen=True)
class Deadlines:
    """Seconds one model request may take, by phase (config keys `connect_timeout`,
    `first_byte_timeout`, `idle_timeout`, `timeout`)."""

    connect: float = 10.0
    first_byte: float = 300.0
    idle: float = 120.0
    total: float = 900.0
    notice: float = WAIT_NOTICE
    """A wait longer than this is announced with `Waiting` events."""


class _Progress:
    """What the reader has seen, for the watcher: when the attempt began, the last byte."""

    __slots__ = ("start", "last", "noticed")

    def __init__(self, start: float) -> None:
        self.start = start
        self.last: float | None = None
        self.noticed = 0.0


class _StreamOptionsRejected(Exception):
    """The provider refuses `stream_options`; ask again without it."""


def is_context_overflow(message: str, code: str | None = None) -> bool:
    """True when a provider's error says the prompt is over the context window."""
    if code == "context_length_exceeded":
        return True
    if _THROTTLE.search(message):
        return False  # "too many tokens per minute" is throttling, not overflow
    return bool(_OVERFLOW.search(message))


def backoff(attempt: int) -> float:
    """0.5 s · 2^(attempt-1), capped at 8 s, minus up to 25 % jitter (attempt counts from 1)."""
    return min(0.5 * 2 ** (attempt - 1), 8.0) * (1.0 - 0.25 * random.random())


class ChatClient:
    """Streams chat turns for one model role (settings), emitting events as text arrives."""

    def __init__(
        self,
        settings: ModelSettings,
        *,
        retries: int = 4,
        deadlines: Deadlines | None = None,
        price: Price | None = None,
    ) -> None:
        import openai  # lazy: ~0.3 s of imports that `zen --version` must not pay

        self.settings = settings
        self.price = price
        """USD per million tokens, when known: each Usage event carries its request's cost."""
        remember(settings.api_key)  # a server echoing it back (401 bodies do) is scrubbed
        self.retries = retries
        self.deadlines = deadlines or Deadlines()
        self.provider = _provider(settings)
        self.echo_reasoning: bool = self.provider.echo_reasoning
        """Send `reasoning_content` back on assistant turns with tool calls."""
        self._stream_usage = self.provider.stream_usage
        self._warned_truncation = False
        self._openai = openai
        self._transport_errors = _transport_errors()
        d = self.deadlines
        longest = max(d.first_byte, d.idle, d.total)
        self._client = openai.AsyncOpenAI(
            # the SDK insists on a key; local servers ignore it, remote ones answer 401
            api_key=settings.api_key or "no-key",
            base_url=settings.base_url,
            max_retries=0,
            # zen's watcher enforces the real deadlines; these only back it up
            timeout=openai.Timeout(longest + 5.0, connect=d.connect),
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], emit: Emit, agent: str
    ) -> AssistantTurn:
        """One assistant turn. Raises LLMError (one line) when retrying cannot help.

        After a failed attempt a `Retrying` event tells front-ends to drop what that attempt
        showed; the returned turn holds only the successful attempt.
        """
        attempt = 0
        failures: Counter[str] = Counter()
        while True:
            try:
                return await self._attempt(messages, tools, emit, agent)
            except _StreamOptionsRejected:
                self._stream_usage = False
                continue
            except _Retryable as failure:
                attempt += 1
                failures[failure.kind] += 1
                allowed = min(self.retries, ONCE.get(failure.kind, self.retries))
                if failures[failure.kind] > allowed:
                    tries = "attempt" if attempt == 1 else "attempts"
                    raise LLMError(
                        f"model request failed after {attempt} {tries}: {failure.reason}"
                    ) from None
                delay = failure.retry_after
                if delay is None:
                    delay = backoff(attempt)
                emit(Retrying(agent=agent, attempt=attempt, delay=delay, reason=failure.reason))
                await self._pause(delay, emit, agent)

    async def _pause(self, delay: float, emit: Emit, agent: str) -> None:
        """Sleep before a retry, announcing a long one about once a second."""
        notice = self.deadlines.notice
        if delay <= notice:
            await asyncio.sleep(delay)
            return
        loop = asyncio.get_running_loop()
        start = loop.time()
        end = start + delay
        await asyncio.sleep(notice)
        while (now := loop.time()) < end:
            emit(Waiting(agent=agent, what="retry", elapsed=now - start, limit=delay))
            await asyncio.sleep(min(1.0, notice, end - now))

    def _request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
    ) -> dict[str, Any]:
        s = self.settings
        stream = s.stream_tools or not tools
        kwargs: dict[str, Any] = {"model": s.model, "messages": messages, "stream": stream}
        if tools:
            kwargs["tools"] = tools
            if not s.stream_tools:
                kwargs["tool_choice"] = "auto"  # llama-cpp-python drops tools without it
        if stream and self._stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        if s.max_tokens is not None:
            kwargs["max_tokens"] = s.max_tokens
        return kwargs

    async def _attempt(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], emit: Emit, agent: str
    ) -> AssistantTurn:
        request = self._request(messages, tools)
        acc = StreamAccumulator(agent)
        progress = _Progress(asyncio.get_running_loop().time())
        reader = asyncio.ensure_future(self._read(request, acc, emit, progress))
        try:
            await self._watch(reader, progress, emit, agent, request["stream"])
        finally:
            if not reader.done():
                reader.cancel()  # also on cancellation: hang up, don't drain
                await asyncio.gather(reader, return_exceptions=True)
        if not acc.complete:
            raise _Retryable("the stream ended before the answer was complete")
        turn = acc.finish()
        u = turn.usage
        if not acc.saw_usage:
            u.prompt_tokens = prompt_estimate(messages, tools)
            u.completion_tokens = estimate_tokens(
                turn.content, turn.reasoning, *(c.name + c.arguments for c in turn.tool_calls)
            )
            u.estimated = True
        cost = (
            self.price.cost(u.prompt_tokens, u.completion_tokens, u.cached_tokens)
            if self.price is not None
            else None
        )
        emit(
            Usage(
                agent=agent,
                prompt_tokens=u.prompt_tokens,
                completion_tokens=u.completion_tokens,
                cached_tokens=u.cached_tokens,
                estimated=u.estimated,
                cost_usd=cost,
            )
        )
        if not u.estimated:
            self._check_truncation(messages, tools, u.prompt_tokens, emit, agent)
        return turn

    async def _watch(
        self,
        reader: asyncio.Future[None],
        progress: _Progress,
        emit: Emit,
        agent: str,
        streamed: bool,
    ) -> None:
        """Wait for the reader under the deadlines; announce long waits; cancel and raise a
        `_Retryable` naming the setting when one passes."""
        d = self.deadlines
        total = d.total
        first = min(d.first_byte, total) if streamed else total  # unstreamed: all at the end
        idle = min(d.idle, total)
        tick = min(1.0, d.notice)  # announce about once a second (faster only in tests)
        loop = asyncio.get_running_loop()
        start = progress.start
        while True:
            now = loop.time()
            last = progress.last
            since, quiet_limit = (start, first) if last is None else (last, idle)
            if now >= since + quiet_limit:
                if last is None:
                    binding = (
                        "first_byte_timeout" if streamed and d.first_byte <= total else "timeout"
                    )
                    reason = f"no answer within {first:g} s of the request ({binding})"
                else:
                    reason = f"the stream stalled for {idle:g} s (idle_timeout)"
                raise _Retryable(reason, kind="deadline")
            if now >= start + total:
                raise _Retryable(
                    f"the answer took longer than {total:g} s (timeout)", kind="deadline"
                )
            if now - since >= d.notice and now - progress.noticed >= 0.95 * tick:
                progress.noticed = now
                what = (
                    ("the model's first token" if streamed else "the model's answer")
                    if last is None
                    else "more of the model's answer"
                )
                emit(Waiting(agent=agent, what=what, elapsed=now - since, limit=quiet_limit))
            wake = min(
                start + total, since + quiet_limit, max(since + d.notice, progress.noticed + tick)
            )
            done, _ = await asyncio.wait({reader}, timeout=max(0.0, wake - now))
            if done:
                reader.result()  # raises what the reader raised
                return

    async def _read(
        self, request: dict[str, Any], acc: StreamAccumulator, emit: Emit, progress: _Progress
    ) -> None:
        """Send the request and feed the answer's bytes to the accumulator."""
        started = False
        clock = asyncio.get_running_loop().time
        try:
            create = self._client.chat.completions.with_streaming_response.create
            async with create(**request) as response:
                started = True
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
                    elif self._feed(decoder.feed(piece), acc, emit):
                        return  # [DONE]: hang up rather than wait for the server to close
                if decoder is None:
                    chunk = completion_as_chunk(parse_payload(b"".join(body)))
                    for event in acc.feed(chunk):
                        emit(event)
                    return
                self._feed(decoder.finish(), acc, emit)
                if not decoder.saw_data:
                    raise _Retryable(self._empty_stream(request), kind="empty")
        except self._openai.APIError as exc:
            raise self._classify(exc, started) from exc
        except Malformed as exc:
            raise _Retryable(str(exc)) from None
        except StreamError as exc:
            raise LLMError(
                f"the model server reported an error mid-stream: {scrub(_one_line(str(exc)))}"
            ) from None
        except self._transport_errors as exc:
            detail = scrub(str(exc)) or type(exc).__name__
            raise _Retryable(f"the connection dropped mid-stream ({detail})") from None

    @staticmethod
    def _feed(payloads: list[bytes], acc: StreamAccumulator, emit: Emit) -> bool:
        """Feed complete events; True at `[DONE]`."""
        for payload in payloads:
            if payload == DONE:
                return True
            for event in acc.feed(parse_payload(payload)):
                emit(event)
        return False

    def _empty_stream(self, request: dict[str, Any]) -> str:
        reason = "the server sent an empty stream (HTTP 200, no data)"
        if request.get("tools"):
            reason += (
                "; if it cannot stream tool calls, set `stream_tools: false` in the config "
                "(llama-cpp-python: --provider llamacpp)"
            )
        return reason

    def _check_truncation(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        reported: int,
        emit: Emit,
        agent: str,
    ) -> None:
        """Warn once when the server counted far fewer prompt tokens than were sent.

        Ollama's OpenAI endpoint silently keeps only its `num_ctx` (2-4k tokens by default):
        the model then answers without the start of the conversation, and nothing says so.
        The estimate (UTF-8 bytes / 4) is the one shown when a server sends no usage.
        """
        if self._warned_truncation or reported <= 0:
            return
        schemas = estimate_tokens(json.dumps(tools)) if tools else 0
        if schemas >= 300 and reported < schemas * TRUNCATION_RATIO:
            # fewer tokens than the tool definitions alone: they never reached the model
            self._warned_truncation = True
            emit(
                Notice(
                    agent=agent,
                    text=(
                        f"the server counted {reported:,} prompt tokens, fewer than the "
                        f"tool definitions alone (about {schemas:,}): it probably dropped the "
                        "tools, so the model cannot use them (llama-cpp-python: "
                        "--provider llamacpp; llama.cpp: --jinja and a chat template with "
                        "tool support)"
                    ),
                    level="warning",
                )
            )
            return
        estimate = prompt_estimate(messages, tools)
        if estimate >= 2000 and reported < estimate * TRUNCATION_RATIO:
            self._warned_truncation = True
            emit(
                Notice(
                    agent=agent,
                    text=(
                        f"the server counted {reported:,} prompt tokens for about "
                        f"{estimate:,} sent: it is probably cutting the conversation to fit a "
                        "small context window (Ollama: raise num_ctx in a Modelfile or set "
                        "OLLAMA_CONTEXT_LENGTH)"
                    ),
                    level="warning",
                )
            )

    def _classify(self, exc: Exception, started: bool) -> Exception:
        """Map an SDK error to a retry, a stream_options fallback, or one clear LLMError."""
        openai = self._openai
        if isinstance(exc, openai.APITimeoutError):
            return _Retryable("the request timed out", kind="deadline")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({scrub(str(cause))})" if cause and str(cause) else ""
            if started:
                return _Retryable(f"the connection dropped mid-stream{detail}")
            return _Retryable(
                f"could not connect to {self.settings.base_url}{detail}", kind="refused"
            )
        if not isinstance(exc, openai.APIStatusError):
            return LLMError(f"the model server failed: {_message(exc)}")
        code = exc.status_code
        message = _message(exc)
        said = f" (HTTP {code}: {message})" if message else f" (HTTP {code})"
        headers = exc.response.headers
        if code == 400 and "stream_options" in message and self._stream_usage:
            return _StreamOptionsRejected()
        if code == 429 and exc.code == "insufficient_quota":
            return LLMError(f"quota exhausted for this API key{said}")
        if code in (408, 409, 429) or code >= 500:
            if headers.get("x-should-retry") == "false":  # the server says it won't help
                return LLMError(f"model request failed{said}")
            retry_after = _retry_after(headers)
            if retry_after is not None and retry_after > MAX_RETRY_AFTER:
                return LLMError(
                    f"the server asks to wait {retry_after:.0f} s before retrying{said}"
                )
            what = "rate limited" if code == 429 else "server error"
            return _Retryable(f"{what}{said}", retry_after)
        if code in (401, 403):
            return LLMError(f"authentication failed{said} — check your API key")
        if code == 404:
            return LLMError(
                f"model {self.settings.model!r} not found at {self.settings.base_url}{said}"
            )
        if is_context_overflow(message, exc.code):
            return ContextLengthError(
                f"the conversation is longer than the model's context{said} — start a new one "
                "(/clear in the shell) or pick a model with a longer context"
            )
        return LLMError(f"the model server rejected the request{said}")


def estimate_tokens(*texts: str) -> int:
    """Tokens in `texts` by zen's rule of thumb: UTF-8 bytes / 4 (close to o200k on code and
    English prose; the server's own count replaces it once a reply reports usage)."""
    size = sum(len(t.encode("utf-8", "replace")) for t in texts)
    return math.ceil(size / 4)


def prompt_estimate(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> int:
    """Estimated prompt tokens of one request: message texts, call arguments, tool schemas."""
    parts = [str(m.get("content") or "") for m in messages]
    parts += [c["function"]["arguments"] for m in messages for c in m.get("tool_calls") or ()]
    if tools:
        parts.append(json.dumps(tools))
    return estimate_tokens(*parts)


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."


def _transport_errors() -> tuple[type[BaseException], ...]:
    """What the HTTP stack raises while a body is read (the SDK maps only the request)."""
    try:
        from openai._httpx2 import request_exceptions  # the SDK's own list

        return (*request_exceptions(), OSError)
    except ImportError:  # an SDK without it: its httpx is the one to catch
        import httpx

        return (httpx.TransportError, OSError)


def _provider(settings: ModelSettings) -> providers.Provider:
    """The named preset, unless that is the default "openai" and the URL says otherwise
    (provider "openai" pointed at api.deepseek.com still needs DeepSeek's habits)."""
    named = providers.PROVIDERS.get(settings.provider)
    if named is None or named.name == "openai":
        return providers.detect(settings.base_url)
    return named


def _message(exc: Any) -> str:
    """The provider's own words, on one line."""
    body = exc.body
    text = ""
    if isinstance(body, dict):
        raw = body.get("message") or body.get("error") or ""
        text = raw if isinstance(raw, str) else str(raw)
    elif isinstance(body, str):
        text = body
    if not text:
        text = exc.message or ""
        text = re.sub(r"^Error code: \d+( - )?", "", text)
    text = scrub(" ".join(text.split()))
    return text if len(text) <= 300 else text[:297] + "..."


def _retry_after(headers: Any) -> float | None:
    """Seconds the server asked us to wait (`retry-after-ms`, or `Retry-After` seconds/date).

    A negative, non-finite or unreadable value is no answer (backoff applies): `-5` must not
    mean three requests in 50 ms. Too long a wait is refused by the caller."""
    ms = headers.get("retry-after-ms")
    if ms:
        seconds = _seconds(ms, 1000.0)
        if seconds is not None:
            return seconds
    value = headers.get("retry-after")
    if not value:
        return None
    seconds = _seconds(value, 1.0)
    if seconds is not None or value.strip().lstrip("+-").replace(".", "", 1).isdigit():
        return seconds
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    try:
        return max(0.0, when.timestamp() - time.time())
    except (OverflowError, OSError, ValueError):
        return None


def _seconds(text: str, per_second: float) -> float | None:
    try:
        value = float(text) / per_second
    except ValueError:
        return None
    return value if math.isfinite(value) and value >= 0 else None

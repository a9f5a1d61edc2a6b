"""One streamed chat turn against any OpenAI-compatible endpoint, with zen's own retrying.

The SDK retries only before a stream starts and knows nothing of provider habits, so its
retries are off (`max_retries=0`) and this module owns the single retry loop: 429/5xx,
dropped connections, timeouts and streams that stop before a finish_reason are retried with
backoff (honouring Retry-After); everything else becomes one clear `LLMError` line.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from typing import TYPE_CHECKING, Any

from zen.events import Emit, Notice, Retrying, Usage
from zen.llm import providers
from zen.llm.accumulator import StreamAccumulator
from zen.llm.types import AssistantTurn, LLMError
from zen.redaction import remember, scrub

if TYPE_CHECKING:
    from zen.config import ModelSettings

TRUNCATION_RATIO = 0.7
"""Reported prompt tokens under this share of the estimate: the server cut the conversation."""
MAX_RETRY_AFTER = 120.0
"""A server asking for a longer wait than this gets a clear error instead of a silent hang."""

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

    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after


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

    def __init__(self, settings: ModelSettings, *, retries: int = 4,
                 timeout: float = 600.0) -> None:
        import openai  # lazy: ~0.3 s of imports that `zen --version` must not pay

        self.settings = settings
        remember(settings.api_key)  # a server echoing it back (401 bodies do) is scrubbed
        self.retries = retries
        self.provider = _provider(settings)
        self.echo_reasoning: bool = self.provider.echo_reasoning
        """Send `reasoning_content` back on assistant turns with tool calls."""
        self._stream_usage = self.provider.stream_usage
        self._warned_truncation = False
        self._openai = openai
        self._client = openai.AsyncOpenAI(
            # the SDK insists on a key; local servers ignore it, remote ones answer 401
            api_key=settings.api_key or "no-key",
            base_url=settings.base_url,
            max_retries=0,
            timeout=openai.Timeout(timeout, connect=min(timeout, 15.0)),
        )

    async def aclose(self) -> None:
        await self._client.close()

    async def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                     emit: Emit, agent: str) -> AssistantTurn:
        """One assistant turn. Raises LLMError (one line) when retrying cannot help.

        After a failed attempt a `Retrying` event tells front-ends to drop what that attempt
        showed; the returned turn holds only the successful attempt.
        """
        attempt = 0
        while True:
            try:
                return await self._attempt(messages, tools, emit, agent)
            except _StreamOptionsRejected:
                self._stream_usage = False
                continue
            except _Retryable as failure:
                attempt += 1
                if attempt > self.retries:
                    tries = "attempt" if attempt == 1 else "attempts"
                    raise LLMError(
                        f"model request failed after {attempt} {tries}: {failure.reason}"
                    ) from None
                delay = failure.retry_after
                if delay is None:
                    delay = backoff(attempt)
                emit(Retrying(agent, attempt, delay, failure.reason))
                await asyncio.sleep(delay)

    def _request(self, messages: list[dict[str, Any]],
                 tools: list[dict[str, Any]]) -> dict[str, Any]:
        s = self.settings
        kwargs: dict[str, Any] = {"model": s.model, "messages": messages, "stream": True}
        if tools:
            kwargs["tools"] = tools
        if self._stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        if s.temperature is not None:
            kwargs["temperature"] = s.temperature
        if s.max_tokens is not None:
            kwargs["max_tokens"] = s.max_tokens
        return kwargs

    async def _attempt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                       emit: Emit, agent: str) -> AssistantTurn:
        acc = StreamAccumulator(agent)
        started = False
        try:
            stream = await self._client.chat.completions.create(**self._request(messages, tools))
            started = True
            try:
                async for chunk in stream:
                    for event in acc.feed(chunk):
                        emit(event)
            finally:
                await stream.close()  # also on cancellation: hang up, don't drain
        except self._openai.APIError as exc:
            raise self._classify(exc, started) from exc
        except json.JSONDecodeError as exc:
            raise _Retryable(f"the server sent a malformed stream chunk ({exc})") from None
        if not acc.complete:
            raise _Retryable("the stream ended before the answer was complete")
        turn = acc.finish()
        u = turn.usage
        emit(Usage(agent, u.prompt_tokens, u.completion_tokens, u.cached_tokens))
        self._check_truncation(messages, tools, u.prompt_tokens, emit, agent)
        return turn

    def _check_truncation(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                          reported: int, emit: Emit, agent: str) -> None:
        """Warn once when the server counted far fewer prompt tokens than were sent.

        Ollama's OpenAI endpoint silently keeps only its `num_ctx` (2-4k tokens by default):
        the model then answers without the start of the conversation, and nothing says so.
        Estimate: 4 characters a token, which undercounts CJK text, so it never cries wolf.
        """
        if self._warned_truncation or reported <= 0:
            return
        sent = sum(len(str(m.get("content") or "")) for m in messages)
        sent += sum(len(c["function"]["arguments"]) for m in messages
                    for c in m.get("tool_calls") or ())
        sent += len(json.dumps(tools)) if tools else 0
        estimate = sent // 4
        if estimate >= 2000 and reported < estimate * TRUNCATION_RATIO:
            self._warned_truncation = True
            emit(Notice(agent, (
                f"the server counted {reported:,} prompt tokens for about {estimate:,} sent: it "
                "is probably cutting the conversation to fit a small context window (Ollama: "
                "raise num_ctx in a Modelfile or set OLLAMA_CONTEXT_LENGTH)"
            ), level="warning"))

    def _classify(self, exc: Exception, started: bool) -> Exception:
        """Map an SDK error to a retry, a stream_options fallback, or one clear LLMError."""
        openai = self._openai
        if isinstance(exc, openai.APITimeoutError):
            return _Retryable("the request timed out")
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__
            detail = f" ({scrub(str(cause))})" if cause and str(cause) else ""
            if started:
                return _Retryable(f"the connection dropped mid-stream{detail}")
            return _Retryable(f"could not connect to {self.settings.base_url}{detail}")
        if not isinstance(exc, openai.APIStatusError):
            # an `{"error": ...}` chunk inside a 200 stream
            return LLMError(f"the model server reported an error mid-stream: {_message(exc)}")
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
    """Seconds the server asked us to wait (`retry-after-ms`, or `Retry-After` seconds/date)."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils
    import time

    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())

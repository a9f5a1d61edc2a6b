"""What a failed model request means: a retry, a changed request, or one clear line.

An SDK error becomes a `Retryable` (429, 5xx, a dropped or refused connection, a timeout), a
`StreamOptionsRejected` (ask again without `stream_options`), or one `LLMError` line in the
provider's own words (scrubbed of secrets). `ContextLengthError` is set apart because
compacting the conversation can fix it where retrying can't.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from zen.base.redaction import scrub
from zen.llm.retry import MAX_RETRY_AFTER, Retryable, StreamOptionsRejected, retry_after
from zen.llm.types import LLMError

if TYPE_CHECKING:
    from zen.llm.served import Served
    from zen.settings.schema import ModelSettings

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


class NotFound(LLMError):
    """A 404: no such model, or no OpenAI API at that URL."""


def is_context_overflow(message: str, code: str | None = None) -> bool:
    """True when a provider's error says the prompt is over the context window."""
    if code == "context_length_exceeded":
        return True
    if _THROTTLE.search(message):
        return False  # "too many tokens per minute" is throttling, not overflow
    return bool(_OVERFLOW.search(message))


def classify(
    exc: Exception,
    *,
    started: bool,
    settings: ModelSettings,
    stream_usage: bool,
    served: Served | None = None,
) -> Exception:
    """Map an SDK error to a retry, a stream_options fallback, or one clear LLMError.

    `started`: the answer's headers had arrived (a dropped connection is then mid-stream);
    `stream_usage`: the request asked for `stream_options`; `served`: what the endpoint
    lookup learned, for a 404 that can say more than "not found"."""
    import openai  # loaded already: only a ChatClient's request raises what comes here

    if isinstance(exc, openai.APITimeoutError):
        return Retryable("the request timed out", kind="deadline")
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        detail = f" ({scrub(str(cause))})" if cause and str(cause) else ""
        if started:
            return Retryable(f"the connection dropped mid-stream{detail}")
        return Retryable(f"could not connect to {settings.base_url}{detail}", kind="refused")
    if not isinstance(exc, openai.APIStatusError):
        return LLMError(f"the model server failed: {provider_message(exc)}")
    code = exc.status_code
    message = provider_message(exc)
    said = f" (HTTP {code}: {message})" if message else f" (HTTP {code})"
    if code == 400 and "stream_options" in message and stream_usage:
        return StreamOptionsRejected()
    if code == 429 and exc.code == "insufficient_quota":
        return LLMError(f"quota exhausted for this API key{said}")
    if code in (408, 409, 429) or code >= 500:
        return _status_retry(code, exc.response.headers, said)
    if code in (401, 403) and not settings.api_key:
        return LLMError(
            f"{settings.base_url} wants an API key{said}: zen sends none of your keys to a "
            "host you did not give one for; pass --api-key, set ZEN_API_KEY, or put api_key "
            "in ~/.zen/config.yaml"
        )
    if code in (401, 403):
        return LLMError(f"authentication failed{said} — check your API key")
    if code == 404:
        return NotFound(not_found(settings, served, said))
    if is_context_overflow(message, exc.code):
        return ContextLengthError(
            f"the conversation is longer than the model's context{said} — start a new one "
            "(/clear in the shell) or pick a model with a longer context"
        )
    return LLMError(f"the model server rejected the request{said}")


def not_found(settings: ModelSettings, served: Served | None, said: str) -> str:
    """A 404 in words: a URL with no OpenAI API (most end in /v1), or a model the server
    does not serve (and those it does)."""
    if served is not None and served.status == 404:
        fix = f"; {served.v1_url} has one" if served.v1_url else "; most end in /v1"
        return f"no OpenAI API at {settings.base_url}{said}{fix}"
    text = f"model {settings.model!r} not found at {settings.base_url}{said}"
    if served is not None and served.models:
        from zen.llm.served import listing

        text += f"; the server serves {listing(served)} (--model picks one)"
    return text


def _status_retry(code: int, headers: Any, said: str) -> Exception:
    """A 408/409/429/5xx: retried, unless the server says it won't help or asks too long a wait."""
    if headers.get("x-should-retry") == "false":  # the server says it won't help
        return LLMError(f"model request failed{said}")
    wait = retry_after(headers)
    if wait is not None and wait > MAX_RETRY_AFTER:
        return LLMError(f"the server asks to wait {wait:.0f} s before retrying{said}")
    what = "rate limited" if code == 429 else "server error"
    return Retryable(f"{what}{said}", wait)


def provider_message(exc: Any) -> str:
    """The provider's own words in an SDK error, on one line, scrubbed of secrets."""
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
    text = scrub(_page_summary(text) or " ".join(text.split()))
    return text if len(text) <= 300 else text[:297] + "..."


def _page_summary(text: str) -> str:
    """A web page (a proxy's 502, a login page) in a few words: its title, else its first
    line of text; "" when `text` is not HTML."""
    import html

    if not re.search(r"<(?:!doctype|html|head|body|title)\b", text[:1000], re.IGNORECASE):
        return ""
    title = re.search(r"<title[^>]*>(.*?)</title", text, re.IGNORECASE | re.DOTALL)
    words = title.group(1) if title else re.sub(r"<[^>]*>", "\n", text)
    line = next((s for s in html.unescape(words).splitlines() if s.strip()), "")
    return f"a web page: {' '.join(line.split())[:80]}"


def one_line(text: str) -> str:
    """`text` with its whitespace runs as single spaces, cut to 300 characters."""
    text = " ".join(text.split())
    return text if len(text) <= 300 else text[:297] + "..."

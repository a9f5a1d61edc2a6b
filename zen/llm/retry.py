"""Which failed attempts are worth another, and how long to wait before it.

The SDK's own retries are off (`max_retries=0`): this is zen's one retry policy. 429/5xx,
dropped connections, malformed chunks and streams that stop before a finish_reason are
retried up to `retries` times with backoff, honouring a sane Retry-After; a request that hit
a deadline, an empty stream and a refused connection only once (`ONCE`): a silent server must
not cost `retries` × `first_byte_timeout`. A wait past the notice threshold is announced with
`Waiting` events, about once a second.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections import Counter
from typing import Any

from zen.base.events import Emit, Waiting
from zen.llm.types import LLMError

MAX_RETRY_AFTER = 120.0
"""A server asking for a longer wait than this gets a clear error instead of a silent hang."""
ONCE = {"deadline": 1, "empty": 1, "refused": 1}
"""Failures retried at most once whatever `retries` says: a silent server must not cost
`retries` × `first_byte_timeout`, and an empty stream is a setting, not bad luck."""


class Retryable(Exception):
    """An attempt failed in a way a later attempt may not."""

    def __init__(
        self, reason: str, retry_after: float | None = None, kind: str = "default"
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.kind = kind
        """Which budget it counts against: "default" (`retries`) or one in `ONCE`."""


class StreamOptionsRejected(Exception):
    """The provider refuses `stream_options`; ask again without it."""


class RetryBudget:
    """The failures of one turn so far, counted per kind against `retries` and `ONCE`."""

    def __init__(self, retries: int) -> None:
        self.retries = retries
        self.attempt = 0
        """Failed attempts so far, whatever their kind."""
        self._failures: Counter[str] = Counter()

    def spend(self, failure: Retryable) -> float:
        """Count `failure`; the seconds to wait before the next attempt. Raises one LLMError
        line when its kind's budget is spent."""
        self.attempt += 1
        self._failures[failure.kind] += 1
        allowed = min(self.retries, ONCE.get(failure.kind, self.retries))
        if self._failures[failure.kind] > allowed:
            tries = "attempt" if self.attempt == 1 else "attempts"
            raise LLMError(
                f"model request failed after {self.attempt} {tries}: {failure.reason}"
            ) from None
        return backoff(self.attempt) if failure.retry_after is None else failure.retry_after


def backoff(attempt: int) -> float:
    """0.5 s · 2^(attempt-1), capped at 8 s, minus up to 25 % jitter (attempt counts from 1)."""
    return min(0.5 * 2 ** (attempt - 1), 8.0) * (1.0 - 0.25 * random.random())


async def pause(delay: float, notice: float, emit: Emit, agent: str) -> None:
    """Sleep before a retry, announcing one longer than `notice` about once a second."""
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


def retry_after(headers: Any) -> float | None:
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

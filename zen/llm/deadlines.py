"""How long one model request may take, and the watcher that holds it to that.

Every attempt runs under four deadlines (`Deadlines`): connect, first byte, the longest
silence inside a stream, and a total that stops a server dripping a byte at a time. The
watcher waits on the reader (`llm/streaming.py`), announces a wait past `notice` with
`Waiting` events about once a second, and when a deadline passes raises a `Retryable` that
names the setting to change.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from zen.base.events import Emit, Waiting
from zen.llm.retry import Retryable

WAIT_NOTICE = 2.0
"""A wait longer than this is announced (`Waiting`)."""
MID_STREAM = "more of the model's answer"
"""`Waiting.what` of a pause inside an answer (after its first byte)."""


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


class Progress:
    """What the reader has seen, for the watcher: when the attempt began, the last byte."""

    __slots__ = ("start", "last", "noticed", "started")

    def __init__(self, start: float) -> None:
        self.start = start
        self.last: float | None = None
        self.noticed = 0.0
        self.started = False
        """The answer's headers arrived: a dropped connection is then one mid-stream."""


async def watch(
    reader: asyncio.Future[None],
    progress: Progress,
    deadlines: Deadlines,
    emit: Emit,
    agent: str,
    streamed: bool,
) -> None:
    """Wait for the reader under the deadlines; announce long waits; raise a `Retryable`
    naming the setting when one passes (the caller cancels the reader)."""
    d = deadlines
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
                binding = "first_byte_timeout" if streamed and d.first_byte <= total else "timeout"
                reason = f"no answer within {first:g} s of the request ({binding})"
            else:
                reason = f"the stream stalled for {idle:g} s (idle_timeout)"
            raise Retryable(reason, kind="deadline")
        if now >= start + total:
            raise Retryable(f"the answer took longer than {total:g} s (timeout)", kind="deadline")
        if now - since >= d.notice and now - progress.noticed >= 0.95 * tick:
            progress.noticed = now
            emit(
                Waiting(
                    agent=agent,
                    what=_waiting_for(streamed, last),
                    elapsed=now - since,
                    limit=quiet_limit,
                )
            )
        wake = min(
            start + total, since + quiet_limit, max(since + d.notice, progress.noticed + tick)
        )
        done, _ = await asyncio.wait({reader}, timeout=max(0.0, wake - now))
        if done:
            reader.result()  # raises what the reader raised
            return


def _waiting_for(streamed: bool, last: float | None) -> str:
    if last is not None:
        return MID_STREAM
    return "the model's first token" if streamed else "the model's answer"

"""One chat turn against any OpenAI-compatible endpoint: `ChatClient` composes the parts.

The SDK retries only before a stream starts, knows nothing of provider habits, and its SSE
parser fails on legal streams. So its retries are off (`max_retries=0`) and zen does each job
itself, one module each: the request body from settings and provider flags (`request.py`),
the raw SSE body read into the accumulator (`streaming.py`) under four deadlines
(`deadlines.py`), hung up on when it repeats itself (`repetition.py`), what a failure means
(`errors.py`) and whether and when to try again (`retry.py`), and what the turn cost when the
server does not say (`usage.py`). Before its first request the client learns what the server
is (`served_book.py`, shared by the session) and adapts its settings to it (`served.applied`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from zen.base.events import Emit, Notice, Retrying, Usage
from zen.base.redaction import remember
from zen.llm.accumulator import StreamAccumulator
from zen.llm.deadlines import Deadlines, Progress, watch
from zen.llm.errors import NotFound, classify
from zen.llm.repetition import RepetitionGuard, stopped_turn
from zen.llm.request import build_request, provider_for
from zen.llm.retry import Retryable, RetryBudget, StreamOptionsRejected, pause
from zen.llm.streaming import read
from zen.llm.types import AssistantTurn
from zen.llm.usage import estimate_usage, truncation_warning

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zen.llm.pricing import Price
    from zen.llm.served import Served
    from zen.llm.served_book import ServedBook
    from zen.settings.profiles import Profile
    from zen.settings.schema import ModelSettings


class ChatClient:
    """Streams chat turns for one model role (settings), emitting events as text arrives."""

    def __init__(
        self,
        settings: ModelSettings,
        *,
        retries: int = 4,
        deadlines: Deadlines | None = None,
        price: Price | None = None,
        repeat_limit: int = 0,
        book: ServedBook | None = None,
        profiles: Sequence[Profile] = (),
    ) -> None:
        import openai  # lazy: ~0.3 s of imports that `zen --version` must not pay

        self.settings = settings
        """The role's settings; adapted to the server at the first request (`_learn`)."""
        self.configured = settings
        """The settings as configured: what the lookup is asked and kept by."""
        self.book = book
        """What endpoints serve, asked at the first request (None: never asked)."""
        self.served: Served | None = None
        self.profiles = profiles
        """The user's model profiles (`model_profiles:`), tried before zen's."""
        self._learned = book is None
        self.price = price
        """USD per million tokens, when known: each Usage event carries its request's cost."""
        remember(settings.api_key)  # a server echoing it back (401 bodies do) is scrubbed
        self.retries = retries
        self.repeat_limit = repeat_limit
        """An answer whose end repeats one piece this many times is stopped (0: never)."""
        self.deadlines = deadlines or Deadlines()
        self.provider = provider_for(settings)
        self.echo_reasoning: bool = self.provider.echo_reasoning
        """Send `reasoning_content` back on assistant turns with tool calls."""
        self._stream_usage = self.provider.stream_usage
        self._warned_truncation = False
        self._api_error = openai.APIError
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
        if not self._learned:
            await self._learn(emit, agent)
        budget = RetryBudget(self.retries)
        said = ""
        while True:
            try:
                return await self._attempt(messages, tools, emit, agent)
            except StreamOptionsRejected:
                self._stream_usage = False
                continue
            except Retryable as failure:
                delay = budget.spend(failure)
                reason = "the same error" if failure.reason == said else failure.reason
                said = failure.reason  # said once: a repeat is only counted
                emit(Retrying(agent=agent, attempt=budget.attempt, delay=delay, reason=reason))
                await pause(delay, self.deadlines.notice, emit, agent)

    async def _learn(self, emit: Emit, agent: str) -> None:
        """Ask what the server is (once per endpoint and session), then follow it: the one
        model it serves for a placeholder, `stream_tools` as the server needs."""
        from zen.llm.served import applied

        assert self.book is not None
        served = await self.book.get(self.configured)
        if self._learned:  # a concurrent first request finished it
            return
        self._learned, self.served = True, served
        adapted = applied(self.settings, served, self.profiles)
        url = self.settings.base_url
        if adapted.model != self.settings.model and self.book.first_time(f"{url} {adapted.model}"):
            text = (
                f"using {adapted.model}, the one model {url} serves (no "
                "model was configured; --model names another)"
            )
            emit(Notice(agent=agent, text=text))
        self.settings = adapted

    async def _attempt(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], emit: Emit, agent: str
    ) -> AssistantTurn:
        request = build_request(self.settings, messages, tools, stream_usage=self._stream_usage)
        acc = StreamAccumulator(agent)
        progress = Progress(asyncio.get_running_loop().time())
        create = self._client.chat.completions.with_streaming_response.create
        guard = RepetitionGuard(self.repeat_limit) if self.repeat_limit else None
        reader = asyncio.ensure_future(read(create, request, acc, emit, progress, guard))
        try:
            await watch(reader, progress, self.deadlines, emit, agent, request["stream"])
        except self._api_error as exc:
            failure = classify(
                exc,
                started=progress.started,
                settings=self.settings,
                stream_usage=self._stream_usage,
                served=self.served,
            )
            if isinstance(failure, NotFound) and self.book is not None:
                self.book.forget(self.configured)  # the server changed since it was asked
            raise failure from exc
        finally:
            if not reader.done():
                reader.cancel()  # also on cancellation: hang up, don't drain
                await asyncio.gather(reader, return_exceptions=True)
        tripped = guard.tripped if guard is not None else None
        if not acc.complete and tripped is None:
            raise Retryable("the stream ended before the answer was complete")
        turn = acc.finish()
        if not acc.saw_usage:
            estimate_usage(turn, messages, tools)
        self._account(turn, messages, tools, emit, agent)
        return turn if tripped is None else stopped_turn(turn, tripped)

    def _account(
        self,
        turn: AssistantTurn,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        emit: Emit,
        agent: str,
    ) -> None:
        """Emit the turn's usage and cost; warn once when the server cut the prompt."""
        u = turn.usage
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
        if u.estimated or self._warned_truncation:
            return
        warning = truncation_warning(messages, tools, u.prompt_tokens, self.settings, self.served)
        if warning is not None:
            self._warned_truncation = True
            emit(Notice(agent=agent, text=warning, level="warning", after_answer=True))

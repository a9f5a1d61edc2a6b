"""Context accounting: how big a model's window is and how much of it a conversation fills.

The window comes from the configuration (`context_window`, global or per role), else the
provider table, else the server (asked once, lazily, under a short deadline), else
`DEFAULT_WINDOW`. Token counts are the server's own where it reports usage (the last request's
prompt + completion tokens) plus an estimate for what was appended since; the estimate is
UTF-8 bytes / 4, which needs no tokenizer download and errs high for code and English.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zen.base.preamble import asked
from zen.settings import providers

if TYPE_CHECKING:
    from zen.settings.schema import ModelSettings

DEFAULT_WINDOW = 128_000
"""When nothing says: the common size of today's hosted models."""
MESSAGE_OVERHEAD = 4
"""Tokens a chat template adds around each message (role markers)."""
RESTART_HEADER = "[zen: context compacted]"
"""The first words of the message a compaction restarts the conversation with."""


def estimate(text: str) -> int:
    """Tokens in `text`, estimated: UTF-8 bytes / 4, rounded up."""
    return (len(text.encode("utf-8")) + 3) // 4


def message_tokens(message: dict[str, Any]) -> int:
    """One chat message's tokens, estimated: its text, reasoning and tool calls."""
    total = MESSAGE_OVERHEAD
    content = message.get("content")
    if isinstance(content, str):
        total += estimate(content)
    elif content:
        total += estimate(json.dumps(content, ensure_ascii=False))
    reasoning = message.get("reasoning_content")
    if isinstance(reasoning, str):
        total += estimate(reasoning)
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        total += (
            estimate(str(function.get("name", "")))
            + estimate(str(function.get("arguments", "")))
            + MESSAGE_OVERHEAD
        )
    return total


def messages_tokens(messages: list[dict[str, Any]]) -> int:
    return sum(message_tokens(m) for m in messages)


def tools_tokens(schemas: list[dict[str, Any]]) -> int:
    if not schemas:
        return 0
    return estimate(json.dumps(schemas, separators=(",", ":"), ensure_ascii=False))


def is_restart(message: dict[str, Any]) -> bool:
    """True for the user message a compaction put at the start of the conversation."""
    content = message.get("content")
    return (
        message.get("role") == "user"
        and isinstance(content, str)
        and asked(content).startswith(RESTART_HEADER)
    )


@dataclass(frozen=True)
class Window:
    tokens: int
    source: str
    """Where the figure came from: config, provider, server, assumed, or overflow (learned
    from the server refusing a longer request)."""


def outgrown(used: int, window: Window) -> str:
    """The one warning for a conversation larger than the window zen knows of."""
    return (
        f"the conversation (~{used:,} tokens) no longer fits the model's window "
        f"({window.tokens:,} tokens, {window.source}) and compacting cannot shrink it: the "
        "server may drop its start. Set context_window to the server's real window "
        "(Ollama: raise num_ctx, see docs/local-models.md), or /clear"
    )


class WindowResolver:
    """One model's context window, found once and remembered. `ask`: what the server says
    (the endpoint lookup's window), asked only when nothing else knows."""

    def __init__(
        self, settings: ModelSettings, ask: Callable[[], Awaitable[int | None]] | None = None
    ) -> None:
        self.settings = settings
        self._ask = ask
        self._known: Window | None = self._without_asking()
        self._lock = asyncio.Lock()

    @property
    def known(self) -> Window | None:
        """The window if it is known without asking the server (or was asked already)."""
        return self._known

    def _without_asking(self) -> Window | None:
        if self.settings.context_window:
            return Window(self.settings.context_window, "config")
        preset = providers.PROVIDERS.get(self.settings.provider)
        if (
            preset is not None
            and preset.context_window
            and _host(preset.base_url) == _host(self.settings.base_url)
        ):  # the preset's own endpoint: another one behind the same habits may differ
            return Window(preset.context_window, "provider")
        return None

    def learn_limit(self, tokens: int) -> None:
        """The server refused a request of about `tokens`: its window is smaller than that."""
        limit = int(tokens * 0.95)
        if limit >= 1_000 and (self._known is None or limit < self._known.tokens):
            self._known = Window(limit, "overflow")

    async def get(self) -> Window:
        if self._known is None:
            async with self._lock:
                if self._known is None:
                    found = await self._ask() if self._ask is not None else None
                    self._known = (
                        Window(found, "server") if found else Window(DEFAULT_WINDOW, "assumed")
                    )
        return self._known


def _host(url: str) -> str:
    from urllib.parse import urlparse

    return urlparse(url).hostname or ""


@dataclass(frozen=True)
class ContextSplit:
    """What one agent's next request would hold, by part, in tokens. `total` is the one
    figure of "context used" that the status line, `/usage`, `/context` and compaction share
    (`Transcript.tokens`); the parts add up to it."""

    system: int
    tools: int
    """0 when the server's count shows it dropped the schemas (they never reach the model)."""
    memo: int
    """The compaction's restart message: the memo state and the user's kept words."""
    conversation: int
    window: Window
    measured: bool
    """True when the total rests on the server's own count of the last request."""
    total: int = 0

    @property
    def used(self) -> int:
        return self.total

    @property
    def free(self) -> int:
        return max(0, self.window.tokens - self.used)


def split(
    messages: list[dict[str, Any]],
    schemas: list[dict[str, Any]],
    window: Window,
    total: int,
    prompt: int | None = None,
) -> ContextSplit:
    """The parts of a request that holds `total` tokens. `prompt`: the server's count of the
    last request (None: nothing measured, `total` is the sum of the estimates). Measured, the
    tools count nothing when the server dropped them, the conversation is the rest, and when
    the estimates exceed the server's count (they err high) every part shrinks in proportion."""
    from zen.llm.usage import tools_dropped

    system = messages_tokens(messages[:1])
    tools = tools_tokens(schemas)
    memo = sum(message_tokens(m) for m in messages[1:] if is_restart(m))
    conversation = messages_tokens(messages[1:]) - memo
    if prompt is None:
        return ContextSplit(system, tools, memo, conversation, window, False, total)
    if tools_dropped(prompt, tools):
        tools = 0
    if total - system - tools - memo < conversation:
        ratio = total / max(1, system + tools + memo + conversation)
        system, tools, memo = (int(part * ratio) for part in (system, tools, memo))
    conversation = max(0, total - system - tools - memo)
    return ContextSplit(system, tools, memo, conversation, window, True, total)

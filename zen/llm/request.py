"""The body of one chat request, from the role's settings and its provider's habits.

Providers differ in what they accept: some refuse `stream_options` (usage in the stream),
llama-cpp-python cannot stream tool calls and drops tools without `tool_choice`. The preset's
flags (`settings/providers.py`) say which; an unknown endpoint gets the `openai` habits.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zen.settings import providers

if TYPE_CHECKING:
    from zen.settings.schema import ModelSettings


def provider_for(settings: ModelSettings) -> providers.Provider:
    """The named preset, unless that is the default "openai" and the URL says otherwise
    (provider "openai" pointed at api.deepseek.com still needs DeepSeek's habits)."""
    named = providers.PROVIDERS.get(settings.provider)
    if named is None or named.name == "openai":
        return providers.detect(settings.base_url)
    return named


def build_request(
    settings: ModelSettings,
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    *,
    stream_usage: bool,
) -> dict[str, Any]:
    """Keyword arguments for the SDK's `chat.completions.create`. Streamed unless the request
    carries tools the server cannot stream (`stream_tools: false`); `stream_usage`: ask for
    usage in the stream."""
    s = settings
    stream_tools = s.stream_tools is not False
    stream = stream_tools or not tools
    kwargs: dict[str, Any] = {"model": s.model, "messages": messages, "stream": stream}
    if tools:
        kwargs["tools"] = tools
        if not stream_tools:
            kwargs["tool_choice"] = "auto"  # llama-cpp-python drops tools without it
    if stream and stream_usage:
        kwargs["stream_options"] = {"include_usage": True}
    if s.temperature is not None:
        kwargs["temperature"] = s.temperature
    cap = output_cap(s)
    if cap:
        kwargs["max_tokens"] = cap
    return kwargs


def output_cap(settings: ModelSettings) -> int | None:
    """The `max_tokens` to send: the configured one (0: none), else `LOCAL_MAX_TOKENS` for a
    local preset or a server on this machine, else none."""
    if settings.max_tokens is not None:
        return settings.max_tokens or None
    if provider_for(settings).local or providers.is_local(settings.base_url):
        return providers.LOCAL_MAX_TOKENS
    return None

"""Ask a model server how many tokens its model holds.

vLLM lists `max_model_len` in `/v1/models`, OpenRouter and others `context_length`, LM Studio
`loaded_context_length` (`/api/v0/models`), llama.cpp its runtime `n_ctx` in `/props`. Asked
once, lazily (never while zen starts), under a short deadline; whatever goes wrong (no such
route, a slow or hostile server, nonsense numbers) is simply "unknown".
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from zen.settings.schema import ModelSettings

DEADLINE = 2.0
"""Seconds for the whole question, every route included."""
SANE = range(1_000, 100_000_001)
"""Windows outside this are a server's nonsense, not a fact to plan by."""
ENTRY_KEYS = (
    "loaded_context_length",
    "max_model_len",
    "context_length",
    "max_context_length",
    "context_window",
)


async def ask_server(settings: ModelSettings, deadline: float = DEADLINE) -> int | None:
    """The context window the server reports for `settings.model`, or None."""
    import openai  # the SDK's own HTTP stack, whatever it is built on

    client = openai.AsyncOpenAI(
        api_key=settings.api_key or "no-key",
        base_url=settings.base_url,
        max_retries=0,
        timeout=deadline,
    )
    try:
        return await asyncio.wait_for(_ask(client, settings), deadline)
    except Exception:  # no such route, a slow or odd server: unknown, never a crash
        return None
    finally:
        await client.close()


async def _ask(client: Any, settings: ModelSettings) -> int | None:
    from zen.settings.providers import is_local

    base = settings.base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    found = window_in_models(await _get_json(client, f"{base}/models"), settings.model)
    if found is not None or not is_local(settings.base_url):
        return found
    # llama.cpp: the runtime n_ctx (its /v1/models has only the training length)
    props = await _get_json(client, f"{root}/props")
    if isinstance(props, dict):
        for value in (props.get("n_ctx"), _get(props.get("default_generation_settings"), "n_ctx")):
            if _sane(value):
                return int(value)
    # LM Studio's own REST API
    return window_in_entry(await _get_json(client, f"{root}/api/v0/models/{settings.model}"))


def window_in_models(body: Any, model: str) -> int | None:
    """The window in an OpenAI-style model list: the entry named `model`, or the only one."""
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return None
    named = [e for e in entries if isinstance(e, dict) and e.get("id") == model]
    if not named and len(entries) == 1:
        named = entries
    return window_in_entry(named[0]) if named else None


def window_in_entry(entry: Any) -> int | None:
    if not isinstance(entry, dict):
        return None
    for key in ENTRY_KEYS:
        if _sane(entry.get(key)):
            return int(entry[key])
    return None


def _get(mapping: Any, key: str) -> Any:
    return mapping.get(key) if isinstance(mapping, dict) else None


def _sane(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in SANE


async def _get_json(client: Any, url: str) -> Any:
    """The JSON body at `url`, or None (an error status, not JSON)."""
    try:
        body = await client.get(url, cast_to=object)
        # the SDK parses JSON only when the server labels it so; some servers do not
        return json.loads(body) if isinstance(body, (str, bytes)) else body
    except Exception:
        return None

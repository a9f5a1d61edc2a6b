"""Where a model server says how many tokens its model holds.

vLLM lists `max_model_len` in `/v1/models`, OpenRouter and others `context_length`, LM Studio
`loaded_context_length` (`/api/v0/models`), llama.cpp its runtime `n_ctx` in `/props` (read
by the endpoint lookup, `zen/llm/lookup.py`). Numbers outside `SANE` are a server's nonsense,
not a fact to plan by: a hostile server must not force a compaction per turn.
"""

from __future__ import annotations

from typing import Any, TypeGuard

SANE = range(1_000, 100_000_001)
"""Windows outside this are a server's nonsense, not a fact to plan by."""
ENTRY_KEYS = (
    "loaded_context_length",
    "max_model_len",
    "context_length",
    "max_context_length",
    "context_window",
)


def window_in_entry(entry: Any) -> int | None:
    """The window in one model's entry of a list (or LM Studio's own model object)."""
    if not isinstance(entry, dict):
        return None
    for key in ENTRY_KEYS:
        if sane(entry.get(key)):
            return int(entry[key])
    return None


def sane(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and value in SANE

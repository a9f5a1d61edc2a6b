"""What one turn cost in tokens: the server's count, or zen's estimate when it sends none.

The estimate is zen's rule of thumb, UTF-8 bytes / 4 (marked `estimated`, shown as `~`).
Comparing the server's prompt count with the estimate also catches a server that silently
cut the conversation or dropped the tool definitions (`truncation_warning`).
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from zen.llm.types import AssistantTurn

if TYPE_CHECKING:
    from zen.llm.served import Served
    from zen.settings.schema import ModelSettings

TRUNCATION_RATIO = 0.7
"""Reported prompt tokens under this share of the estimate: the server cut the conversation."""


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


def estimate_usage(
    turn: AssistantTurn, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
) -> None:
    """Fill in `turn.usage` with zen's estimate: the server reported none."""
    u = turn.usage
    u.prompt_tokens = prompt_estimate(messages, tools)
    u.completion_tokens = estimate_tokens(
        turn.content, turn.reasoning, *(c.name + c.arguments for c in turn.tool_calls)
    )
    u.estimated = True


def tools_dropped(reported: int, schemas: int) -> bool:
    """The server counted fewer prompt tokens than the tool schemas alone (`schemas`,
    estimated) would take: they never reached the model (a chat template without tools)."""
    return schemas >= 300 and 0 < reported < schemas * TRUNCATION_RATIO


def truncation_warning(
    messages: list[dict[str, Any]],
    tools: list[dict[str, Any]],
    reported: int,
    settings: ModelSettings,
    served: Served | None = None,
) -> str | None:
    """Why the server counted far fewer prompt tokens than were sent, or None.

    Ollama's OpenAI endpoint silently keeps only its `num_ctx` (2-4k tokens by default):
    the model then answers without the start of the conversation, and nothing says so.
    The estimate (UTF-8 bytes / 4) is the one shown when a server sends no usage.
    """
    if reported <= 0:
        return None
    schemas = estimate_tokens(json.dumps(tools)) if tools else 0
    if tools_dropped(reported, schemas):
        # fewer tokens than the tool definitions alone: they never reached the model
        return (
            f"the server counted {reported:,} prompt tokens, fewer than the tool definitions "
            f"alone (about {schemas:,}): it dropped the tools, so the model cannot use them. "
            + dropped_tools_advice(settings, served)
        )
    estimate = prompt_estimate(messages, tools)
    if estimate >= 2000 and reported < estimate * TRUNCATION_RATIO:
        return (
            f"the server counted {reported:,} prompt tokens for about "
            f"{estimate:,} sent: it is probably cutting the conversation to fit a "
            "small context window (Ollama: raise num_ctx in a Modelfile or set "
            "OLLAMA_CONTEXT_LENGTH)"
        )
    return None


def dropped_tools_advice(settings: ModelSettings, served: Served | None) -> str:
    """What to do about dropped tools, without what is already in effect: the text protocol
    first (it needs no tools), then what the server itself would need."""
    if settings.tool_protocol == "auto":
        hints = ["--tool-protocol text (edit blocks instead of tool calls)"]
    else:
        hints = [
            "--tool-protocol text|auto (text: edit blocks instead of tool calls; auto: tools "
            "until the model shows it cannot call them)"
        ]
    kind = served.server if served is not None else "unknown"
    template = served.tool_template if served is not None else None
    if kind in ("llama-cpp-python", "unknown") and settings.stream_tools is not False:
        hints.append("llama-cpp-python: stream_tools: false (it drops tools without tool_choice)")
    if kind in ("llama-server", "unknown") and template is None:
        hints.append("llama.cpp: start it with --jinja")
    if kind in ("llama-server", "ollama") and template is False:
        hints.append(
            "the model's chat template has no tool support (llama.cpp: --chat-template-file "
            "with one that has)"
        )
    return "Try " + "; or ".join(hints)

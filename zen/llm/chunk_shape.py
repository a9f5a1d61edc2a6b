"""What a streamed chunk's fields must be: the type checks that raise `Malformed` (retried
rather than part of an answer silently lost), the usage object, and a whole unstreamed
completion reshaped as the one chunk that would carry it (`accumulator.py` folds chunks)."""

from __future__ import annotations

import json
from typing import Any

from zen.llm.sse import Malformed
from zen.llm.types import TokenUsage


def kind(value: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
    }.get(type(value), "a number")


def wrong(field: str, value: Any, want: str) -> Malformed:
    return Malformed(f"the server sent a chunk whose {field} is {kind(value)}, not {want}")


def text_of(value: Any, field: str) -> str | None:
    if value is None or type(value) is str:
        return value
    raise wrong(field, value, "text")


def count_of(value: Any, field: str) -> int:
    if value is None:
        return 0
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    raise wrong(field, value, "a number")


def token_usage(u: Any) -> TokenUsage:
    if type(u) is not dict:
        raise wrong("usage", u, "an object")
    cached = 0
    details = u.get("prompt_tokens_details")
    if details is not None:
        if type(details) is not dict:
            raise wrong("prompt_tokens_details", details, "an object")
        cached = count_of(details.get("cached_tokens"), "cached_tokens")
    if not cached:
        cached = count_of(u.get("prompt_cache_hit_tokens"), "prompt_cache_hit_tokens")  # DeepSeek
    return TokenUsage(
        prompt_tokens=count_of(u.get("prompt_tokens"), "prompt_tokens"),
        completion_tokens=count_of(u.get("completion_tokens"), "completion_tokens"),
        cached_tokens=cached,
        requests=1,
    )


def completion_as_chunk(body: Any) -> dict[str, Any]:
    """A whole (unstreamed) chat completion, reshaped as the one chunk that would carry it,
    so the same rules and checks apply. Arguments sent as an object are serialised."""
    if type(body) is not dict:
        raise Malformed(f"the server answered with {kind(body)}, not an object")
    if body.get("error"):
        return {"error": body["error"]}
    choices = body.get("choices")
    if type(choices) is not list or not choices:
        raise Malformed("the server's answer has no choices")
    choice = choices[0]
    if type(choice) is not dict:
        raise wrong("choice", choice, "an object")
    message = choice.get("message")
    if type(message) is not dict:
        raise wrong("message", message, "an object")
    delta = {k: message.get(k) for k in ("content", "reasoning_content", "reasoning")}
    calls = message.get("tool_calls")
    if calls is not None:
        if type(calls) is not list:
            raise wrong("tool_calls", calls, "a list")
        reshaped = []
        for i, tc in enumerate(calls):
            if type(tc) is not dict:
                raise wrong("tool call", tc, "an object")
            fn = tc.get("function")
            if type(fn) is dict and isinstance(fn.get("arguments"), (dict, list)):
                fn = {**fn, "arguments": json.dumps(fn["arguments"], ensure_ascii=False)}
            reshaped.append({**tc, "index": i, "function": fn})
        delta["tool_calls"] = reshaped
    # a complete answer ends even when the server leaves finish_reason out
    finish = choice.get("finish_reason") or "stop"
    return {"choices": [{"delta": delta, "finish_reason": finish}], "usage": body.get("usage")}

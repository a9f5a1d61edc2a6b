"""Calls a model wrote as text, made native so the loop runs them like any other.

`llm/text_calls.py` decides what is a call; this turns the reply into the turn the conversation
keeps: the calls as a native assistant `tool_calls` message (so the next request is well formed
for a strict server, and the model sees its calls in the form its template expects), no markup
left as the answer, and one line for the user. The registry then checks names and arguments as
for native calls: an unknown name gets the same short correction listing the tools.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from typing import Any

from zen.agent.protocols.written_calls import parse_text_calls
from zen.base import events as ev
from zen.base.text import clip
from zen.llm.types import AssistantTurn, ToolCall


def recovered(
    reply: AssistantTurn, tools: list[dict[str, Any]], seed: str, agent: str, emit: ev.Emit
) -> AssistantTurn:
    """`reply` with the calls its text attempts made native (and said so), or `reply` itself.
    `seed`: the reply's place in the conversation, so a replay gets the same call ids."""
    if reply.tool_calls or not reply.content.strip():
        return reply
    found = parse_text_calls(reply.content, tools)
    if found is None:
        return reply
    calls = [
        ToolCall(call_id(seed, i, reply.content), c.name, c.arguments, origin="text")
        for i, c in enumerate(found)
    ]
    names = ", ".join(dict.fromkeys(clip(c.name, 60) for c in calls))
    n = len(calls)
    emit(
        ev.Notice(
            agent=agent,
            text=f"{n} tool call{'s' if n != 1 else ''} recovered from the model's text: {names}",
        )
    )
    return replace(reply, content="", tool_calls=calls)


def call_id(seed: str, index: int, text: str) -> str:
    """Nine letters and digits, the same for the same reply at the same place: Mistral's
    servers refuse any other id shape."""
    return hashlib.sha256(f"{seed}\0{index}\0{text}".encode("utf-8", "replace")).hexdigest()[:9]

"""Folds streamed ChatCompletionChunks into one AssistantTurn, whatever the provider's habits.

The SDK's own stream helper crashes on index-less tool calls, and providers disagree on ids,
names and indexes (ecosystem notes §3.3), so zen keeps its own rules (§3.4):

- tool-call deltas are keyed by `index`, or by position in the delta list when it is missing;
- a new non-empty id at a key opens a new call only once the current call's arguments parse
  as complete JSON (vLLM/Ollama put parallel calls at index 0; LM Studio/Kimi send fresh ids
  mid-call);
- names are assigned when non-empty, never appended (LM Studio sends `""`, MiniMax resends);
- argument fragments are joined once at the end; missing ids become `call_<n>`, int ids str;
- it is a tool turn when calls exist, whatever `finish_reason` says;
- usage is the last chunk that carries it (often one with `choices: []`).

It is synchronous and allocation-light: it runs once per chunk of a 30,000-chunk answer.
"""

from __future__ import annotations

import json
from typing import Any

from zen.events import Event, ReasoningDelta, TextDelta, ToolCallArgsDelta, ToolCallStarted
from zen.llm.types import AssistantTurn, TokenUsage, ToolCall

_NOTHING: tuple[Event, ...] = ()


class _Call:
    __slots__ = ("id", "name", "parts", "announced")

    def __init__(self, call_id: str) -> None:
        self.id = call_id
        self.name = ""
        self.parts: list[str] = []
        self.announced = False

    def arguments_complete(self) -> bool:
        try:
            json.loads("".join(self.parts))
        except ValueError:
            return False
        return True


class StreamAccumulator:
    """Feed it every chunk of one streamed response; `finish()` gives the turn."""

    def __init__(self, agent: str = "main") -> None:
        self.agent = agent
        self.finish_reason = ""
        self.saw_usage = False
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_Call] = []
        self._by_key: dict[int, _Call] = {}
        self._by_id: dict[str, _Call] = {}
        self._usage: Any = None

    @property
    def complete(self) -> bool:
        """The stream got to its end: a finish_reason (or the usage that follows it) arrived."""
        return bool(self.finish_reason) or self.saw_usage

    def feed(self, chunk: Any) -> list[Event] | tuple[Event, ...]:
        """Take one chunk; return the events it produces, in order."""
        usage = chunk.usage
        if usage is not None:
            self._usage = usage
            self.saw_usage = True
        choices = chunk.choices
        if not choices:
            return _NOTHING
        choice = choices[0]
        if choice.finish_reason:
            self.finish_reason = choice.finish_reason
        delta = choice.delta
        if delta is None:
            return _NOTHING
        events: list[Event] = []
        extra = delta.model_extra
        if extra:
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
            if reasoning and isinstance(reasoning, str):
                self._reasoning.append(reasoning)
                events.append(ReasoningDelta(self.agent, reasoning))
        content = delta.content
        if content:
            self._text.append(content)
            events.append(TextDelta(self.agent, content))
        if delta.tool_calls:
            self._feed_calls(delta.tool_calls, events)
        return events

    def _feed_calls(self, deltas: list[Any], events: list[Event]) -> None:
        for position, tc in enumerate(deltas):
            key = tc.index if tc.index is not None else position
            call_id = tc.id
            if call_id is not None and not isinstance(call_id, str):
                call_id = str(call_id)
            slot = self._by_key.get(key)
            if call_id:
                known = self._by_id.get(call_id)
                if known is not None:
                    slot = known
                elif slot is None or slot.arguments_complete():
                    slot = self._open(key, call_id)
                # else: a fresh id in the middle of a call; keep the first one
            elif slot is None:
                slot = self._open(key, None)
            fn = tc.function
            if fn is None:
                continue
            name = fn.name
            if name and name != slot.name:
                slot.name = name
            fragment = fn.arguments
            if fragment:
                slot.parts.append(fragment)
            if slot.announced:
                if fragment:
                    events.append(ToolCallArgsDelta(self.agent, slot.id, slot.name, fragment))
            elif slot.name:
                # announce once the name is known; arguments that came earlier go out with it
                slot.announced = True
                events.append(ToolCallStarted(self.agent, slot.id, slot.name))
                if slot.parts:
                    events.append(
                        ToolCallArgsDelta(self.agent, slot.id, slot.name, "".join(slot.parts))
                    )

    def _open(self, key: int, call_id: str | None) -> _Call:
        slot = _Call(call_id or f"call_{len(self._calls)}")
        self._calls.append(slot)
        self._by_key[key] = slot
        self._by_id[slot.id] = slot
        return slot

    def finish(self) -> AssistantTurn:
        calls = [
            ToolCall(c.id, c.name, "".join(c.parts)) for c in self._calls if c.name or c.parts
        ]
        return AssistantTurn(
            content="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self._token_usage(),
        )

    def _token_usage(self) -> TokenUsage:
        u = self._usage
        if u is None:
            return TokenUsage(requests=1)
        cached = 0
        details = getattr(u, "prompt_tokens_details", None)
        if details is not None:
            cached = getattr(details, "cached_tokens", None) or 0
        if not cached and u.model_extra:
            cached = u.model_extra.get("prompt_cache_hit_tokens") or 0  # DeepSeek
        return TokenUsage(
            prompt_tokens=u.prompt_tokens or 0,
            completion_tokens=u.completion_tokens or 0,
            cached_tokens=int(cached),
            requests=1,
        )

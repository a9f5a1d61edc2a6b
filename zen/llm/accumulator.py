"""Folds streamed chat-completion chunks (parsed JSON) into one AssistantTurn, whatever the
provider's habits, and refuses chunks of the wrong shape.

Providers disagree on ids, names and indexes, so zen keeps its own rules (each provider's
shape is a test in tests/test_llm_accumulator.py):

- tool-call deltas are keyed by `index`, or by position in the delta list when it is missing;
- a new non-empty id at a key opens a new call only once the current call's arguments parse
  as complete JSON (vLLM/Ollama put parallel calls at index 0; LM Studio/Kimi send fresh ids
  mid-call);
- names are assigned when non-empty, never appended (LM Studio sends `""`, MiniMax resends);
- argument fragments are joined once at the end; missing ids become `call_<n>`, int ids str;
- it is a tool turn when calls exist, whatever `finish_reason` says;
- usage is the last chunk that carries it (often one with `choices: []`).

A field of the wrong type (`choices: "oops"`, `arguments: 5`, `usage: "x"`...) raises
`Malformed`: the attempt is retried rather than a part of the answer silently lost. It is
synchronous and allocation-light: it runs once per chunk of a 30,000-chunk answer.
"""

from __future__ import annotations

import json
from typing import Any

from zen.base.events import Event, ReasoningDelta, TextDelta, ToolCallArgsDelta, ToolCallStarted
from zen.llm.chunk_shape import completion_as_chunk, kind, text_of, token_usage, wrong
from zen.llm.sse import Malformed
from zen.llm.types import AssistantTurn, TokenUsage, ToolCall

__all__ = ["MAX_ANSWER", "StreamAccumulator", "StreamError", "completion_as_chunk"]
_NOTHING: tuple[Event, ...] = ()
MAX_ANSWER = 64 * 1024 * 1024
"""Characters of one answer (text, reasoning, arguments) before it is refused as malformed: a
server streaming without end must not take all the memory before the deadline comes."""


class StreamError(Exception):
    """The server put an `{"error": ...}` object in the stream."""


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
    """Feed it every chunk of one response; `finish()` gives the turn."""

    def __init__(self, agent: str = "main") -> None:
        self.agent = agent
        self.finish_reason = ""
        self.saw_usage = False
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: list[_Call] = []
        self._by_key: dict[int, _Call] = {}
        self._by_id: dict[str, _Call] = {}
        self._usage: TokenUsage | None = None
        self._size = 0

    @property
    def complete(self) -> bool:
        """The stream got to its end: a finish_reason (or the usage that follows it) arrived."""
        return bool(self.finish_reason) or self.saw_usage

    def feed(self, chunk: Any) -> list[Event] | tuple[Event, ...]:
        """Take one chunk; return the events it produces, in order."""
        if type(chunk) is not dict:
            raise Malformed(f"the server sent a chunk that is {kind(chunk)}, not an object")
        if chunk.get("error"):
            raise _stream_error(chunk["error"])
        usage = chunk.get("usage")
        if usage is not None:
            self._usage = token_usage(usage)
            self.saw_usage = True
        delta = self._delta(chunk.get("choices"))
        if delta is None:
            return _NOTHING
        events: list[Event] = []
        for key in ("reasoning_content", "reasoning"):
            reasoning = delta.get(key)
            if reasoning is not None:
                if type(reasoning) is not str:
                    raise wrong(key, reasoning, "text")
                if reasoning:
                    self._grow(len(reasoning))
                    self._reasoning.append(reasoning)
                    events.append(ReasoningDelta(agent=self.agent, text=reasoning))
                    break
        content = delta.get("content")
        if content is not None:
            if type(content) is not str:
                raise wrong("content", content, "text")
            if content:
                self._grow(len(content))
                self._text.append(content)
                events.append(TextDelta(agent=self.agent, text=content))
        calls = delta.get("tool_calls")
        if calls is not None:
            if type(calls) is not list:
                raise wrong("tool_calls", calls, "a list")
            self._feed_calls(calls, events)
        return events

    def _delta(self, choices: Any) -> dict[str, Any] | None:
        """The first choice's delta, its finish_reason noted; None when the chunk has none."""
        if choices is None:
            return None
        if type(choices) is not list:
            raise wrong("choices", choices, "a list")
        if not choices:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            raise wrong("choice", choice, "an object")
        finish = text_of(choice.get("finish_reason"), "finish_reason")
        if finish:
            self.finish_reason = finish
        delta = choice.get("delta")
        if delta is None:
            return None
        if type(delta) is not dict:
            raise wrong("delta", delta, "an object")
        return delta

    def _feed_calls(self, deltas: list[Any], events: list[Event]) -> None:
        for position, tc in enumerate(deltas):
            if type(tc) is not dict:
                raise wrong("tool call", tc, "an object")
            slot = self._slot(position, tc)
            fn = tc.get("function")
            if fn is None:
                continue
            if type(fn) is not dict:
                raise wrong("function", fn, "an object")
            name = text_of(fn.get("name"), "function name")
            if name and name != slot.name:
                slot.name = name
            fragment = text_of(fn.get("arguments"), "arguments")
            if fragment:
                self._grow(len(fragment))
                slot.parts.append(fragment)
            if slot.announced:
                if fragment:
                    events.append(
                        ToolCallArgsDelta(
                            agent=self.agent, call_id=slot.id, name=slot.name, delta=fragment
                        )
                    )
            elif slot.name:
                self._announce(slot, events)

    def _slot(self, position: int, tc: dict[str, Any]) -> _Call:
        """The call this delta belongs to, opened if new (the rules in the module docstring)."""
        index = tc.get("index")
        if index is not None and type(index) is not int:
            raise wrong("tool call index", index, "a whole number")
        key = position if index is None else index
        call_id = tc.get("id")
        if call_id is not None and type(call_id) is not str:
            if type(call_id) is not int:
                raise wrong("tool call id", call_id, "text")
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
        return slot

    def _announce(self, slot: _Call, events: list[Event]) -> None:
        """Once the call's name is known: it starts, with the arguments that came before."""
        slot.announced = True
        events.append(ToolCallStarted(agent=self.agent, call_id=slot.id, name=slot.name))
        if slot.parts:
            events.append(
                ToolCallArgsDelta(
                    agent=self.agent,
                    call_id=slot.id,
                    name=slot.name,
                    delta="".join(slot.parts),
                )
            )

    def _grow(self, size: int) -> None:
        self._size += size
        if self._size > MAX_ANSWER:
            raise Malformed(f"the answer grew past {MAX_ANSWER >> 20} M characters")

    def _open(self, key: int, call_id: str | None) -> _Call:
        slot = _Call(call_id or f"call_{len(self._calls)}")
        self._calls.append(slot)
        self._by_key[key] = slot
        self._by_id[slot.id] = slot
        return slot

    def finish(self) -> AssistantTurn:
        calls = [ToolCall(c.id, c.name, "".join(c.parts)) for c in self._calls if c.name or c.parts]
        return AssistantTurn(
            content="".join(self._text),
            reasoning="".join(self._reasoning),
            tool_calls=calls,
            finish_reason=self.finish_reason,
            usage=self._usage or TokenUsage(requests=1),
        )


def _stream_error(error: Any) -> StreamError:
    """The server's error object as one exception, its message when it has one."""
    message = error.get("message") if isinstance(error, dict) else error
    return StreamError(message if isinstance(message, str) and message else str(error))

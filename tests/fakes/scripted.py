"""A scripted model in-process, plugged in at the `ChatModel` seam (`ChatClient.stream`'s): no
sockets, no threads, no subprocess, so a test of the loop, compaction, triage or a protocol
runs in milliseconds.

    model = ScriptedModel([tool_calls([call("read-file", {"path": "a.py"})]), text("done")])
    session = Session(config, workspace, connect=model.connect)
    await session.run("go", emit)
    assert model.requests[1]["messages"][-1]["role"] == "tool"

Its script is the HTTP fake's (`text()`, `tool_calls()`, `status()` from `tests/fakes/server.py`,
a list used in order or a callable `(request) -> Reply`), and each reply goes through zen's
real accumulator chunk by chunk, so the events and the turn are those a server's bytes would
give. A request past the end of the script fails the test loudly.

Where it is allowed: unit tests of what sits above the client (the loop, compaction, triage,
the protocols, the session). End-to-end tests (`zen -p` in a subprocess, the shell in a pty,
MCP servers) and every test of the client itself keep the HTTP fake, so the real SDK, SSE
reader, deadlines and retries run: never monkeypatch the client there.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
from collections.abc import Iterator
from typing import Any

from tests.fakes.server import Reply, Script, Status, Text, ToolCalls, _usage
from zen.base import events as ev
from zen.llm.accumulator import StreamAccumulator
from zen.llm.errors import ContextLengthError, is_context_overflow
from zen.llm.types import AssistantTurn, LLMError
from zen.llm.usage import estimate_usage
from zen.settings.schema import ModelSettings


class ScriptExhausted(AssertionError):
    """The model was asked more often than its script says."""


class ScriptedModel:
    """One scripted model for every role that connects to it (a callable script can answer
    by role: the Orchestrator is the one offered `send-to-coder`)."""

    echo_reasoning = False

    def __init__(self, script: Script) -> None:
        self.script = script if callable(script) else list(script)
        self.requests: list[dict[str, Any]] = []
        """Every request as a server would get it: `messages`, `tools`, `model`."""
        self.settings: list[ModelSettings] = []
        """The settings of each role that connected."""
        self._ids = itertools.count(1)

    def connect(self, settings: ModelSettings) -> ScriptedModel:
        """What `Session(connect=...)` calls for each role's settings."""
        self.settings.append(settings)
        return self

    async def aclose(self) -> None:
        pass

    async def stream(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]], emit: ev.Emit, agent: str
    ) -> AssistantTurn:
        body = {"messages": copy.deepcopy(messages), "tools": copy.deepcopy(tools)}
        self.requests.append(body)
        reply = self._next(body)
        await asyncio.sleep(reply.delay)  # a request is a point where a run can be cancelled
        if isinstance(reply, Status):
            message = reply.message or f"HTTP {reply.status}"
            if is_context_overflow(message, reply.code):
                raise ContextLengthError(message)
            raise LLMError(message)
        if not isinstance(reply, (Text, ToolCalls)):
            raise TypeError(f"the scripted model streams text and tool calls, not {reply}")
        acc = StreamAccumulator(agent)
        for chunk in self._chunks(reply):
            for event in acc.feed(chunk):
                emit(event)
            await asyncio.sleep(reply.chunk_delay)  # and so is every chunk
        turn = acc.finish()
        if reply.usage is None:  # the client estimates what a server does not count
            estimate_usage(turn, messages, tools)
        else:
            counted = _usage(reply, body)
            turn.usage.prompt_tokens = counted["prompt_tokens"]
            turn.usage.completion_tokens = counted["completion_tokens"]
            turn.usage.cached_tokens = reply.cached
        u = turn.usage
        emit(
            ev.Usage(
                agent=agent,
                prompt_tokens=u.prompt_tokens,
                completion_tokens=u.completion_tokens,
                cached_tokens=u.cached_tokens,
                estimated=u.estimated,
                cost_usd=0.0,
            )
        )
        return turn

    def _next(self, body: dict[str, Any]) -> Reply:
        if callable(self.script):
            return self.script(body)
        if not self.script:
            raise ScriptExhausted(f"request {len(self.requests)}: the script has no reply left")
        return self.script.pop(0)

    def _chunks(self, reply: Text | ToolCalls) -> Iterator[dict[str, Any]]:
        """The reply as a server streams it: reasoning, text, each call's id and name then its
        arguments in pieces, the finish reason."""
        for piece in _pieces(reply.reasoning or "", reply.chunk):
            yield _chunk({"content": None, reply.reasoning_key: piece})
        for piece in _pieces(reply.content or "", reply.chunk):
            yield _chunk({"content": piece})
        if isinstance(reply, ToolCalls):
            for i, c in enumerate(reply.calls):
                call_id = f"call_fake_{next(self._ids)}" if c.id is None else c.id
                head = {"index": i, "id": call_id, "type": "function"}
                yield _chunk(
                    {"tool_calls": [{**head, "function": {"name": c.name, "arguments": ""}}]}
                )
                for piece in _pieces(c.arguments, reply.chunk):
                    yield _chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        yield _chunk({}, reply.finish_reason)


def _chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}


def _pieces(text: str, size: int) -> list[str]:
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]

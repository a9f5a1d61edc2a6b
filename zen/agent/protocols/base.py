"""What every protocol gives the loop: which tools go on the wire, the task's message, how a
reply becomes calls, and how their results become the next message.

The loop (`agent/loop.py`) has one path for both protocols: it asks `read(reply)` for a
`Reading`, runs the reading's calls through its one door (`agent/calls.py`: the registry,
events, runaway checks) inside the run's checkpoints, and adds what `Reading.answer` makes of
their results. A reading with nothing to run leaves the reply standing as the answer, unless it
brings zen's own messages (`Answers`), after which the model goes on.

Calls written as text are made native here, for both protocols, before the reply is kept
(`recover`): a reply that is nothing but calls runs them as calls.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from zen.agent.protocols.written_calls import parse_written_calls
from zen.base import events as ev
from zen.base.text import clip
from zen.llm.types import AssistantTurn, ToolCall
from zen.tools.base import ToolResult
from zen.tools.registry import ToolRegistry

Message = dict[str, Any]
Door = Callable[[ToolCall], Awaitable[ToolResult]]
"""One call through the registry, framed by its events (`Calls.one`): the only way a protocol
runs a tool."""
CUT_CALL = (
    "Not run: your output was cut at max_tokens before this call was complete. Make smaller "
    "steps: write or edit a large file in several calls, or send less in one call."
)


class Step:
    """A call decided only when its turn comes (an edit block, checked against the file as
    the blocks before it left it). `id` names its result."""

    id: str
    may_change_files: bool

    async def run(self, door: Door) -> ToolResult:
        raise NotImplementedError


Call = ToolCall | Step


@dataclass
class Reading:
    """What one reply asks of the loop. Nothing to run and no `answers`: the reply stands as
    the answer (the run ends, unless a Stop hook sends it back)."""

    calls: Sequence[Call] = ()
    answers: list[Message] = field(default_factory=list)
    """Zen's own messages instead of running anything; then the model goes on."""

    def may_change_files(self, registry: ToolRegistry) -> bool:
        """Whether running the calls could change files (the run's checkpoints frame them)."""
        return any(
            c.may_change_files if isinstance(c, Step) else registry.may_change_files(c)
            for c in self.calls
        )

    def answer(
        self,
        results: dict[str, ToolResult],
        started: set[str],
        cancelled: bool,
        checked: str | None = None,
    ) -> list[Message] | None:
        """The messages that answer the calls (`results` by id; `started`: those that began to
        run; `cancelled`: the run stopped midway; `checked`: the syntax check of the files they
        changed, to say). None: they did nothing, the reply stands."""
        return []


@dataclass
class NativeCalls(Reading):
    """Tool calls (native, or written as text and recovered): one `tool` message per call,
    in call order, every call answered even when the run was cancelled."""

    def answer(
        self,
        results: dict[str, ToolResult],
        started: set[str],
        cancelled: bool,
        checked: str | None = None,
    ) -> list[Message] | None:
        """`checked` goes after the result of the last call that changed a file."""
        changing = [c.id for c in self.calls if c.id in results and results[c.id].files_changed]
        messages = []
        for call in self.calls:
            result = results.get(call.id)
            if result:
                content = result.output
                if checked and call.id == changing[-1]:
                    content += f"\n\n{checked}"
            elif call.id in started:
                content = "Cancelled by the user while running; it may have partly run."
            else:
                content = "Cancelled by the user before it ran."
            messages.append({"role": "tool", "tool_call_id": call.id, "content": content})
        return messages


def tool_calls(reply: AssistantTurn, agent: str, emit: ev.Emit) -> Reading:
    """A reply's tool calls to run; cut at max_tokens, answered instead: never run half-formed."""
    if not reply.tool_calls:
        return Reading()
    if reply.finish_reason != "length":
        return NativeCalls(reply.tool_calls)
    text = "output cut at max_tokens: its tool calls were not run"
    emit(ev.Notice(agent=agent, text=text, level="warning"))
    return Reading(
        answers=[
            {"role": "tool", "tool_call_id": c.id, "content": CUT_CALL} for c in reply.tool_calls
        ]
    )


class ToolProtocol:
    """How one agent and its model exchange tool use. `native`: the model drives tools by
    calls now (dual mode's triage makes the first call for it only then)."""

    native = True

    def __init__(self, agent: str, registry: ToolRegistry) -> None:
        self.agent, self.registry = agent, registry

    def wire_tools(self) -> list[dict[str, Any]]:
        """The tool schemas a request carries."""
        return self.registry.schemas()

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        """What a request sends of the conversation (the transcript's messages)."""
        return messages

    async def task_message(self, task: str) -> str:
        """The task as the model gets it."""
        return task

    def recover(self, reply: AssistantTurn, seed: str, emit: ev.Emit) -> AssistantTurn:
        """`reply` with the calls its text attempts made native (and said so), or `reply`
        itself. `seed`: the reply's place in the conversation, so a replay gets the same ids."""
        if reply.tool_calls or not reply.content.strip():
            return reply
        found = parse_written_calls(reply.content, self.registry.schemas())
        if found is None:
            return reply
        calls = [
            ToolCall(call_id(seed, i, reply.content), c.name, c.arguments, origin="text")
            for i, c in enumerate(found)
        ]
        names = ", ".join(dict.fromkeys(clip(c.name, 60) for c in calls))
        n = len(calls)
        text = f"{n} tool call{'s' if n != 1 else ''} recovered from the model's text: {names}"
        emit(ev.Notice(agent=self.agent, text=text))
        return replace(reply, content="", tool_calls=calls)

    async def read(self, reply: AssistantTurn, emit: ev.Emit) -> Reading:
        """What the (kept) reply asks of the loop."""
        return tool_calls(reply, self.agent, emit)

    async def heard(
        self, reading: Reading, results: dict[str, ToolResult], emit: ev.Emit
    ) -> list[Message]:
        """Zen's messages after the reading's calls were answered (`results` by id): none,
        but for `auto`'s switch."""
        return []


def call_id(seed: str, index: int, text: str) -> str:
    """Nine letters and digits, the same for the same reply at the same place: Mistral's
    servers refuse any other id shape."""
    return hashlib.sha256(f"{seed}\0{index}\0{text}".encode("utf-8", "replace")).hexdigest()[:9]

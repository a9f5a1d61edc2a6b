"""Native tool calls, and `auto`: native until the model shows it cannot call tools.

`Native` is the base protocol as it is: every tool's schema on the wire, the model's calls run,
their results `tool` messages. `Auto` (`tool_protocol: auto`) starts native and switches once,
for good, to edit blocks on either evidence that the model cannot call tools:
- an answer makes no usable call although it wrote code or a call-shaped text, before the
  model ever made a usable call: a 1.5B model wrote correct whole functions but no usable call
  (issue 27);
- 2 of the conversation's first 3 turns made only calls that could not run (an unknown tool,
  arguments that do not parse or validate: `ToolResult.malformed`), whatever the third did
  (issue 38). A tool that ran and failed ("no such file") is the model's business, not
  evidence; after the third turn this rule is silent.
"""

from __future__ import annotations

from typing import Any

from zen.agent.protocols.base import Message, Reading, ToolProtocol, tool_calls
from zen.agent.protocols.edit_blocks import EditBlocks, tried
from zen.base import events as ev
from zen.llm.types import AssistantTurn
from zen.tools.base import ToolResult

NO_CALL = "That made no tool call."
FAILED_CALLS = "Your tool calls could not run twice in your first three answers."
WINDOW, FAILED_TURNS = 3, 2
"""The evidence rule: FAILED_TURNS of the first WINDOW turns with only failed calls."""


class Native(ToolProtocol):
    """Tools by calls (`tool_protocol: native`)."""


class Auto(ToolProtocol):
    def __init__(self, native: Native, blocks: EditBlocks) -> None:
        super().__init__(native.agent, native.registry)
        self.blocks = blocks
        self.current: ToolProtocol = native
        self.may_switch = True
        """The no-call rule may still switch: no usable call was made yet."""
        self.turns = self.failed_turns = 0
        """Replies read on tools, and how many of the first WINDOW made only failed calls."""

    @property
    def native(self) -> bool:  # type: ignore[override]
        return self.current.native

    def wire_tools(self) -> list[dict[str, Any]]:
        return self.current.wire_tools()

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        return self.current.wire_messages(messages)

    async def task_message(self, task: str) -> str:
        self.blocks.new_task()
        return await self.current.task_message(task)

    async def read(self, reply: AssistantTurn, emit: ev.Emit) -> Reading:
        if self.current is self.blocks:
            return await self.blocks.read(reply, emit)
        self.turns += 1
        if reply.tool_calls:
            if any(c.name in self.registry.tools for c in reply.tool_calls):
                self.may_switch = False  # the model can drive tools
            return tool_calls(reply, self.agent, emit)
        if not (self.may_switch and tried(reply.content)):
            return Reading()
        self._switch(emit, "the model made no tool call")
        reading = await self.blocks.read(reply, emit)
        return reading if reading.calls else Reading(answers=[await self.blocks.ask_again(NO_CALL)])

    async def heard(
        self, reading: Reading, results: dict[str, ToolResult], emit: ev.Emit
    ) -> list[Message]:
        """Counts a turn among the first WINDOW whose calls all failed to run; the
        FAILED_TURNS-th switches, and the task is asked again in blocks."""
        if self.current is self.blocks or self.turns > WINDOW:
            return []
        ran = [results.get(c.id) for c in reading.calls]
        if not ran or not all(r is not None and r.malformed for r in ran):
            return []
        self.failed_turns += 1
        if self.failed_turns < FAILED_TURNS:
            return []
        why = (
            f"{FAILED_TURNS} of the model's first {WINDOW} turns made only calls that could not run"
        )
        self._switch(emit, why)
        return [await self.blocks.ask_again(FAILED_CALLS)]

    def _switch(self, emit: ev.Emit, why: str) -> None:
        """From tools to edit blocks, for the rest of this agent's conversation."""
        self.current, self.may_switch = self.blocks, False
        self.blocks.transcript.set_system(self.blocks.system_prompt())
        text = f"{why}: switching to edit blocks (tool_protocol: auto)"
        emit(ev.Notice(agent=self.agent, text=text))

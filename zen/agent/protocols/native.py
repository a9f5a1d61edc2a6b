"""Native tool calls, and `auto`: native until the model shows it cannot call tools.

`Native` is the base protocol as it is: every tool's schema on the wire, the model's calls run,
their results `tool` messages. `Auto` (`tool_protocol: auto`) starts native and switches once,
for good, to edit blocks when an answer makes no usable call although it wrote code or a
call-shaped text, before the model ever made a usable call: a 1.5B model wrote correct whole
functions but no usable call (issue 27).
"""

from __future__ import annotations

from typing import Any

from zen.agent.protocols.base import Reading, ToolProtocol, tool_calls
from zen.agent.protocols.edit_blocks import EditBlocks, tried
from zen.base import events as ev
from zen.llm.types import AssistantTurn


class Native(ToolProtocol):
    """Tools by calls (`tool_protocol: native`)."""


class Auto(ToolProtocol):
    def __init__(self, native: Native, blocks: EditBlocks) -> None:
        super().__init__(native.agent, native.registry)
        self.blocks = blocks
        self.current: ToolProtocol = native
        self.may_switch = True

    @property
    def native(self) -> bool:  # type: ignore[override]
        return self.current.native

    def wire_tools(self) -> list[dict[str, Any]]:
        return self.current.wire_tools()

    async def task_message(self, task: str) -> str:
        self.blocks.new_task()
        return await self.current.task_message(task)

    async def read(self, reply: AssistantTurn, emit: ev.Emit) -> Reading:
        if self.current is self.blocks:
            return await self.blocks.read(reply, emit)
        if reply.tool_calls:
            if any(c.name in self.registry.tools for c in reply.tool_calls):
                self.may_switch = False  # the model can drive tools
            return tool_calls(reply, self.agent, emit)
        if not (self.may_switch and tried(reply.content)):
            return Reading()
        self._switch(emit)
        reading = await self.blocks.read(reply, emit)
        return reading if reading.calls else Reading(answers=[await self.blocks.ask_again()])

    def _switch(self, emit: ev.Emit) -> None:
        """From tools to edit blocks, for the rest of this agent's conversation."""
        self.current, self.may_switch = self.blocks, False
        self.blocks.transcript.set_system(self.blocks.system_prompt())
        text = "the model made no tool call: switching to edit blocks (tool_protocol: auto)"
        emit(ev.Notice(agent=self.agent, text=text))

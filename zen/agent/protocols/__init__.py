"""How an agent and its model exchange tool use, one small interface (`base.ToolProtocol`) with
two implementations:

- native tool calls (`native.Native`), with calls a model wrote as text recovered as calls
  (`written_calls`: the parser; `base.ToolProtocol.recover`);
- edit blocks (`edit_blocks.EditBlocks`), for models that cannot call tools: the files come
  with the task (`block_files`, `block_imports`), the answer's SEARCH/REPLACE, whole-file and
  bash blocks are parsed (`block_parser`, `block_paths`) into `block_types`, checked
  (`block_checks`) and applied as tool calls (`block_apply`);
- `native.Auto`, native until the model shows it cannot call tools, then edit blocks for good.

Each agent has its own (`tool_protocol`, per role), so an edit-block Coder can work under a
native Orchestrator.
"""

from __future__ import annotations

from typing import Literal

from zen.agent.prompt import system_prompt
from zen.agent.protocols.base import ToolProtocol
from zen.agent.protocols.edit_blocks import EditBlocks
from zen.agent.protocols.native import Auto, Native
from zen.agent.runaway import Runaways
from zen.agent.transcript import Transcript
from zen.tools.base import ToolContext
from zen.tools.registry import ToolRegistry

Setting = Literal["native", "text", "auto"]


def protocol_for(
    setting: Setting,
    agent: str,
    registry: ToolRegistry,
    ctx: ToolContext,
    transcript: Transcript,
    runaways: Runaways,
) -> ToolProtocol:
    """The protocol `setting` names, for one agent."""
    if setting == "native":
        return Native(agent, registry)
    blocks = EditBlocks(agent, registry, ctx, transcript, runaways, lambda: system_prompt("text"))
    return blocks if setting == "text" else Auto(Native(agent, registry), blocks)

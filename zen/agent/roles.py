"""Roles are data: everything that makes one kind of agent, in one `Role`.

The same `Agent` class runs the single agent, the Orchestrator, the Coder and sub-agents; a role
says what differs: its prompt, its tools in each collaboration mode, the model role it runs on,
its turn limit, whether it gets the planning layer, and whether it is the agent the user talks
to. Adding a role is adding one `Role` here (and its prompt in prompts/); a model role of its
own is one field of `dual_agent` in the config schema.

The single agent holds every built-in tool. In dual mode the Orchestrator scouts and delegates
and never holds write-file / edit-file except in `controlled` mode, where the Coder has no tools
and answers with code the Orchestrator applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zen.settings.schema import Config

Tools = tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class Role:
    name: str
    """What its events carry (a sub-agent's carry `sub:<description>` instead)."""
    prompt: str
    """Its system prompt's first layer: `prompts/<prompt>.md`."""
    tools: Tools | Mapping[str, Tools]
    """Its tools: the same in every collaboration mode, or one list per mode."""
    model: str
    """The model role it runs on in dual mode (`dual_agent.<model>`); in single mode every
    agent runs on the top-level model, `main`."""
    max_turns: Callable[[Config], int]
    """Its turn limit, from the config."""
    variant: bool = False
    """Its prompt has a layer per collaboration mode: `prompts/<prompt>-<mode>.md`."""
    planning: bool = False
    """It gets the planning layer when it holds the todo tool and the feature is on."""
    stub_reads: bool = False
    """Its raw reads become one-line stubs once it noted the file (`read_stubs`: scouts)."""
    top: bool = False
    """The agent the user talks to: work modes, skills and MCP tools apply, its end fires Stop
    hooks (a delegate's SubagentStop), and a compaction keeps its task state in the memo."""

    def tool_names(self, collaboration: str) -> list[str]:
        tools = self.tools
        return list(tools if isinstance(tools, tuple) else tools[collaboration])

    def system_prompt(self, collaboration: str, *, planning: bool, top: str = "") -> str:
        from zen.agent.prompt import system_prompt

        variant = collaboration if self.variant else ""
        return system_prompt(
            self.prompt, variant=variant, planning=self.planning and planning, top=top
        )


def _top_turns(config: Config) -> int:
    return config.max_turns


def _delegate_turns(config: Config) -> int:
    return config.coder_max_turns


SCOUT: Tools = ("read-file", "glob", "grep", "memo", "todo", "bash")
WRITE: Tools = ("write-file", "edit-file")
READ: Tools = ("read-file", "glob", "grep", "memo")
EXTRA: Tools = ("spawn-agents", "git", "skill")
"""Held by the agent the user talks to, when what they need is there (`Tool.needs`)."""
DELEGATES: Tools = (*SCOUT, "send-to-coder", "revert-coder")

MAIN = Role(
    name="main",
    prompt="core",
    tools=("read-file", *WRITE, "glob", "grep", "bash", "memo", "todo", *EXTRA),
    model="main",
    max_turns=_top_turns,
    planning=True,
    top=True,
)
ORCHESTRATOR = Role(
    name="orchestrator",
    prompt="orchestrator",
    tools={
        "delegated": (*DELEGATES, *EXTRA),
        "autonomous": (*DELEGATES, *EXTRA),
        "controlled": (*DELEGATES, *WRITE, *EXTRA),
    },
    model="orchestrator",
    max_turns=_top_turns,
    variant=True,
    planning=True,
    top=True,
)
CODER = Role(
    name="coder",
    prompt="coder",
    tools={
        "delegated": ("read-file", *WRITE, "memo"),
        "autonomous": ("read-file", *WRITE, "memo", "glob", "grep", "bash", "todo"),
        "controlled": (),
    },
    model="coder",
    max_turns=_delegate_turns,
    variant=True,
    # No planning layer: a Coder's task is one step of the Orchestrator's plan.
)
SUBAGENTS: dict[str, Role] = {
    "explore": Role(
        name="explore",
        prompt="explore",
        tools=READ,
        model="scout",
        max_turns=_delegate_turns,
        stub_reads=True,
    ),
    "plan": Role(name="plan", prompt="plan", tools=READ, model="scout", max_turns=_delegate_turns),
    "code": Role(
        name="code",
        prompt="code-subagent",
        tools=("read-file", *WRITE, "memo"),
        model="coder",
        max_turns=_delegate_turns,
    ),
}
"""spawn-agents' sub-agents by type: the readers run on the scout's model, code on the
Coder's."""

TOP: dict[str, Role] = {"single": MAIN, "dual": ORCHESTRATOR}
"""The agent the user talks to, by agent mode."""
NAMED: tuple[Role, ...] = (MAIN, ORCHESTRATOR, CODER)
"""The roles whose agents' events carry the role's name (sub-agents carry theirs), in the
order front-ends list them (usage per role)."""

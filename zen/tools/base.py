"""The one interface every tool shares: built-in, memo, delegation and MCP alike.

A tool is a class with a `name`, a pydantic `Params` model (its JSON schema is what the model
sees), a permission `level` and `async execute(params, ctx)`. Expected failures are returned as
`ToolResult(ok=False, ...)`, never raised: the model reads the message and tries again. Only
cancellation propagates.
"""

from __future__ import annotations

import secrets
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from zen.base.events import Emit, ignore
from zen.settings.prompts import tool_description
from zen.settings.schema import Level
from zen.tools.schemas import clean_schema, lean_schema

if TYPE_CHECKING:
    from zen.settings.command_rules import CommandRules
    from zen.settings.extensions import Extension
    from zen.stores.memo import MemoStore
    from zen.stores.read_tracker import ReadTracker
    from zen.stores.todo import TodoStore
    from zen.tools.hooks import Hooks
    from zen.tools.sandbox.runner import Sandbox
    from zen.tools.workspace import Workspace


class Params(BaseModel):
    """Base for tool parameter models: unknown keys are an error the model gets to read."""

    model_config = ConfigDict(extra="forbid")


@dataclass
class ToolResult:
    ok: bool
    output: str
    """What the model reads."""
    summary: str = ""
    """One line for the log view: `read 42 lines`, `+3 -1`, `exit 0`, or the error."""
    diff: str = ""
    """A unified diff for the user, when the tool changed a file."""
    files_changed: list[str] = field(default_factory=list)
    malformed: bool = False
    """The call itself was wrong (unknown tool, arguments that do not parse or validate):
    counted apart from tools that failed (`zen bench`, `-p`'s JSON)."""

    @classmethod
    def error(cls, message: str, *, malformed: bool = False) -> ToolResult:
        return cls(
            ok=False,
            output=f"Error: {message}",
            summary=message.splitlines()[0][:120],
            malformed=malformed,
        )


@dataclass(frozen=True)
class ApprovalRequest:
    agent: str
    tool: str
    args: dict[str, Any]
    preview: str
    """What will happen: the command, or a diff of the edit."""
    personal: bool = False
    """Only a person may say yes (a command leaving the sandbox): no `--yes`, no `always`."""
    confined: str = ""
    """The rules the call runs under when sandboxed ("" when not), said with the question."""
    rule: str | None = None
    """What "always" keeps: None, the tool; else the command rule (`pytest`); "": none fits."""


@dataclass(frozen=True)
class Approval:
    decision: Literal["yes", "always", "no"]
    feedback: str = ""


Approver = Callable[[ApprovalRequest], Awaitable[Approval]]
NOBODY_TO_ASK = (
    "running a command outside the sandbox needs a person's yes, and nobody is here to give "
    "it (no flag or rule can): run it inside the sandbox, or tell the user what to run"
)


async def refuse_all(request: ApprovalRequest) -> Approval:
    """The approver of a run nobody watches (`zen -p` without `--yes`)."""
    if request.personal:
        return Approval("no", NOBODY_TO_ASK)
    return Approval(
        "no",
        f"{request.tool} needs confirmation and nobody is there to give it; "
        "the user can rerun with --yes to allow it.",
    )


@dataclass(frozen=True)
class Delegation:
    """What a delegated agent (the Coder, a sub-agent) hands back."""

    report: str
    files_changed: list[str]
    memo_keys: list[str]
    ok: bool = True
    checkpoint: str | None = None
    """The snapshot taken before it ran: rejecting its work restores it."""
    changed_nothing: bool = False
    """Its task asked for a change and it changed no file (`agent/nothing_changed.py`)."""


class Delegator(Protocol):
    """Runs a fresh Coder for `send-to-coder`; provided by the dual-agent wiring."""

    async def __call__(self, task: str, context: str | None, call_id: str = "") -> Delegation: ...

    async def revert(self, checkpoint: str, reason: str) -> ToolResult:
        """Reject a Coder's work: its files back as before it ran, the lesson kept."""
        ...


SubAgentType = Literal["explore", "plan", "code"]


class SubTask(Params):
    # One task of a `spawn-agents` call, handed to the Spawner. No docstring: pydantic would
    # put it in the tool's JSON schema.
    description: str = Field(description="a few words")
    prompt: str = Field(min_length=1, description="the whole task")
    type: SubAgentType = "explore"


class Spawner(Protocol):
    """Runs sub-agents concurrently; one Delegation per task, in task order, never raising
    for a sub-agent's failure (only cancellation propagates). Provided by the agent layer."""

    async def __call__(self, tasks: list[SubTask], call_id: str = "") -> list[Delegation]: ...


class TurnFrame(Protocol):
    """Called around a turn whose calls may change files (checkpoints); never raises."""

    async def before(self) -> None: ...

    async def after(self) -> None: ...


def new_run_id() -> str:
    return secrets.token_hex(4)


@dataclass(frozen=True, kw_only=True)
class RunContext:
    """What belongs to one run of an agent (one task): where its events go, who approves its
    calls, who runs its delegations. The caller builds one per run and passes it into
    `Agent.run`; nothing of it stays on the agent, so no run inherits another's.

    `id` names the run: memo entries record it (a delegation's keys are the entries its run
    wrote), and the top agent's run shares it with its checkpoints."""

    id: str = field(default_factory=new_run_id)
    emit: Emit = ignore
    approver: Approver = refuse_all
    delegate: Delegator | None = None
    """Runs `send-to-coder`'s Coder (dual mode)."""
    spawn: Spawner | None = None
    """Runs `spawn-agents`' sub-agents, when the feature is on."""
    frame: TurnFrame | None = None
    """Checkpoints around the turns that may change files (the top agent, when on)."""


@dataclass(frozen=True)
class ToolContext:
    """Everything a tool may touch: one per agent, built by the session, never changed (a call
    gets a copy with its run and call id).

    Tools never import agents or front-ends; what they need from them comes in here.
    """

    workspace: Workspace
    agent: str
    read_tracker: ReadTracker
    memo: MemoStore
    todo: TodoStore
    max_tool_output: int = 30_000
    max_edit_bytes: int = 10_000_000
    """Files above this size are refused by edit-file (config `max_edit_bytes`)."""
    hidden_env: frozenset[str] = frozenset()
    """Environment variables bash does not inherit: zen's own API keys (`key_variables`)."""
    before_change: Callable[[str, dict[str, Any]], Awaitable[None]] | None = None
    """Called with (tool, arguments) before a call that may change files runs: checkpoints
    without git copy the file a file tool is about to write."""
    sandbox: Sandbox | None = None
    """Where bash commands run (the session's, shared, switched by `/sandbox`); None: plain."""
    hooks: Hooks | None = None
    """The user's hooks (PreToolUse, PostToolUse, Stop...); None: there are none."""
    skills: tuple[Extension, ...] = ()
    commands: CommandRules | None = None
    """The session's allow rules for bash (`allow_commands` and those chosen with "always")."""
    """The user's and a trusted project's skills, which the `skill` tool serves."""
    run: RunContext = field(default_factory=RunContext)
    """The run the call belongs to: its events, its delegations, its id."""
    call_id: str = ""
    """The tool call being executed: a delegated run's record links to it."""


AcpKind = Literal[
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"
]
"""ACP's kinds of tool (`acp.schema.ToolKind`, checked by a test): the editor's icon for a call."""
Needs = Literal["todo", "parallel_agents", "git", "checkpoints", "skills"]
"""What must be there for an agent to hold a tool: a feature that is on (`features.todo`,
`features.parallel_agents`), a git repository, checkpoints, skills."""


class Tool(ABC):
    """A tool, and everything zen needs to know about it, on its class.

    A built-in tool is its module `zen/tools/<name>.py` (one tool class each) and its
    description `prompts/tools/<name>.md` (the list of names settings checks `permissions`
    against); which agents hold it is one line of a role (`zen/agent/roles.py`).
    """

    # Set per class by built-in tools, per instance by MCP tools (hence not ClassVar).
    name: str
    Params: ClassVar[type[Params]]
    level: Level = "auto"
    """Its permission level when the user set none (`level_for` may judge the call)."""
    read_only: bool = False
    """Read-only calls of one turn may run concurrently."""
    writes: bool = False
    """It writes files or runs commands, or starts agents that may: a read-only work mode
    (`explain`) takes it away."""
    claude_name: str = ""
    """Its name in Claude Code (`Bash`, `Read`), which a hook written for Claude Code matches
    and is sent; empty: its own name."""
    acp_kind: AcpKind = "other"
    """What an editor (ACP) shows its calls as."""
    nests: bool = False
    """It runs agents (the Coder, sub-agents) whose activity front-ends show under the call."""
    needs: Needs | None = None
    """What an agent needs to hold it; None: nothing."""
    file_arg: bool = False
    """Its `path` names one file (Claude Code's `file_path`, an editor's location)."""

    @property
    def description(self) -> str:
        return tool_description(self.name)

    def schema(self) -> dict[str, Any]:
        """The OpenAI `tools` entry for this tool."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": lean_schema(clean_schema(self.Params.model_json_schema())),
            },
        }

    def level_for(self, params: Any, ctx: ToolContext) -> Level:
        """This call's permission level when the user set none: a tool whose risk depends on
        its arguments (git status vs git commit, a path outside the workspace) overrides it."""
        return self.level

    def may_change_files(self, args: dict[str, Any]) -> bool:
        """Whether this call could change files, judged by what the tool can do, not by its
        permission (`--yes` runs are covered too): such turns are framed by checkpoints."""
        return not self.read_only

    def must_confirm(self, params: Any, ctx: ToolContext) -> bool:
        """Whether this call asks the user even where permissions say `auto` (a write into the
        git hooks folder): a few targets are too dangerous for a blanket rule."""
        return False

    async def settle(self, params: Any, ctx: ToolContext) -> None:
        """Learn, before its permission is decided, what `sandboxed` and `person_only` need to
        know (bash: whether the sandbox works, probed once without blocking the loop)."""
        return None

    def sandboxed(self, params: Any, ctx: ToolContext) -> bool:
        """This call runs in the sandbox, so the `sandboxed` permission approves it."""
        return False

    def person_only(self, params: Any, ctx: ToolContext) -> bool:
        """Only a person may approve this call: no rule, hook or `--yes`."""
        return False

    def allowed_by_rule(self, params: Any, ctx: ToolContext) -> bool:
        """An allow rule approves this call (bash: `allow_commands`), so nobody is asked."""
        return False

    def rule(self, params: Any, ctx: ToolContext) -> str | None:
        """What "always" would keep for this call (`ApprovalRequest.rule`)."""
        return None

    def key_arg(self, args: dict[str, Any]) -> str:
        """What a one-line log shows of this call (`*.py in src`, `app.py`, the command)."""
        if args.get("pattern") and args.get("path"):
            return f"{args['pattern']} in {args['path']}"
        for key in ("path", "command", "pattern", "key", "task", "args"):
            if args.get(key):
                return str(args[key])
        return ""

    async def preview(self, params: Any, ctx: ToolContext) -> str | ToolResult:
        """What a confirmation prompt shows before this call runs.

        A call that cannot succeed returns its error result instead: nobody is asked to
        approve an edit of a file the agent has not read.
        """
        return self.key_arg(params.model_dump())

    @abstractmethod
    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult: ...

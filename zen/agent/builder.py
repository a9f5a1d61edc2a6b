"""How the session's agents are built: their tools, tool context, system prompt and model.

The top agent (the one the user talks to) and every delegate (the Coder, sub-agents) are built
here from the same parts: the built-in tools (plus, for the top agent, the MCP tools),
the shared memo and todo list, the prompt facts, and their role's model. A delegate is made
through the `MakeAgent` a run hands its `Crew`, so delegation needs nothing of the session.

The MCP tools are fixed when a conversation starts (`take_mcp_tools`), so every request of it
repeats the same prefix (prompt caching).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from zen.agent import compaction, work_modes
from zen.agent.delegate import MakeAgent
from zen.agent.edit_checks import TestCommand
from zen.agent.loop import Agent
from zen.agent.prompt import PromptFacts, project_instructions, system_prompt
from zen.agent.protocols import Setting
from zen.agent.roles import Role
from zen.agent.session_models import SessionModels
from zen.agent.transcript import Transcript
from zen.base import events as ev
from zen.settings.command_rules import CommandRules, rule_words
from zen.settings.extensions import Extension, skills_index
from zen.settings.loading import inherited_keys, key_variables
from zen.settings.schema import Config
from zen.settings.user_only import network_by_project
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.session_log import SessionLog
from zen.stores.todo import TodoStore
from zen.tools.base import Tool, ToolContext
from zen.tools.catalog import builtin_tools, shell_name
from zen.tools.hooks import Hooks
from zen.tools.registry import ToolRegistry
from zen.tools.sandbox.runner import Sandbox
from zen.tools.workspace import Workspace

if TYPE_CHECKING:
    from zen.checkpoints.store import CheckpointStore
    from zen.mcp.manager import McpManager


def model_role(role: Role, mode: str) -> str:
    """The model role an agent of `role` runs on: its own in dual mode; in single mode
    every agent runs on the top-level model."""
    return role.model if mode == "dual" else "main"


def prompt_facts(
    workspace: Workspace, config: Config, git_facts: str, warn: Callable[[str], None]
) -> PromptFacts:
    """The facts a session's prompts start from (`warn`: about project instructions)."""
    return PromptFacts(
        workspace=workspace.root,
        shell=shell_name(),
        project=project_instructions(
            workspace, config.prompts, warn, confined=config.prompts_confined
        ),
        git=git_facts,
    )


class AgentBuilder:
    def __init__(
        self,
        models: SessionModels,
        workspace: Workspace,
        *,
        memo: MemoStore,
        todo: TodoStore,
        always: set[str],
        hooks: Hooks,
        checkpoints: CheckpointStore | None,
        extra_tools: list[Tool],
        skills: list[Extension],
        facts: PromptFacts,
        child_log: Callable[[str, str], SessionLog | None],
        warn: Callable[[str], None],
    ) -> None:
        self.models = models
        self.workspace = workspace
        self.memo = memo
        self.todo = todo
        self.hooks = hooks
        self.checkpoints = checkpoints
        config = models.config
        keep = inherited_keys(config, os.environ)
        self.sandbox = Sandbox(
            config.sandbox,
            config.sandbox_options,
            keep,
            workspace.root,
            network_by_project=network_by_project(config),
        )
        """Where bash runs, shared by every agent's calls (`/sandbox` switches its mode)."""
        self.test = TestCommand.of(config.test_cmd, config.test_timeout)
        self.commands = CommandRules(tuple(map(rule_words, config.allow_commands)), always)
        """bash's allow rules: the configuration's, and those kept by "always" in `always`."""
        self.tools: dict[str, Tool] = builtin_tools()
        self.extra_tools = list(extra_tools)
        """The top agent's tools beyond its role's: the MCP tools, once taken (and any the
        session was given)."""
        self.skills = list(skills)
        """The user's and a trusted project's skills: listed in the top agent's prompt."""
        self.facts = facts
        """What every system prompt is built from (refreshed by a compaction)."""
        self.mcp_taken = False
        """The MCP tools are fixed for this conversation (see `take_mcp_tools`)."""
        self._mcp_tools: list[Tool] = []
        """The MCP tools among `extra_tools` (the rest stay)."""
        self._child_log = child_log
        self._warn = warn

    def registry(
        self, names: list[str], *, with_extras: bool = False, work_mode: str | None = None
    ) -> ToolRegistry:
        """The tools of `names` this session can offer (`Tool.needs`), then the extras (the
        top agent's MCP tools), less those a read-only work mode takes away."""
        config = self.models.config
        have = {
            "todo": config.features.todo != "off",
            "parallel_agents": config.features.parallel_agents != "off",
            "git": bool(self.facts.git),
            "checkpoints": self.checkpoints is not None,
            "skills": bool(self.skills),
        }
        tools = [self.tools[n] for n in names if n in self.tools]
        tools = [t for t in tools if t.needs is None or have[t.needs]]
        if with_extras:
            tools.extend(self.extra_tools)
        return ToolRegistry(work_modes.tools_for(work_mode, tools), config.permissions)

    def context(self, agent: str) -> ToolContext:
        """A fresh tool context: shared memo and todos, this agent's own read tracker (its
        runs come with each `Agent.run`)."""
        config = self.models.config
        return ToolContext(
            workspace=self.workspace,
            agent=agent,
            read_tracker=ReadTracker(),
            memo=self.memo,
            todo=self.todo,
            max_tool_output=config.max_tool_output,
            max_edit_bytes=config.max_edit_bytes,
            hidden_env=key_variables(config, os.environ),
            sandbox=self.sandbox,
            hooks=self.hooks or None,
            skills=tuple(self.skills),
            commands=self.commands,
            before_change=self._copy_before_change if self.checkpoints is not None else None,
        )

    async def _copy_before_change(self, tool: str, args: dict[str, Any]) -> None:
        """Checkpoints record the file a file tool (write-file, edit-file) is about to change,
        even where snapshots would leave it out (ignored, too large, in a nested repository)."""
        from zen.checkpoints.safe_git import CheckpointError
        from zen.tools.workspace import PathError

        path = args.get("path")
        kind = self.tools.get(tool)
        writes_file = kind is not None and kind.writes and kind.file_arg
        if self.checkpoints is None or not writes_file or not isinstance(path, str):
            return
        try:
            real = self.workspace.resolve(path)
            rel = real.relative_to(self.workspace.root).as_posix()
        except (PathError, ValueError):
            return  # outside the workspace: the tool refuses it anyway
        try:
            await self.checkpoints.track(rel)
        except (CheckpointError, OSError) as e:
            self._warn(f"checkpoint copy of {rel} failed: {e}")

    def context_policy(self, role: str, *, top: bool = False) -> compaction.ContextPolicy:
        """How an agent on `role`'s model compacts; the restarted conversation starts with
        the facts again, the project instructions re-read from disk. Only the `top` agent
        keeps its task state in the shared memo."""

        def fresh_facts() -> str:
            config = self.models.config
            project = project_instructions(
                self.workspace, config.prompts, confined=config.prompts_confined
            )
            self.facts = replace(self.facts, project=project)
            return self.facts.context()

        return compaction.ContextPolicy(
            self.models.window(role), self.models.config.compact_at, fresh_facts, owns_task=top
        )

    def system_prompt(
        self, role: Role, names: list[str], collaboration: str, *, top: str = ""
    ) -> str:
        """`role`'s system prompt: `names` are the tools it holds, `top` what only the top
        agent gets (work mode, skills). The run's facts are not in it (`PromptFacts.context`)."""
        features = self.models.config.features
        # The planning layer goes to agents that hold the todo tool, when enabled.
        planning = "todo" in names and features.todo == "on" and features.planning_layer == "on"
        return role.system_prompt(collaboration, planning=planning, top=top)

    def protocol(self, model: str, prompt: str) -> tuple[Setting, str]:
        """The tool protocol of an agent on `model` (`tool_protocol`), and its system prompt:
        the edit blocks' own when they are spoken from the start, else `prompt`."""
        setting = self.models.settings(model).protocol
        return setting, system_prompt("text") if setting == "text" else prompt

    def top_agent(
        self,
        role: Role,
        mode: str,
        collaboration: str,
        work_mode: str | None,
        *,
        transcript: Transcript,
        reads: ReadTracker,
        log: SessionLog | None,
        notes: str = "",
    ) -> Agent:
        """The agent the user talks to, continuing the session's `transcript` with its `reads`
        (`notes`: the project notes a new conversation's first message offers)."""
        extra = "\n\n".join(
            filter(
                None,
                [work_modes.mode_prompt(work_mode) if work_mode else "", skills_index(self.skills)],
            )
        )
        names = role.tool_names(collaboration)
        registry = self.registry(names, with_extras=True, work_mode=work_mode)
        names = [n for n in names if n in registry.tools]
        model = model_role(role, mode)
        protocol, prompt = self.protocol(
            model, self.system_prompt(role, names, collaboration, top=extra)
        )
        return Agent(
            role.name,
            self.models.client(model),
            registry,
            replace(self.context(role.name), read_tracker=reads),
            prompt,
            max_turns=role.max_turns(self.models.config),
            top=role.top,
            loop_limit=self.models.config.loop_limit,
            transcript=transcript,
            log=log,
            context=self.context_policy(model, top=True),
            preamble=self.facts.context(notes),
            protocol=protocol,
            test=self.test,
            nudge=self.models.config.nudge_unchanged,
        )

    def delegates(self, mode: str, collaboration: str) -> MakeAgent:
        """How a run in `mode` and `collaboration` makes its delegates. A delegate's first
        message starts with the facts, again after a compaction (which re-reads the project
        instructions): a delegate near its window compacts too. Its messages are saved as a
        child record of the session, linked to the tool call that started it."""

        def make(role: Role, name: str, call_id: str = "") -> Agent:
            model = model_role(role, mode)
            names = role.tool_names(collaboration)
            protocol, prompt = self.protocol(model, self.system_prompt(role, names, collaboration))
            return Agent(
                name,
                self.models.client(model),
                self.registry(names),
                self.context(name),
                prompt,
                max_turns=role.max_turns(self.models.config),
                top=role.top,
                loop_limit=self.models.config.loop_limit,
                log=self._child_log(name, call_id),
                context=self.context_policy(model),
                preamble=self.facts.context(),
                protocol=protocol,
                stub_reads=role.stub_reads,
                test=self.test,
                nudge=self.models.config.nudge_unchanged,
            )

        return make

    async def take_mcp_tools(self, mcp: McpManager | None, emit: ev.Emit, agent: str) -> bool:
        """Before a conversation's first request: wait for MCP servers still starting (a live
        line says which), then fix the tool list for the whole conversation. A server
        restarted later with other tools changes the list only in the next conversation.
        True when they were taken now and differ from those taken before."""
        if mcp is None or self.mcp_taken:
            return False

        def waiting(what: str, elapsed: float, limit: float) -> None:
            emit(ev.Waiting(agent=agent, what=what, elapsed=elapsed, limit=limit))

        await mcp.ready(waiting)
        tools = mcp.tools()
        changed = tools != self._mcp_tools
        mcp_ids = set(map(id, self._mcp_tools))
        self.extra_tools = [t for t in self.extra_tools if id(t) not in mcp_ids] + tools
        self._mcp_tools = tools
        self.mcp_taken = True
        return changed

"""A session: the conversation, the shared stores and the agents built from the config.

The session outlives its agents. Switching between single and dual mode, changing the
collaboration mode or the model rebuilds the top agent but keeps the conversation, the memo
and the todo list; `/clear` empties all three.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Coroutine
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zen import events as ev
from zen.agent import compaction
from zen.agent.context import ContextSplit, WindowResolver, split
from zen.agent.dual import CoderDelegator
from zen.agent.loop import Agent, BudgetLimit, RunResult, TimeLimit
from zen.agent.prompt import PromptFacts, project_instructions, system_prompt
from zen.agent.roles import ORCHESTRATOR, SINGLE
from zen.agent.subagents import SubAgentRunner
from zen.config import DUAL_ROLES, Config, ModelSettings, resolve_model
from zen.llm.client import ChatClient, Deadlines
from zen.llm.pricing import price_for
from zen.llm.types import TokenUsage
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import Approver, Tool, ToolContext, refuse_all
from zen.tools.catalog import builtin_tools, shell_name
from zen.tools.registry import ToolRegistry
from zen.tools.workspace import Workspace

if TYPE_CHECKING:
    from zen.mcp.manager import McpManager


class Session:
    def __init__(
        self,
        config: Config,
        workspace: Workspace,
        *,
        extra_tools: list[Tool] | None = None,
        git_facts: str = "",
        warn: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.config = config
        self.workspace = workspace
        self.memo = MemoStore()
        self.todo = TodoStore()
        self.mode = config.agent_mode
        self.collaboration = config.collaboration
        self.usage: dict[str, TokenUsage] = defaultdict(TokenUsage)
        self.extra_tools = list(extra_tools or [])
        self.tools: dict[str, Tool] = builtin_tools()
        self.facts = PromptFacts(
            workspace=workspace.root,
            shell=shell_name(),
            project=project_instructions(
                workspace, config.prompts, warn, confined=config.prompts_confined
            ),
            git=git_facts,
        )
        self.history: list[dict[str, Any]] = []
        self._clients: dict[str, ChatClient] = {}
        self._windows: dict[str, WindowResolver] = {}
        self._top: Agent | None = None
        self._top_reads = ReadTracker()
        """The top agent's reads survive a mode or model switch, as its conversation does."""
        self.mcp: McpManager | None = None
        """The running MCP servers, when any are configured (set by the composition root)."""
        self.run_cost: float | None = 0.0
        """USD the current (or last) task cost; None when a price was unknown."""
        self._stop_run: Callable[[str], None] | None = None

    # -- what the front-ends call ---------------------------------------------------------

    @property
    def role(self) -> str:
        """The name the top agent's events carry."""
        return "orchestrator" if self.mode == "dual" else "main"

    async def run(self, task: str, emit: ev.Emit, approver: Approver = refuse_all) -> RunResult:
        emit = self._counting(emit)
        agent = self._top_agent()
        agent.ctx.emit = emit
        agent.approver = approver
        agent.ctx.delegate = (
            CoderDelegator(self, emit, approver) if self.mode == "dual" else None
        )
        agent.ctx.spawn = SubAgentRunner(self, emit, approver)
        self.run_cost = 0.0
        try:
            return await self._within_limits(agent.run(task))
        finally:
            self.history = agent.messages[1:]

    async def _within_limits(self, run: Coroutine[Any, Any, RunResult]) -> RunResult:
        """The run, cancelled (its calls closed as on Ctrl-C) once `max_time` has passed or
        it cost more than `max_budget_usd`."""
        limit, budget = self.config.max_time, self.config.max_budget_usd
        if limit is None and budget is None:
            return await run
        task = asyncio.ensure_future(run)
        why = ""

        def stop(reason: str) -> None:
            nonlocal why
            why = why or reason
            task.cancel()

        handle = (asyncio.get_running_loop().call_later(limit, stop, "time")
                  if limit is not None else None)
        self._stop_run = stop if budget is not None else None
        try:
            return await task
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if why and not (me is not None and getattr(me, "cancelling", lambda: 0)()):
                if why == "budget":
                    raise BudgetLimit(
                        f"stopped after spending ${self.run_cost or 0:.4f} (max_budget_usd "
                        f"${budget:g}; raise it with --max-budget-usd)") from None
                raise TimeLimit(f"stopped after {limit:g} s (max_time; raise it with "
                                "--max-time)") from None
            raise
        finally:
            self._stop_run = None
            if handle is not None:
                handle.cancel()

    async def compact(self, emit: ev.Emit, focus: str = "") -> ev.Compacted | None:
        """`/compact [focus]`: the top agent's conversation into the memo, now."""
        if not self.history:
            return None
        agent = self._top_agent()
        agent.ctx.emit = self._counting(emit)
        try:
            return await compaction.compact(agent, "manual", focus)
        finally:
            self.history = agent.messages[1:]

    def context_now(self) -> tuple[int, int | None]:
        """Tokens the top agent's next request holds and its window when known without
        asking the server (for the status line; `/context` asks)."""
        agent = self._top
        if agent is None or agent.context is None or len(agent.messages) < 2:
            return 0, None
        known = agent.context.window.known
        return agent.context_tokens(), known.tokens if known else None

    @property
    def cost_usd(self) -> float | None:
        """The session's cost so far; None when some request's price is unknown."""
        total: float | None = 0.0
        for u in self.usage.values():
            total = None if total is None or u.cost_usd is None else total + u.cost_usd
        return total

    async def context_split(self) -> ContextSplit:
        """What the top agent's next request holds, by part (for `/context`)."""
        agent = self._top_agent()
        assert agent.context is not None
        window = await agent.context.window.get()
        total = agent.context_tokens() if agent.counted else None
        return split(agent.messages, agent.registry.schemas(), window, total)

    def _counting(self, emit: ev.Emit) -> ev.Emit:
        """Tally every agent's `Usage` events by role, so interrupted runs count too."""

        def counted(event: ev.Event) -> None:
            if isinstance(event, ev.Usage):
                role = "sub-agents" if event.agent.startswith("sub:") else event.agent
                self.usage[role].add(TokenUsage(
                    event.prompt_tokens, event.completion_tokens, event.cached_tokens, 1,
                    event.estimated, event.cost_usd,
                ))
                emit(event)
                self._charge(event, emit)
                return
            emit(event)

        return counted

    def _charge(self, usage: ev.Usage, emit: ev.Emit) -> None:
        """Add a request's cost to the task's; stop the task once it passes the budget."""
        known = self.run_cost is not None
        if self.run_cost is not None:
            self.run_cost = (None if usage.cost_usd is None
                             else self.run_cost + usage.cost_usd)
        budget = self.config.max_budget_usd
        if budget is None or self._stop_run is None:
            return
        if self.run_cost is None:
            if known:
                emit(ev.Notice(usage.agent, "max_budget_usd is not enforced: the price of this "
                               "model is unknown (add it under `pricing:`)", level="warning"))
            return
        if self.run_cost > budget:
            self._stop_run("budget")

    def note_read(self, path: Path) -> None:
        """The user attached this whole file to a message: the top agent has read it."""
        self._top_reads.mark_read(path)

    def set_mode(self, mode: str) -> None:
        self.mode = mode  # type: ignore[assignment]
        self._top = None

    def set_collaboration(self, collaboration: str) -> None:
        self.collaboration = collaboration  # type: ignore[assignment]
        self._top = None

    def set_model(self, model: str, role: str | None = None) -> str:
        """Switch `role`'s model (default: the top agent's); returns the role switched.

        `main` is the top level, which every dual role without a model of its own follows;
        `orchestrator`, `coder` and `scout` get their own `dual_agent` model."""
        role = role or self.role
        if role == "main":
            self.config = self.config.model_copy(update={"model": model})
        else:
            dual = self.config.dual_agent
            over = getattr(dual, role).model_copy(update={"model": model})
            self.config = self.config.model_copy(
                update={"dual_agent": dual.model_copy(update={role: over})})
        self._top = None  # clients are cached by their settings: the new model gets its own
        return role

    async def aclose(self) -> None:
        """Close the model clients' HTTP connections."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    def clear(self) -> None:
        self.memo.clear()
        self.todo.clear()
        self.history = []
        self._top_reads = ReadTracker()
        self._top = None

    # -- building agents ------------------------------------------------------------------

    def settings(self, role: str) -> ModelSettings:
        return resolve_model(self.config, role if role in DUAL_ROLES else None)

    def client(self, role: str) -> ChatClient:
        settings = self.settings(role)
        key = settings.model_dump_json()
        if key not in self._clients:
            c = self.config
            self._clients[key] = ChatClient(settings, retries=c.retries, deadlines=Deadlines(
                c.connect_timeout, c.first_byte_timeout, c.idle_timeout, c.timeout
            ), price=price_for(settings.model, settings.base_url, c.pricing))
        return self._clients[key]

    def window(self, role: str) -> WindowResolver:
        """The context window of `role`'s model, asked of its server at most once."""
        settings = self.settings(role)
        key = settings.model_dump_json()
        if key not in self._windows:
            self._windows[key] = WindowResolver(settings)
        return self._windows[key]

    def context_policy(self, role: str, build: Callable[[PromptFacts], str], *,
                       top: bool = False) -> compaction.ContextPolicy:
        """How an agent on `role`'s model compacts; `build` makes its system prompt from
        the facts, which a compaction refreshes (project instructions re-read from disk).
        Only the `top` agent keeps its task state in the shared memo."""

        def fresh_prompt() -> str:
            project = project_instructions(
                self.workspace, self.config.prompts, confined=self.config.prompts_confined
            )
            self.facts = replace(self.facts, project=project)
            return build(self.facts)

        return compaction.ContextPolicy(
            self.window(role), self.config.compact_at, fresh_prompt, owns_task=top
        )

    def registry(self, names: list[str], *, with_extras: bool = False) -> ToolRegistry:
        features = self.config.features
        off = {
            "todo": features.todo == "off",
            "spawn-agents": features.parallel_agents == "off",
            "git": not self.facts.git,
        }
        tools = [self.tools[n] for n in names if n in self.tools and not off.get(n, False)]
        if with_extras:
            tools.extend(self.extra_tools)
        return ToolRegistry(tools, self.config.permissions)

    def context(self, agent: str, emit: ev.Emit = ev.ignore) -> ToolContext:
        """A fresh tool context: shared memo and todos, this agent's own read tracker."""
        return ToolContext(
            workspace=self.workspace,
            agent=agent,
            read_tracker=ReadTracker(),
            memo=self.memo,
            todo=self.todo,
            emit=emit,
            max_tool_output=self.config.max_tool_output,
        )

    def _top_agent(self) -> Agent:
        if self._top is None:
            if self.mode == "dual":
                names = ORCHESTRATOR[self.collaboration]
                collaboration, planning = self.collaboration, self.wants_planning(names)

                def build(facts: PromptFacts) -> str:
                    return system_prompt(
                        "orchestrator", facts, variant=collaboration, planning=planning
                    )
            else:
                names = SINGLE
                planning = self.wants_planning(names)

                def build(facts: PromptFacts) -> str:
                    return system_prompt("core", facts, planning=planning)
            self._top = Agent(
                self.role,
                self.client(self.role),
                self.registry(names, with_extras=True),
                replace(self.context(self.role), read_tracker=self._top_reads),
                build(self.facts),
                max_turns=self.config.max_turns,
                history=self.history,
                context=self.context_policy(self.role, build, top=True),
            )
        return self._top

    def wants_planning(self, names: list[str]) -> bool:
        """The planning layer goes to agents that hold the todo tool, when enabled."""
        features = self.config.features
        return "todo" in names and features.todo == "on" and features.planning_layer == "on"

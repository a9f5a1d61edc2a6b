"""A session: the conversation, the shared stores and the agents built from the config.

The session outlives its agents. Switching between single and dual mode, changing the
collaboration mode or the model rebuilds the top agent but keeps the conversation, the memo
and the todo list; `/clear` starts a new session with all three empty.

With a `SessionStore`, everything is saved as it happens: the record is created at the first
task, each message as it is appended (the Coder's and sub-agents' in child records), memo
changes as they are made, and todos, usage, reads and "always allow" choices with every
message. `resume()` brings a saved session back.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections import defaultdict
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args

from zen.agent import compaction, work_modes
from zen.agent.checkpointing import RunCheckpoints
from zen.agent.context import ContextSplit, WindowResolver, split
from zen.agent.dual import Attempt, CoderDelegator
from zen.agent.loop import Agent, BudgetLimit, RunResult, TimeLimit
from zen.agent.prompt import PromptFacts, project_instructions
from zen.agent.roles import TOP, Role
from zen.agent.subagents import SubAgentRunner
from zen.base import events as ev
from zen.base.text import clip
from zen.llm.client import ChatClient
from zen.llm.deadlines import Deadlines
from zen.llm.pricing import price_for
from zen.llm.types import TokenUsage
from zen.settings.extensions import Extension, skills_index
from zen.settings.model_roles import resolve_model
from zen.settings.prompts import load_prompt, render
from zen.settings.schema import DUAL_ROLES, AgentMode, Collaboration, Config, ModelSettings
from zen.stores.memo import MemoEntry, MemoStore
from zen.stores.project_notes import EARLIER, ProjectNotes, note_line
from zen.stores.read_tracker import ReadTracker
from zen.stores.session_db import SessionError
from zen.stores.session_log import SessionLog
from zen.stores.session_rows import SessionInfo, StoredMemo
from zen.stores.sessions import SessionStore
from zen.stores.todo import TodoItem, TodoStore
from zen.tools.base import Approver, RunContext, Tool, ToolContext, new_run_id, refuse_all
from zen.tools.catalog import builtin_tools, shell_name
from zen.tools.hooks import Hook, Hooks
from zen.tools.registry import ToolRegistry
from zen.tools.workspace import Workspace

if TYPE_CHECKING:
    from zen.checkpoints.store import CheckpointStore
    from zen.mcp.manager import McpManager


FILE_TOOLS = ("write-file", "edit-file")
"""The tools whose target file a git-less checkpoint copies before they write."""


@dataclass(frozen=True)
class Turn:
    """One user message of this session: where it starts in the history, and its run's
    checkpoints (`run` is empty when checkpoints are off or the message came from a resumed
    session)."""

    index: int
    run: str
    label: str


class Session:
    def __init__(
        self,
        config: Config,
        workspace: Workspace,
        *,
        extra_tools: list[Tool] | None = None,
        git_facts: str = "",
        hooks: list[Hook] | None = None,
        skills: list[Extension] | None = None,
        store: SessionStore | None = None,
        warn: Callable[[str], None] = lambda _: None,
    ) -> None:
        self.config = config
        self.workspace = workspace
        self.skills = list(skills or [])
        """The user's and a trusted project's skills: listed in the top agent's prompt."""
        self.hooks = Hooks(list(hooks or []), workspace.root, uuid.uuid4().hex[:12])
        self._session_start: str | None = "startup"
        """SessionStart hooks fire before the next run with this source; None: they have."""
        self.store = store
        self.id: str | None = None
        """The session's record in the store; created at the first task."""
        self.notes = ProjectNotes(store, workspace.root) if store else None
        self.offered: list[str] = []
        """Project notes this session was offered (the keys)."""
        self._notes_text = ""
        self.memo = MemoStore()
        self.todo = TodoStore()
        self.always: set[str] = set()
        """Tools the user allowed for the rest of the session ("always")."""
        self.mode = config.agent_mode
        self.collaboration = config.collaboration
        self.work_mode = config.work_mode
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
        self._mcp_taken = False
        """The MCP tools are fixed for this conversation (see `_take_mcp_tools`)."""
        self._mcp_tools: list[Tool] = []
        """The MCP tools among `extra_tools` (the rest, skills, stay)."""
        self._emit: ev.Emit = ev.ignore
        self._watch_memo()
        self.checkpoints: CheckpointStore | None = None
        """Snapshots of the workspace, when on (set by the composition root)."""
        self.current_run: RunCheckpoints | None = None
        """The checkpoints of the run in progress, or of the last one."""
        self.attempts = 0
        """Coder attempts the Orchestrator rejected (the memo's `attempt:<n>` notes)."""
        self.coder_runs: dict[str, Attempt] = {}
        """This session's Coder runs by the checkpoint taken before each."""
        self._checkpoint_warned = [False]
        self.turns: list[Turn] = []

    # -- what the front-ends call ---------------------------------------------------------

    @property
    def top_role(self) -> Role:
        """The role of the agent the user talks to in the current agent mode."""
        return TOP[self.mode]

    @property
    def role(self) -> str:
        """The name the top agent's events carry."""
        return self.top_role.name

    async def run(self, task: str, emit: ev.Emit, approver: Approver = refuse_all) -> RunResult:
        emit = self._counting(emit)
        asked, self.current_run = task, None
        prompt = await self._prompt_hooks(task, emit)
        if prompt is None:
            return RunResult("", 0)
        task = prompt
        self._emit = emit
        first = not self.history
        self._open_record(task)
        self.hooks.session_id = self.id or self.hooks.session_id
        if first and self._notes_text:
            task = self._notes_text + "\n\n" + task
        await self._take_mcp_tools(emit)
        agent = self._top_agent()
        self.run_cost = 0.0
        run_id = new_run_id()
        frame = None
        if self.checkpoints is not None:
            frame = RunCheckpoints(
                self.checkpoints, emit, asked, self.role, self._checkpoint_warned, run_id
            )
        self.current_run = frame
        run = RunContext(
            id=run_id,
            emit=emit,
            approver=approver,
            delegate=CoderDelegator(self, emit, approver, run_id) if self.mode == "dual" else None,
            spawn=SubAgentRunner(self, emit, approver),
            frame=frame,
        )
        self.turns.append(Turn(len(self.history), frame.run if frame else "", task))
        try:
            result = await self._within_limits(agent.run(task, run))
            result.checkpoint = self.run_checkpoint
            return result
        finally:
            self.history = agent.messages[1:]

    async def _take_mcp_tools(self, emit: ev.Emit) -> None:
        """Before a conversation's first request: wait for MCP servers still starting (a live
        line says which), then fix the tool list for the whole conversation, so every request
        repeats the same prefix (prompt caching). A server restarted later with other tools
        changes the list only in the next conversation."""
        if self.mcp is None or self._mcp_taken:
            return

        def waiting(what: str, elapsed: float, limit: float) -> None:
            emit(ev.Waiting(agent=self.role, what=what, elapsed=elapsed, limit=limit))

        await self.mcp.ready(waiting)
        tools = self.mcp.tools()
        if self._top is not None and not self.history and tools != self._mcp_tools:
            self._top = None  # built early (/context) but nothing sent: build it with them
        mcp = set(map(id, self._mcp_tools))
        self.extra_tools = [t for t in self.extra_tools if id(t) not in mcp] + tools
        self._mcp_tools = tools
        self._mcp_taken = True

    @property
    def run_id(self) -> str:
        return self.current_run.run if self.current_run is not None else ""

    @property
    def run_checkpoint(self) -> str | None:
        """The checkpoint taken before the current (or last) run first changed files."""
        run = self.current_run
        return run.first.id if run is not None and run.first is not None else None

    async def _prompt_hooks(self, task: str, emit: ev.Emit) -> str | None:
        """SessionStart (first run) and UserPromptSubmit hooks: the task with what they add,
        or None when a hook blocked the prompt (the model is not called)."""
        hooks, context = self.hooks, []
        if not hooks:
            return task
        if self._session_start and hooks.wants("SessionStart"):
            said = await hooks.run("SessionStart", emit, self.role, source=self._session_start)
            context += said.context
        self._session_start = None
        if hooks.wants("UserPromptSubmit"):
            said = await hooks.run("UserPromptSubmit", emit, self.role, prompt=task)
            if said.block:
                emit(
                    ev.Notice(
                        agent=self.role,
                        text=f"prompt blocked by a hook: {said.reason}",
                        level="warning",
                    )
                )
                return None
            context += said.context
        return "\n\n".join([task, *context])

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

        handle = (
            asyncio.get_running_loop().call_later(limit, stop, "time")
            if limit is not None
            else None
        )
        self._stop_run = stop if budget is not None else None
        try:
            return await task
        except asyncio.CancelledError:
            me = asyncio.current_task()
            if why and not (me is not None and getattr(me, "cancelling", lambda: 0)()):
                if why == "budget":
                    raise BudgetLimit(
                        f"stopped after spending ${self.run_cost or 0:.4f} (max_budget_usd "
                        f"${budget:g}; raise it with --max-budget-usd)"
                    ) from None
                raise TimeLimit(
                    f"stopped after {limit:g} s (max_time; raise it with --max-time)"
                ) from None
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
        run = RunContext(emit=self._counting(emit))
        try:
            return await compaction.compact(agent, run, "manual", focus)
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
                self.usage[role].add(
                    TokenUsage(
                        event.prompt_tokens,
                        event.completion_tokens,
                        event.cached_tokens,
                        1,
                        event.estimated,
                        event.cost_usd,
                    )
                )
                emit(event)
                self._charge(event, emit)
                return
            emit(event)

        return counted

    def _charge(self, usage: ev.Usage, emit: ev.Emit) -> None:
        """Add a request's cost to the task's; stop the task once it passes the budget."""
        known = self.run_cost is not None
        if self.run_cost is not None:
            self.run_cost = None if usage.cost_usd is None else self.run_cost + usage.cost_usd
        budget = self.config.max_budget_usd
        if budget is None or self._stop_run is None:
            return
        if self.run_cost is None:
            if known:
                emit(
                    ev.Notice(
                        agent=usage.agent,
                        text="max_budget_usd is not enforced: the price of this "
                        "model is unknown (add it under `pricing:`)",
                        level="warning",
                    )
                )
            return
        if self.run_cost > budget:
            self._stop_run("budget")

    def note_read(self, path: Path) -> None:
        """The user attached this whole file to a message: the top agent has read it."""
        self._top_reads.mark_read(path)

    def set_mode(self, mode: str) -> None:
        self.mode = mode  # type: ignore[assignment]
        self._top = None
        self._save_meta()

    def set_work_mode(self, mode: str | None) -> None:
        """`/mode NAME` or `/mode off`; the next run's top agent gets the mode's prompt."""
        if mode:
            work_modes.mode_prompt(mode)  # an unknown name fails here, not at the next run
        self.work_mode = mode
        self._top = None

    def set_collaboration(self, collaboration: str) -> None:
        self.collaboration = collaboration  # type: ignore[assignment]
        self._top = None
        self._save_meta()

    def set_model(self, model: str | None, role: str | None = None) -> str:
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
                update={"dual_agent": dual.model_copy(update={role: over})}
            )
        self._top = None  # clients are cached by their settings: the new model gets its own
        self._save_meta()
        return role

    async def aclose(self) -> None:
        """Close the model clients' HTTP connections."""
        for client in self._clients.values():
            await client.aclose()
        self._clients.clear()

    def rewind_conversation(self, turn: Turn) -> bool:
        """Continue from just before `turn`'s message: it and everything after leave the
        conversation (the memo and todos stay: they are the session's notes). In the store
        the session forks, so the undone messages remain there as a branch.

        False when a compaction has since folded that message into a summary."""
        found = [
            i
            for i, m in enumerate(self.history)
            if m.get("role") == "user" and m.get("content") == turn.label
        ]
        if turn not in self.turns or not found:
            return False
        index = min(found, key=lambda i: abs(i - turn.index))
        if self.store is not None and self.id is not None:
            try:
                self.store.fork(self.id, index, "rewind")
            except Exception as e:  # the conversation still goes back; only saving stops
                self._store_failed(e)
        self.history = self.history[:index]
        self.turns = self.turns[: self.turns.index(turn)]
        self._top = None  # rebuilt from the shorter history at the next message
        return True

    def clear(self) -> None:
        """Start a new session; the old one stays in the store, resumable."""
        self.turns = []
        self.close_record()
        self.memo = MemoStore()
        self.todo = TodoStore()
        self.usage = defaultdict(TokenUsage)
        self.always.clear()
        self.history = []
        self._top_reads = ReadTracker()
        self._top = None
        self._mcp_taken = False
        self._session_start = "clear"
        self._watch_memo()
        self.offer_notes()

    # -- the session record ---------------------------------------------------------------

    @property
    def kept_notes(self) -> ProjectNotes | None:
        """The project notes when they are kept and offered: `memo.persist: on`, a store, and
        a trusted workspace (notes are model output a hostile repository could have steered)."""
        if self.config.memo.persist == "on" and self.config.project_trusted:
            return self.notes
        return None

    def offer_notes(self) -> None:
        """A new session is offered the project notes whose files are unchanged (data for
        its first message; in the memo, so `memo read` works)."""
        self.offered, self._notes_text = [], ""
        notes = self.kept_notes
        if notes is None:
            return
        try:
            fresh = notes.offer()
        except Exception as e:  # a broken store costs the notes, never the session
            self._warn(f"project notes unavailable: {e}")
            return
        for note in fresh:
            self.memo.entries[note.key] = MemoEntry(
                note.key, note.content, note.summary, f"{note.author}, {EARLIER}", note.time
            )
        self.offered = [n.key for n in fresh]
        if fresh:
            self._notes_text = render(
                load_prompt("project-notes"), notes="\n".join(note_line(n) for n in fresh)
            )

    def open_record(self) -> str | None:
        """Create the session's record before its first task (an ACP client names the
        session when it opens it); the first task gives it its title."""
        self._open_record("")
        return self.id

    def _open_record(self, task: str) -> None:
        if self.store is None or self.id is not None:
            return
        try:
            self.id = self.store.create(
                str(self.workspace.root),
                title=title_of(task),
                agent=self.role,
                agent_mode=self.mode,
                collaboration=self.collaboration,
                models=self.models(),
            )
            for entry in self.memo.index():  # offered notes belong to the session's memo
                self.store.put_memo(self.id, _stored(entry))
        except Exception as e:
            self._store_failed(e)

    def close_record(self) -> None:
        """This process stops writing the current record (it stays resumable)."""
        if self.store is not None and self.id is not None:
            try:
                self.store.update(self.id, state=self.state())
                self.store.release(self.id)
            except Exception:
                pass
        self.id = None

    def resume(self, info: SessionInfo, *, keep: frozenset[str] = frozenset()) -> None:
        """Continue a saved session: conversation, memo, todos, usage, "always" choices,
        modes and model (unless `keep` names them: the user chose them for this run), and
        the reads of files unchanged since."""
        assert self.store is not None
        holder = self.store.claim(info.id)
        if holder is not None:
            raise SessionError(
                f"session {info.id} is open in another zen process ({holder}); "
                f"`zen sessions show {info.id}` reads it"
            )
        self.close_record()
        self.history = self.store.messages(info.id)
        self.turns = [
            Turn(i, "", str(m.get("content", "")))
            for i, m in enumerate(self.history)
            if m.get("role") == "user" and isinstance(m.get("content"), str)
        ]
        self.memo = MemoStore()
        for m in self.store.memo(info.id):
            self.memo.entries[m.key] = MemoEntry(
                m.key, m.content, m.summary, m.author, m.time, m.run
            )
        state = info.state
        self.todo = TodoStore(
            [
                TodoItem(int(t["id"]), str(t["text"]), t["status"])
                for t in state.get("todos", [])
                if isinstance(t, dict) and t.get("status") in ("pending", "in_progress", "done")
            ]
        )
        self.usage = defaultdict(TokenUsage)
        for role, u in state.get("usage", {}).items():
            cost = u.get("cost_usd", 0.0)
            self.usage[role] = TokenUsage(
                u.get("prompt_tokens", 0),
                u.get("completion_tokens", 0),
                u.get("cached_tokens", 0),
                u.get("requests", 0),
                cost_usd=float(cost) if type(cost) in (int, float) else None,
            )
        self.always.clear()
        self.always.update(str(t) for t in state.get("always", []))
        self._top_reads = ReadTracker()
        for name, seen in state.get("reads", {}).items():
            if isinstance(seen, list) and _unchanged(name, seen):
                self._top_reads.seen[Path(name)] = (int(seen[0]), int(seen[1]))
        if "agent_mode" not in keep and info.agent_mode in get_args(AgentMode):
            self.mode = info.agent_mode  # type: ignore[assignment]
        if "collaboration" not in keep and info.collaboration in get_args(Collaboration):
            self.collaboration = info.collaboration  # type: ignore[assignment]
        model = info.models.get("model")
        if "model" not in keep and model and model != self.config.model:
            self.config = self.config.model_copy(update={"model": model})
        self.id = info.id
        self.offered, self._notes_text = [], ""
        self._top = None
        self._watch_memo()

    def models(self) -> dict[str, str | None]:
        found = {"model": self.config.model}
        for role in DUAL_ROLES:
            override = getattr(self.config.dual_agent, role).model
            if override:
                found[role] = override
        return found

    def state(self) -> dict[str, Any]:
        """What is saved with each message: todos, usage, "always" choices, reads."""
        return {
            "todos": [{"id": i.id, "text": i.text, "status": i.status} for i in self.todo.items],
            "usage": {role: u.to_json() for role, u in self.usage.items()},
            "always": sorted(self.always),
            "reads": {str(p): list(s) for p, s in self._top_reads.seen.items() if s},
        }

    def child_log(self, agent: str, call_id: str) -> SessionLog | None:
        """A record for a delegated run (the Coder, a sub-agent) under this session."""
        if self.store is None or self.id is None:
            return None
        try:
            child = self.store.create(
                str(self.workspace.root),
                agent=agent,
                parent_id=self.id,
                parent_call=call_id or None,
                agent_mode=self.mode,
                collaboration=self.collaboration,
                models=self.models(),
            )
        except Exception as e:
            self._store_failed(e)
            return None
        return SessionLog(self.store, child, on_error=self._warn)

    def _log(self) -> SessionLog | None:
        if self.store is None or self.id is None:
            return None
        return SessionLog(self.store, self.id, state=self.state, on_error=self._warn)

    def _save_meta(self) -> None:
        if self.store is not None and self.id is not None:
            try:
                self.store.update(
                    self.id,
                    agent_mode=self.mode,
                    collaboration=self.collaboration,
                    models=self.models(),
                )
            except Exception as e:
                self._store_failed(e)

    def _watch_memo(self) -> None:
        self.memo.on_change = self._memo_changed

    def _memo_changed(self, key: str, entry: MemoEntry | None) -> None:
        if self.store is None or self.id is None:
            return
        try:
            if entry is None:
                self.store.delete_memo(self.id, key)
            else:
                self.store.put_memo(self.id, _stored(entry))
            notes = self.kept_notes
            if notes is not None:
                if entry is None:
                    notes.forget(key)
                elif EARLIER not in entry.author:
                    notes.keep(entry, self.id)
        except Exception as e:
            self._store_failed(e)

    def clear_memo(self) -> None:
        """`/memo clear`: this session's memo and the workspace's project notes."""
        self.memo.clear()
        self.offered = []
        if self.notes is not None:
            try:
                self.notes.clear()
            except Exception as e:
                self._store_failed(e)

    def _store_failed(self, error: Exception) -> None:
        self._warn(f"the session is not being saved: {error}")
        self.store = None
        self.notes = None

    def _warn(self, text: str) -> None:
        self._emit(ev.Notice(agent=self.role, text=text, level="warning"))

    # -- building agents ------------------------------------------------------------------

    def settings(self, role: str) -> ModelSettings:
        return resolve_model(self.config, role if role in DUAL_ROLES else None)

    def client(self, role: str) -> ChatClient:
        settings = self.settings(role)
        key = settings.model_dump_json()
        if key not in self._clients:
            c = self.config
            self._clients[key] = ChatClient(
                settings,
                retries=c.retries,
                deadlines=Deadlines(
                    c.connect_timeout, c.first_byte_timeout, c.idle_timeout, c.timeout
                ),
                price=price_for(settings.model, settings.base_url, c.pricing),
            )
        return self._clients[key]

    def window(self, role: str) -> WindowResolver:
        """The context window of `role`'s model, asked of its server at most once."""
        settings = self.settings(role)
        key = settings.model_dump_json()
        if key not in self._windows:
            self._windows[key] = WindowResolver(settings)
        return self._windows[key]

    def context_policy(
        self, role: str, build: Callable[[PromptFacts], str], *, top: bool = False
    ) -> compaction.ContextPolicy:
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
            "revert-coder": self.checkpoints is None,
        }
        tools = [self.tools[n] for n in names if n in self.tools and not off.get(n, False)]
        if with_extras:
            tools.extend(self.extra_tools)
        return ToolRegistry(tools, self.config.permissions)

    def context(self, agent: str) -> ToolContext:
        """A fresh tool context: shared memo and todos, this agent's own read tracker (its
        runs come with each `Agent.run`)."""
        return ToolContext(
            workspace=self.workspace,
            agent=agent,
            read_tracker=ReadTracker(),
            memo=self.memo,
            todo=self.todo,
            max_tool_output=self.config.max_tool_output,
            max_edit_bytes=self.config.max_edit_bytes,
            hooks=self.hooks or None,
            before_change=self._copy_before_change
            if self.checkpoints is not None and self.checkpoints.copies
            else None,
        )

    async def _copy_before_change(self, tool: str, args: dict[str, Any]) -> None:
        """Checkpoints without git: keep the file a file tool is about to change."""
        from zen.checkpoints.safe_git import CheckpointError
        from zen.tools.workspace import PathError

        path = args.get("path")
        if self.checkpoints is None or tool not in FILE_TOOLS or not isinstance(path, str):
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

    def _top_agent(self) -> Agent:
        if self._top is None:
            role, mode = self.top_role, self.work_mode
            extra = "\n\n".join(
                filter(
                    None, [work_modes.mode_prompt(mode) if mode else "", skills_index(self.skills)]
                )
            )
            names = work_modes.tools_for(mode, role.tool_names(self.collaboration))
            build = self.prompt_builder(role, names, top=extra)
            registry = self.registry(names, with_extras=True)
            if mode in work_modes.READ_ONLY:  # MCP tools too: only those that only read
                registry = ToolRegistry(
                    [t for t in registry.tools.values() if t.read_only or t.name in names],
                    self.config.permissions,
                )
            model = self.model_role(role)
            self._top = Agent(
                role.name,
                self.client(model),
                registry,
                replace(self.context(role.name), read_tracker=self._top_reads),
                build(self.facts),
                max_turns=role.max_turns(self.config),
                top=role.top,
                history=self.history,
                log=self._log(),
                context=self.context_policy(model, build, top=True),
            )
        return self._top

    def model_role(self, role: Role) -> str:
        """The model role an agent of `role` runs on: its own in dual mode; in single mode
        every agent runs on the top-level model."""
        return role.model if self.mode == "dual" else "main"

    def prompt_builder(
        self, role: Role, names: list[str], *, top: str = ""
    ) -> Callable[[PromptFacts], str]:
        """Builds `role`'s system prompt from the facts (again after a compaction); `names`
        are the tools it holds, `top` what only the top agent gets (work mode, skills)."""
        collaboration, planning = self.collaboration, self.wants_planning(names)

        def build(facts: PromptFacts) -> str:
            return role.system_prompt(facts, collaboration, planning=planning, top=top)

        return build

    def wants_planning(self, names: list[str]) -> bool:
        """The planning layer goes to agents that hold the todo tool, when enabled."""
        features = self.config.features
        return "todo" in names and features.todo == "on" and features.planning_layer == "on"


TITLE_CHARS = 72


def title_of(task: str) -> str:
    """The first line of the first task, printable, cut to TITLE_CHARS."""
    line = next((ln.strip() for ln in task.splitlines() if ln.strip()), "")
    line = "".join(c if c.isprintable() else " " for c in line)
    return clip(line, TITLE_CHARS)


def _stored(entry: MemoEntry) -> StoredMemo:
    return StoredMemo(
        entry.key, entry.content, entry.summary, entry.author, entry.time, run=entry.run
    )


def _unchanged(name: str, seen: list[Any]) -> bool:
    """Is the file as it was when it was read (same mtime and size)?"""
    try:
        st = os.stat(name)
    except (OSError, ValueError):
        return False
    return [st.st_mtime_ns, st.st_size] == seen

"""A session: the conversation, the shared stores and the agents built from the config.

The session outlives its agents. Switching between single and dual mode, changing the
collaboration mode or the model rebuilds the top agent but keeps the conversation, the memo
and the todo list; `/clear` starts a new session with all three empty.

The session only composes its parts, each with one job: `models` (each role's model, client,
window, usage and cost), `record` (the stored record: everything is saved as it happens, and
`resume()` brings a saved session back), `memo_keeper` (the memo and the project notes kept
from it), `builder` (tools, tool contexts, prompts: how agents are built) and `conversation`
(the top agent's messages and turns). It runs tasks and switches modes; a run hands its
delegations a `Crew`, never the session.
"""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, get_args

from zen.agent import work_modes
from zen.agent.builder import AgentBuilder, prompt_facts
from zen.agent.checkpointing import RunCheckpoints
from zen.agent.conversation import Conversation, Turn
from zen.agent.delegate import Crew
from zen.agent.dual import CoderDelegator, CoderLedger
from zen.agent.handover import orchestrate
from zen.agent.loop import Agent, Opening, RunResult
from zen.agent.memo_keeper import MemoKeeper
from zen.agent.record import Record
from zen.agent.roles import MAIN, TOP
from zen.agent.run_guards import PromptHooks, RunLimits, capped_waits
from zen.agent.session_front import FrontDoor
from zen.agent.session_models import Connect, SessionModels
from zen.agent.subagents import SubAgentRunner
from zen.agent.transcript import Transcript
from zen.agent.triage import ESCALATE_AT, Decision, asks_for_change, opening, triage
from zen.base import events as ev
from zen.llm.types import TokenUsage
from zen.settings.extensions import Extension
from zen.settings.schema import DUAL_ROLES, AgentMode, Collaboration, Config, Triage
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.session_rows import SessionInfo
from zen.stores.sessions import SessionStore
from zen.stores.todo import TodoStore
from zen.tools.base import Approver, RunContext, Tool, new_run_id, refuse_all
from zen.tools.hooks import Hook, Hooks
from zen.tools.workspace import Workspace

if TYPE_CHECKING:
    from zen.checkpoints.store import CheckpointStore
    from zen.mcp.manager import McpManager


class Session(FrontDoor):
    """Besides its parts: `workspace`; `mcp`, the running MCP servers when any are configured;
    `checkpoints`, the workspace's snapshots when on; `memo` and `todo`, shared by its agents;
    `always`, the tools and commands (`bash:pytest`) the user allowed for the session; the
    modes; `triage`, dual mode's triage of the current (or last) task; and `current_run`, the
    checkpoints of the run in progress, or of the last one. What front ends ask of it besides
    is `FrontDoor`'s."""

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
        mcp: McpManager | None = None,
        checkpoints: CheckpointStore | None = None,
        warn: Callable[[str], None] = lambda _: None,
        connect: Connect | None = None,
    ) -> None:
        self.workspace, self.mcp, self.checkpoints = workspace, mcp, checkpoints
        self.hooks = Hooks(list(hooks or []), workspace.root, uuid.uuid4().hex[:12])
        self.prompt_hooks = PromptHooks(self.hooks)
        self.memo, self.todo, self.always = MemoStore(), TodoStore(), set[str]()
        self.mode, self.collaboration = config.agent_mode, config.collaboration
        self.work_mode = config.work_mode
        self.current_run: RunCheckpoints | None = None
        self.triage: Decision | None = None  # the current (or last) task's, in dual mode
        self.triage_setting: Triage = config.triage  # auto, or every task's path (/triage)
        self.direct = False  # dual mode: the single agent holds the conversation (direct path)
        self.coder_ledger, self._checkpoint_warned = CoderLedger(), [False]
        self._emit: ev.Emit = ev.ignore
        self.models = SessionModels(config, connect)
        self.record = Record(
            store, workspace.root, describe=self._describe, state=self._state, warn=self._warn
        )
        self.memo_keeper = MemoKeeper(
            self.memo,
            self.record,
            persist=lambda: self.config.memo.persist == "on" and self.config.project_trusted,
            warn=self._warn,
        )
        self.builder = AgentBuilder(
            self.models,
            workspace,
            memo=self.memo,
            todo=self.todo,
            always=self.always,
            hooks=self.hooks,
            checkpoints=checkpoints,
            extra_tools=list(extra_tools or []),
            skills=list(skills or []),
            facts=prompt_facts(workspace, config, git_facts, warn),
            child_log=self.record.child_log,
            warn=self._warn,
        )
        self.conversation = Conversation(self._build_top, self.record.fork)

    @property
    def config(self) -> Config:
        """The configuration, with the models switched to in this session."""
        return self.models.config

    @property
    def role(self) -> str:
        """The name of the agent the user talks to in the current agent mode."""
        return TOP[self.mode].name

    @property
    def run_checkpoint(self) -> str | None:
        """The checkpoint taken before the current (or last) run first changed files."""
        run = self.current_run
        return run.first.id if run is not None and run.first is not None else None

    async def run(self, task: str, emit: ev.Emit, approver: Approver = refuse_all) -> RunResult:
        emit = capped_waits(self.models.counting(emit), self.models.config.max_time)
        asked, self.current_run = task, None
        prompt = await self.prompt_hooks(task, emit, self.role)
        if prompt is None:
            return RunResult("", 0)
        task = prompt
        self._emit = emit
        conversation = self.conversation
        self.record.open(task, self.role, self.memo)
        self.hooks.session_id = self.record.id or self.hooks.session_id
        changed = await self.builder.take_mcp_tools(self.mcp, emit, self.role)
        roles = ("main",) if self.mode == "single" else DUAL_ROLES
        changed = await self.models.learn(roles) or changed  # profiles pick the protocols
        if changed and not conversation.history:  # built early (/context) but nothing sent
            conversation.reset()
        agent = self._hold(direct=False)
        if conversation.transcript.log is None:  # built before the record opened (/context)
            conversation.transcript.log = self.record.log()
        self.models.start_run()
        run = self._run_context(asked, emit, approver)
        frame = self.current_run
        conversation.turns.append(Turn(len(conversation.history), frame.run if frame else "", task))
        opening = await self._triaged(agent, task, run)
        if self.triage is not None and self.triage.path == "direct":
            agent = self._hold(direct=True)
        limits = RunLimits(self.models)
        try:
            result = await limits.start(agent.run(task, run, opening, asks_for_change(task)))
            if result.stop == "escalated" and self.triage is not None:
                result = await limits.start(self._escalate(agent, result, task, run))
        except asyncio.CancelledError:
            stopped = limits.stopped()
            if stopped is None:
                raise
            raise stopped from None
        finally:
            limits.end()
        result.checkpoint = self.run_checkpoint
        return result

    def _hold(self, direct: bool) -> Agent:
        """The top agent for this task: the single agent's on the direct path, else the
        mode's; the conversation is the same, only its agent is rebuilt."""
        if self.direct != direct:
            self.direct = direct
            self.conversation.reset()
        return self.conversation.agent()

    async def _escalate(
        self, agent: Agent, done: RunResult, task: str, run: RunContext
    ) -> RunResult:
        """A direct run that outgrew its share (`done`, ended `escalated`), orchestrated for
        the rest of the task (`handover`), under the same limits."""
        assert self.triage is not None
        self.triage, result = await orchestrate(
            agent, done, self.triage, task, run, lambda: self._hold(direct=False)
        )
        return result

    async def _triaged(self, agent: Agent, task: str, run: RunContext) -> Opening | None:
        """Dual mode: the task's triage, shown, and how it opens the run (not in a work mode
        without a Coder, such as `explain`: there is nothing to choose)."""
        self.triage = None
        if self.mode != "dual" or "send-to-coder" not in agent.registry.tools:
            return None
        decision = await triage(
            task, self.workspace, self.triage_setting, self.collaboration, self.models.one_model()
        )
        self.triage = decision
        run.emit(decision.event(agent.name))
        if decision.path == "direct":
            return Opening(escalate_at=ESCALATE_AT)
        if not (
            agent.protocol.native and run.delegate is not None
        ):  # `auto` switched: no call to make
            return Opening(note=decision.note())

        def escalated(later: Decision) -> None:
            self.triage = later

        return opening(decision, task, run, agent.name, self.collaboration, escalated)

    def _run_context(self, asked: str, emit: ev.Emit, approver: Approver) -> RunContext:
        """A new run of the top agent: its id, checkpoints (when on) and delegations."""
        run_id = new_run_id()
        frame = None
        if self.checkpoints is not None:
            frame = RunCheckpoints(
                self.checkpoints,
                emit,
                asked,
                self.role,
                self._checkpoint_warned,
                run_id,
                self.record.id or "",
            )
        self.current_run = frame
        crew = Crew(
            self.builder.delegates(self.mode, self.collaboration), self.memo, emit, approver
        )
        coder = None
        if self.mode == "dual":
            coder = CoderDelegator(crew, self.coder_ledger, frame, run_id, self.role)
        spawn = SubAgentRunner(crew, self.config.parallel_agents_max)
        return RunContext(
            id=run_id, emit=emit, approver=approver, delegate=coder, spawn=spawn, frame=frame
        )

    def set_mode(self, mode: str) -> None:
        self.mode = mode  # type: ignore[assignment]
        self.conversation.reset()
        self.record.save_meta()

    def set_work_mode(self, mode: str | None) -> None:
        """`/mode NAME` or `/mode off`; the next run's top agent gets the mode's prompt."""
        if mode:
            work_modes.mode_prompt(mode)  # an unknown name fails here, not at the next run
        self.work_mode = mode
        self.conversation.reset()

    def set_collaboration(self, collaboration: str) -> None:
        self.collaboration = collaboration  # type: ignore[assignment]
        self.conversation.reset()
        self.record.save_meta()

    def set_model(self, model: str | None, role: str | None = None) -> str:
        """Switch `role`'s model (default: the top agent's); returns the role switched
        (see `SessionModels.set_model`)."""
        role = role or self.role
        self.models.set_model(model, role)
        self.conversation.reset()  # clients are cached by settings: the new model gets its own
        self.record.save_meta()
        return role

    def clear(self) -> None:
        """Start a new session; the old one stays in the store, resumable."""
        self.record.close()
        self.conversation.load([])
        self.memo_keeper.load([])
        self.todo.items.clear()
        self.models.usage = defaultdict(TokenUsage)
        self.always.clear()
        self.builder.mcp_taken = False
        self.prompt_hooks.start = "clear"
        self.memo_keeper.offer()

    def resume(self, info: SessionInfo, *, keep: frozenset[str] = frozenset()) -> None:
        """Continue a saved session: conversation, memo, todos, usage, "always" choices,
        modes and model (unless `keep` names them: the user chose them for this run), and
        the reads of files unchanged since."""
        saved = self.record.resume(info)
        self.conversation.load(saved.messages, saved.reads)
        self.memo_keeper.load(saved.memo)
        self.todo.items[:] = saved.todos
        self.models.usage = saved.usage
        self.always.clear()
        self.always.update(saved.always)
        if "agent_mode" not in keep and info.agent_mode in get_args(AgentMode):
            self.mode = info.agent_mode  # type: ignore[assignment]
        if "collaboration" not in keep and info.collaboration in get_args(Collaboration):
            self.collaboration = info.collaboration  # type: ignore[assignment]
        model = info.models.get("model")
        if "model" not in keep and model and model != self.config.model:
            self.models.config = self.config.model_copy(update={"model": model})

    async def aclose(self) -> None:
        """Close the model clients' HTTP connections."""
        await self.models.aclose()

    def _build_top(self, transcript: Transcript, reads: ReadTracker) -> Agent:
        return self.builder.top_agent(
            MAIN if self.direct else TOP[self.mode],
            self.mode,
            self.collaboration,
            self.work_mode,
            transcript=transcript,
            reads=reads,
            log=self.record.log(),
            notes=self.memo_keeper.first_message,
        )

    def _describe(self) -> dict[str, Any]:
        """The modes and models, as the record stores them."""
        return {
            "agent_mode": self.mode,
            "collaboration": self.collaboration,
            "models": self.models.names(DUAL_ROLES if self.mode == "dual" else ("main",)),
        }

    def _state(self) -> dict[str, Any]:
        """What is saved with each message: todos, usage, "always" choices, reads."""
        return {
            "todos": [{"id": i.id, "text": i.text, "status": i.status} for i in self.todo.items],
            "usage": {role: u.to_json() for role, u in self.models.usage.items()},
            "always": sorted(self.always),
            "reads": {str(p): list(s) for p, s in self.conversation.reads.seen.items() if s},
        }

    def _warn(self, text: str) -> None:
        self._emit(ev.Notice(agent=self.role, text=text, level="warning"))

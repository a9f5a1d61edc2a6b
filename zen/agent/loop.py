"""The agent loop: stream a turn, run its tool calls, feed the results back, repeat.

The conversation is append-only: every request repeats the previous request's messages and tool
list byte for byte and only adds to the end, so providers' prefix caches hit on every turn.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from zen.agent import compaction
from zen.agent.calls import Calls
from zen.agent.compaction import ChatModel
from zen.agent.context import messages_tokens, outgrown, tools_tokens
from zen.agent.read_stubs import stubbed
from zen.agent.runaway import STOP_MARK, STREAM_NOTE, Runaways
from zen.agent.text_protocol import TextProtocol
from zen.agent.text_turns import recovered
from zen.base import events as ev
from zen.base.preamble import frame
from zen.llm.errors import ContextLengthError
from zen.llm.repetition import REPETITION
from zen.llm.types import AssistantTurn, LLMError, ToolCall
from zen.stores.session_log import SessionLog
from zen.tools.base import RunContext, ToolContext, ToolResult
from zen.tools.registry import ToolRegistry

STOP_HOOK_LIMIT = 3
"""A Stop hook may send the agent back to work this many times in one run."""
INTERRUPTED = "\n\n[interrupted by the user]"
"""Ends a partial answer kept in the history: the model sees what it had said, and that it
was cut off."""
CUT_MARK = "[answer cut at max_tokens]"


class TimeLimit(LLMError):
    """The task ran out of its time (`max_time`): one line, exit 4 in `-p`."""


class BudgetLimit(LLMError):
    """The task cost more than `max_budget_usd`: one line, its own exit code in `-p`."""


ASK_WINDOW_ABOVE = 2_000
"""Below this many tokens no window can be full: the server is not asked for its size yet."""


@dataclass
class RunResult:
    text: str
    turns: int
    files_changed: list[str] = field(default_factory=list)
    stop: Literal["done", "max_turns", "length", "runaway"] = "done"
    """length: the last answer was cut at max_tokens (its text ends with `CUT_MARK`);
    runaway: the model repeated itself a second time in the run (`agent/runaway.py`)."""
    checkpoint: str | None = None
    """The checkpoint taken before the run first changed files (None: it changed nothing)."""


class Agent:
    def __init__(
        self,
        name: str,
        client: ChatModel,
        registry: ToolRegistry,
        ctx: ToolContext,
        system_prompt: str,
        *,
        max_turns: int = 100,
        top: bool = False,
        history: list[dict[str, Any]] | None = None,
        log: SessionLog | None = None,
        context: compaction.ContextPolicy | None = None,
        loop_limit: int = 3,
        text: TextProtocol | None = None,
        preamble: str = "",
        stub_reads: bool = False,
    ) -> None:
        self.name = name
        self.client = client
        self.registry = registry
        self.ctx = ctx
        self.max_turns = max_turns
        self.top = top
        """The agent the user talks to: its end fires Stop hooks; a delegate's, SubagentStop."""
        self.messages: list[dict[str, Any]] = [{"role": "system", "content": system_prompt}]
        self.messages.extend(history or [])
        self.preamble = preamble
        """This run's facts, framed before the conversation's first message (not the system
        prompt: the prefix every run shares ends where they begin)."""
        self.log = log
        """Where each appended message is saved as it is appended (None: not saved)."""
        self.files_changed: list[str] = []
        """Files this run changed so far: kept as it goes, so a failed run still tells."""
        self.runaways = Runaways(loop_limit)
        self.context = context
        """How the conversation stays inside the window; None: it is never compacted."""
        self._measured = (0, 0)
        """(messages, tokens) the server counted for the last request and its reply."""
        self.compacted_to: int | None = None
        """Tokens right after the last compaction."""
        self._outgrown = False
        """The conversation outgrew the window and the user was told (once)."""
        self.constraints = ""
        """The user's instructions as the last compaction recorded them (task:constraints)."""
        self.text = text
        """Edit blocks instead of tool calls (`tool_protocol: text | auto`); None: native."""
        self.stub_reads = stub_reads  # scouts: a noted file's reads become stubs (read_stubs)
        self.calls = Calls(self)

    def add(self, message: dict[str, Any]) -> None:
        """Append a message to the conversation, and to the session record."""
        self.messages.append(message)
        if self.log is not None:
            self.log.append(message)

    async def run(self, user_text: str, run: RunContext, note: str = "") -> RunResult:
        """Run one task to its end; `run` carries what belongs to this run alone (its events'
        destination, approver, delegations, checkpoints, id); `note`: zen's line for this
        task (dual mode's triage), framed before it with the facts."""
        asked = await self.ask(user_text, note)
        return await self.go_on(run, asked)

    async def ask(self, user_text: str, note: str = "") -> int:
        """The task's message joins the conversation; returns where it is."""
        asked = len(self.messages)
        if self.text is not None:
            user_text = await self.text.task_message(self, user_text)
        facts = "\n".join(filter(None, [self.preamble if asked == 1 else "", note]))
        self.add({"role": "user", "content": frame(facts, user_text)})
        self.files_changed = []
        self.runaways.new_run()
        return asked

    async def go_on(self, run: RunContext, asked: int | None = None) -> RunResult:
        """Turns until the task ends, from the conversation as it stands (`asked`: where the
        task's message is, taken back if its first request fails)."""
        emit = run.emit
        continues = 0
        for turn in range(1, self.max_turns + 1):
            emit(ev.TurnStarted(agent=self.name, turn=turn))
            try:
                reply = await self._request(run)
            except LLMError:
                if asked is not None and len(self.messages) == asked + 1:
                    self._unask(asked)  # never answered: the retry must not hold it twice
                raise
            reply = recovered(
                reply, self.registry.schemas(), str(len(self.messages)), self.name, emit
            )
            self._keep_reply(reply, turn, emit)
            if reply.finish_reason == REPETITION:
                if self._ran_away(emit):
                    return self._runaway_end(reply.content, turn)
                continue
            if self.text is not None and await self.text.handled(self, reply, run):
                continue  # edit blocks applied: their results are the next message
            cut = reply.finish_reason == "length"
            if not reply.tool_calls:
                if cut:
                    return self._cut_answer(reply.content, turn, emit)
                if await self._stop_hook_continues(continues, emit):
                    continues += 1
                    continue
                return RunResult(reply.content, turn, list(self.files_changed))
            if cut:  # a call cut mid-arguments must not run half-formed
                self.calls.refuse(reply.tool_calls, emit)
                continue
            await self.run_calls(reply.tool_calls, run)
            if self.runaways.ended:
                return self._runaway_end("", turn)
        return RunResult("", self.max_turns, list(self.files_changed), stop="max_turns")

    def _keep_reply(self, reply: AssistantTurn, turn: int, emit: ev.Emit) -> None:
        """The reply joins the conversation; what it measured is kept for the context count."""
        self.add(reply.to_message(self.client.echo_reasoning))
        counted = reply.usage.prompt_tokens + reply.usage.completion_tokens
        measured = reply.usage.prompt_tokens and not reply.usage.estimated
        self._measured = (len(self.messages), counted if measured else 0)
        emit(
            ev.TurnEnded(
                agent=self.name,
                turn=turn,
                text=reply.content,
                tool_calls=len(reply.tool_calls),
                finish_reason=reply.finish_reason,
            )
        )

    def _ran_away(self, emit: ev.Emit) -> bool:
        """An answer stopped for repeating itself: the model is told, unless the run ends."""
        self.runaways.stopped_answer(self.name, emit)
        if self.runaways.ended:
            return True
        self.add({"role": "user", "content": STREAM_NOTE})
        return False

    def _runaway_end(self, content: str, turn: int) -> RunResult:
        text = f"{content}\n\n{STOP_MARK}".lstrip()
        return RunResult(text, turn, list(self.files_changed), stop="runaway")

    def _cut_answer(self, content: str, turn: int, emit: ev.Emit) -> RunResult:
        """An answer cut at max_tokens ends the run, marked as cut, with a warning."""
        emit(
            ev.Notice(
                agent=self.name,
                text="the answer was cut at max_tokens (raise max_tokens, or ask for less)",
                level="warning",
            )
        )
        text = f"{content.rstrip()}\n\n{CUT_MARK}".lstrip()
        return RunResult(text, turn, list(self.files_changed), stop="length")

    async def _stop_hook_continues(self, continues: int, emit: ev.Emit) -> bool:
        """Stop (or SubagentStop) hooks may refuse the end of the run with a reason: the
        agent gets the reason as a user message and goes on, at most STOP_HOOK_LIMIT times."""
        hooks = self.ctx.hooks
        event = "Stop" if self.top else "SubagentStop"
        if not hooks or not hooks.wants(event) or continues >= STOP_HOOK_LIMIT:
            return False
        said = await hooks.run(event, emit, self.name, stop_hook_active=continues > 0)
        if not said.block:
            return False
        self.add({"role": "user", "content": f"A {event} hook asks you to go on: {said.reason}"})
        return True

    async def _request(self, run: RunContext) -> AssistantTurn:
        """One model turn; compacts first when the window is full, and once more (then
        retries once) when the server says the conversation is too long."""
        if self.stub_reads:
            self.messages[:] = stubbed(self.messages, lambda k: self.ctx.memo.read(k) is not None)
        if self.context is not None:
            await self._compact_if_full(run)
        try:
            return await self._stream(run.emit)
        except ContextLengthError:
            if self.context is None or await compaction.compact(self, run, "overflow") is None:
                raise
        return await self._stream(run.emit)

    async def _compact_if_full(self, run: RunContext) -> None:
        assert self.context is not None
        used = self.context_tokens()
        if self.context.window.known is None and used < ASK_WINDOW_ABOVE:
            return
        known = await self.context.window.get()
        window = known.tokens
        if used < window * self.context.compact_at:
            return
        if self.compacted_to is not None and used < self.compacted_to + window * (compaction.AGAIN):
            if used >= window and not self._outgrown:  # compacting again would not shrink it
                self._outgrown = True
                run.emit(ev.Notice(agent=self.name, text=outgrown(used, known), level="warning"))
            return
        await compaction.compact(self, run, "auto")

    @property
    def counted(self) -> bool:
        """True when `context_tokens()` rests on the server's own count."""
        n, counted = self._measured
        return bool(counted) and n <= len(self.messages)

    def context_tokens(self) -> int:
        """Tokens the next request holds: the server's count of the last one plus an
        estimate of what came since (all estimated when the server reports no usage)."""
        n, counted = self._measured
        if self.counted:
            return counted + messages_tokens(self.messages[n:])
        return tools_tokens(self.wire_tools()) + messages_tokens(self.messages)

    def wire_tools(self) -> list[dict[str, Any]]:
        """The tool schemas a request carries (none in the text protocol)."""
        schemas = self.registry.schemas()
        return schemas if self.text is None else self.text.wire_tools(schemas)

    def replace_messages(self, messages: list[dict[str, Any]]) -> None:
        """A compaction's new conversation; the server's last count no longer applies."""
        self.messages[:] = messages
        self._measured = (0, 0)
        if self.log is not None:
            self.log.restart(messages[1:])

    async def _stream(self, emit: ev.Emit) -> AssistantTurn:
        """One model turn. Cancelled midway, the text streamed so far stays in the history,
        marked as interrupted."""
        partial: list[str] = []

        def watch(event: ev.Event) -> None:
            if event.agent == self.name:
                if isinstance(event, ev.TextDelta):
                    partial.append(event.text)
                elif isinstance(event, ev.Retrying):
                    partial.clear()  # that attempt's text is thrown away
            emit(event)

        try:
            return await self.client.stream(self.messages, self.wire_tools(), watch, self.name)
        except asyncio.CancelledError:
            text = "".join(partial)
            if text.strip():
                self.add({"role": "assistant", "content": text + INTERRUPTED})
            raise

    def _unask(self, asked: int) -> None:
        """Take back a user message whose request failed before any answer."""
        del self.messages[asked:]
        if self.log is not None and self.log.last_seq >= 0:
            self.log.drop_from(self.log.last_seq)

    async def run_calls(self, calls: list[ToolCall], run: RunContext) -> dict[str, ToolResult]:
        """Run one turn's calls (`Calls.run_all`)."""
        return await self.calls.run_all(calls, run)

    async def run_call(self, call: ToolCall, run: RunContext) -> ToolResult:
        """One call through the registry, framed by its events (edit blocks come this way)."""
        return await self.calls.run_one(call, run)

"""The agent loop: one task, turn by turn: request, parse, run the calls, add the results.

Read it top to bottom: `run` (the task's message, a first call zen may make itself, then the
turns), `_step` (one turn), `_query` (one request), the calls (`_run_calls`, `run_call`), then
how a run ends. Every message enters through `add` (`Transcript.add`), which also saves it.

The conversation is append-only: every request repeats the previous request's messages and tool
list byte for byte and only adds to the end, so providers' prefix caches hit on every turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from zen.agent.calls import Calls
from zen.agent.compaction import Compactor, ContextPolicy
from zen.agent.protocols.edit_blocks import TextProtocol
from zen.agent.protocols.recovered import recovered
from zen.agent.read_stubs import stubbed
from zen.agent.runaway import STOP_MARK, STREAM_NOTE, Runaways
from zen.agent.transcript import Transcript
from zen.base import events as ev
from zen.base.preamble import frame
from zen.llm.errors import ContextLengthError
from zen.llm.repetition import REPETITION
from zen.llm.types import AssistantTurn, ChatModel, LLMError, ToolCall
from zen.stores.session_log import SessionLog
from zen.tools.base import RunContext, ToolContext, ToolResult
from zen.tools.registry import ToolRegistry

STOP_HOOK_LIMIT = 3
"""A Stop hook may send the agent back to work this many times in one run."""
INTERRUPTED = "\n\n[interrupted by the user]"
"""Ends a partial answer kept in the history: the model sees what it had said, and that it
was cut off."""
CUT_MARK = "[answer cut at max_tokens]"
CUT_CALL = (
    "Not run: your output was cut at max_tokens before this call was complete. Make smaller "
    "steps: write or edit a large file in several calls, or send less in one call."
)


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


@dataclass(frozen=True)
class Opening:
    """How zen opens a run before any request (dual mode's triage, `agent/triage.py`): a line
    framed before the task, and a first call zen makes for the model. `settle` reads that
    call's result: the answer that ends the run, or None for the model to go on from it."""

    note: str = ""
    call: ToolCall | None = None
    settle: Callable[[ToolResult | None], str | None] = lambda _: None


class Agent:
    def __init__(
        self,
        name: str,
        client: ChatModel,
        registry: ToolRegistry,
        ctx: ToolContext,
        system_prompt: str,
        *,
        transcript: Transcript | None = None,
        log: SessionLog | None = None,
        max_turns: int = 100,
        top: bool = False,
        context: ContextPolicy | None = None,
        loop_limit: int = 3,
        text: TextProtocol | None = None,
        preamble: str = "",
        stub_reads: bool = False,
    ) -> None:
        self.name, self.client, self.registry, self.ctx = name, client, registry, ctx
        self.max_turns = max_turns
        self.top = top
        """The agent the user talks to: its end fires Stop hooks; a delegate's, SubagentStop."""
        self.transcript = transcript or Transcript()
        """The conversation it continues (the session's, for the top agent)."""
        self.transcript.take_over(system_prompt, log)
        self.preamble = preamble
        """This run's facts, framed before the conversation's first message (not the system
        prompt: the prefix every run shares ends where they begin)."""
        self.files_changed: list[str] = []
        """Files this run changed so far: kept as it goes, so a failed run still tells."""
        self.runaways = Runaways(loop_limit)
        self.calls = Calls(name, registry, ctx, self.runaways, self.files_changed)
        self.text = text
        """Edit blocks instead of tool calls (`tool_protocol: text | auto`); None: native."""
        self.stub_reads = stub_reads  # scouts: a noted file's reads become stubs (read_stubs)
        self.compactor = (
            None
            if context is None
            else Compactor(context, self.transcript, client, registry, ctx, self.wire_tools)
        )
        """Keeps the conversation inside the window; None: it is never compacted."""
        self._continues = 0
        """Times a Stop hook sent this run back to work."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """What the next request sends (read only: `add` is the way in)."""
        return self.transcript.messages

    def add(self, message: dict[str, Any]) -> None:
        """Append a message to the conversation, and to the session record."""
        self.transcript.add(message)

    async def run(self, task: str, run: RunContext, opening: Opening | None = None) -> RunResult:
        """Run one task to its end; `run` carries what belongs to this run alone (its events'
        destination, approver, delegations, checkpoints, id); `opening`: what zen says and
        does before the model is asked (dual mode's triage)."""
        opening = opening or Opening()
        asked = len(self.transcript)
        if self.text is not None:
            task = await self.text.task_message(self, task)
        facts = "\n".join(filter(None, [self.preamble if asked == 1 else "", opening.note]))
        self.add({"role": "user", "content": frame(facts, task)})
        self.files_changed.clear()
        self._continues = 0
        self.runaways.new_run()
        if opening.call is not None:
            answer = await self._open(opening, run)
            if answer is not None:
                return RunResult(answer, 1, list(self.files_changed))
        for turn in range(1, self.max_turns + 1):
            try:
                ended = await self._step(turn, run)
            except LLMError:
                if len(self.transcript) == asked + 1:  # never answered: a retry must not
                    self.transcript.take_back(asked)  # hold it twice
                raise
            if ended is not None:
                return ended
        return RunResult("", self.max_turns, list(self.files_changed), stop="max_turns")

    async def _open(self, opening: Opening, run: RunContext) -> str | None:
        """The first call zen makes for the model; the answer it ends the run with, if any."""
        assert opening.call is not None
        self.add(AssistantTurn(tool_calls=[opening.call]).to_message(self.client.echo_reasoning))
        done = (await self._run_calls([opening.call], run)).get(opening.call.id)
        answer = opening.settle(done)
        if answer is not None:
            self.add({"role": "assistant", "content": answer})
            run.emit(ev.TextDelta(agent=self.name, text=answer))
            run.emit(ev.TurnEnded(agent=self.name, turn=1, text=answer, tool_calls=0))
        return answer

    async def _step(self, turn: int, run: RunContext) -> RunResult | None:
        """One turn: the request, the reply kept, its calls run and answered. The run's
        result when the turn ends it; None to go on."""
        emit = run.emit
        emit(ev.TurnStarted(agent=self.name, turn=turn))
        reply = await self._query(run)
        reply = recovered(
            reply, self.registry.schemas(), str(len(self.transcript)), self.name, emit
        )
        self._keep_reply(reply, turn, emit)
        if reply.finish_reason == REPETITION:
            return self._runaway_end(reply.content, turn) if self._ran_away(emit) else None
        if self.text is not None and await self.text.handled(self, reply, run):
            return None  # edit blocks applied: their results are the next message
        cut = reply.finish_reason == "length"
        if not reply.tool_calls:
            if cut:
                return self._cut_answer(reply.content, turn, emit)
            if await self._stop_hook_continues(emit):
                return None
            return RunResult(reply.content, turn, list(self.files_changed))
        if cut:  # a call cut mid-arguments must not run half-formed
            self._refuse(reply.tool_calls, emit)
            return None
        await self._run_calls(reply.tool_calls, run)
        return self._runaway_end("", turn) if self.runaways.ended else None

    async def _query(self, run: RunContext) -> AssistantTurn:
        """One request; compacts first when the window is full, and once more (then sends
        again) when the server says the conversation is too long. Cancelled midway, the text
        streamed so far stays in the conversation, marked as interrupted."""
        if self.stub_reads:
            noted = stubbed(self.messages, lambda k: self.ctx.memo.read(k) is not None)
            self.transcript.shrink(noted)
        if self.compactor is not None:
            await self.compactor.if_full(run)
        shown = Shown(self.name, run.emit)
        try:
            try:
                return await self.client.stream(self.messages, self.wire_tools(), shown, self.name)
            except ContextLengthError:
                shown = Shown(self.name, run.emit)
                if self.compactor is None or await self.compactor.compact(run, "overflow") is None:
                    raise
            return await self.client.stream(self.messages, self.wire_tools(), shown, self.name)
        except asyncio.CancelledError:
            if "".join(shown.text).strip():
                self.add({"role": "assistant", "content": "".join(shown.text) + INTERRUPTED})
            raise

    def _keep_reply(self, reply: AssistantTurn, turn: int, emit: ev.Emit) -> None:
        """The reply joins the conversation; what it measured is kept for the context count."""
        self.add(reply.to_message(self.client.echo_reasoning))
        self.transcript.measured(reply.usage)
        emit(
            ev.TurnEnded(
                agent=self.name,
                turn=turn,
                text=reply.content,
                tool_calls=len(reply.tool_calls),
                finish_reason=reply.finish_reason,
            )
        )

    # -- the calls ---------------------------------------------------------------------------

    async def _run_calls(self, calls: list[ToolCall], run: RunContext) -> dict[str, ToolResult]:
        """Run one turn's calls (`Calls.run`) inside the run's checkpoints when one may change
        files, and add their results in call order. Cancelled midway, every call still gets a
        result message, so the next request never carries a dangling tool call."""
        results: dict[str, ToolResult] = {}
        frame = run.frame
        if frame is not None and not any(self.registry.may_change_files(c) for c in calls):
            frame = None
        try:
            if frame is not None:  # inside the try: a Ctrl-C here still answers every call
                await frame.before()
            await self.calls.run(calls, run, results)
        finally:
            for call in calls:
                result = results.get(call.id)
                if result:
                    content = result.output
                elif call.id in self.calls.started:
                    content = "Cancelled by the user while running; it may have partly run."
                else:
                    content = "Cancelled by the user before it ran."
                self.add({"role": "tool", "tool_call_id": call.id, "content": content})
            if frame is not None:
                await frame.after()
        return results

    def _refuse(self, calls: list[ToolCall], emit: ev.Emit) -> None:
        """A reply cut at max_tokens: its calls are answered, never run half-formed."""
        text = "output cut at max_tokens: its tool calls were not run"
        emit(ev.Notice(agent=self.name, text=text, level="warning"))
        for call in calls:
            self.add({"role": "tool", "tool_call_id": call.id, "content": CUT_CALL})

    # -- how a run ends ----------------------------------------------------------------------

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
        text = "the answer was cut at max_tokens (raise max_tokens, or ask for less)"
        emit(ev.Notice(agent=self.name, text=text, level="warning"))
        text = f"{content.rstrip()}\n\n{CUT_MARK}".lstrip()
        return RunResult(text, turn, list(self.files_changed), stop="length")

    async def _stop_hook_continues(self, emit: ev.Emit) -> bool:
        """Stop (or SubagentStop) hooks may refuse the end of the run with a reason: the
        agent gets the reason as a user message and goes on, at most STOP_HOOK_LIMIT times."""
        hooks = self.ctx.hooks
        event = "Stop" if self.top else "SubagentStop"
        if not hooks or not hooks.wants(event) or self._continues >= STOP_HOOK_LIMIT:
            return False
        said = await hooks.run(event, emit, self.name, stop_hook_active=self._continues > 0)
        if not said.block:
            return False
        self._continues += 1
        self.add({"role": "user", "content": f"A {event} hook asks you to go on: {said.reason}"})
        return True

    # -- for the session and the protocols ---------------------------------------------------

    async def run_call(self, call: ToolCall, run: RunContext) -> ToolResult:
        """One call through the registry, framed by its events (edit blocks come this way)."""
        return await self.calls.one(call, run)

    @property
    def native(self) -> bool:
        """The model drives tools by calls now (not edit blocks)."""
        return self.text is None or not self.text.active

    def wire_tools(self) -> list[dict[str, Any]]:
        """The tool schemas a request carries (none in the text protocol)."""
        schemas = self.registry.schemas()
        return schemas if self.text is None else self.text.wire_tools(schemas)

    def context_tokens(self) -> int:
        """Tokens the next request holds (`Transcript.tokens`)."""
        return self.transcript.tokens(self.wire_tools())

    async def compact(self, run: RunContext, focus: str = "") -> ev.Compacted | None:
        """`/compact [focus]`: the conversation into the memo, now."""
        return (
            None if self.compactor is None else await self.compactor.compact(run, "manual", focus)
        )


class Shown:
    """The events of one request, passed on; the text this agent streamed is kept, so a
    cancelled answer keeps what the user saw (a retry's `Retrying` drops the attempt's)."""

    def __init__(self, agent: str, emit: ev.Emit) -> None:
        self.agent, self.emit = agent, emit
        self.text: list[str] = []

    def __call__(self, event: ev.Event) -> None:
        if event.agent == self.agent:
            if isinstance(event, ev.TextDelta):
                self.text.append(event.text)
            elif isinstance(event, ev.Retrying):
                self.text.clear()  # that attempt's text is thrown away
        self.emit(event)

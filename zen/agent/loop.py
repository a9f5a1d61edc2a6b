"""The agent loop: one task, turn by turn: request, parse, run the calls, add the results.

Read it top to bottom: `run` (the task's message, a first call zen may make itself, then the
turns), `_step` (one turn), `_query` (one request), `_run_calls`, then how a run ends. What a
reply asks for, and how results are said back, is the agent's protocol's (native calls or edit
blocks, `agent/protocols/`): the loop has one path for both. Every message enters through
`add` (`Transcript.add`), which also saves it.

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
from zen.agent.edit_checks import EditChecks, TestCommand
from zen.agent.nothing_changed import NothingChanged
from zen.agent.protocols import Setting, protocol_for
from zen.agent.protocols.base import NativeCalls, Reading
from zen.agent.read_stubs import stubbed
from zen.agent.runaway import STOP_MARK, STREAM_NOTE, Runaways
from zen.agent.stop_hooks import StopHooks
from zen.agent.transcript import Transcript
from zen.base import events as ev
from zen.base.preamble import frame
from zen.llm.errors import ContextLengthError
from zen.llm.repetition import REPETITION
from zen.llm.types import AssistantTurn, ChatModel, LLMError, ToolCall
from zen.stores.session_log import SessionLog
from zen.tools.base import RunContext, ToolContext, ToolResult
from zen.tools.registry import ToolRegistry

INTERRUPTED = "\n\n[interrupted by the user]"
"""Ends a partial answer kept in the history: the model sees what it had said, and that it
was cut off."""
CUT_MARK = "[answer cut at max_tokens]"


@dataclass
class RunResult:
    text: str
    turns: int
    files_changed: list[str] = field(default_factory=list)
    stop: Literal["done", "max_turns", "length", "runaway", "escalated"] = "done"
    """length: the last answer was cut at max_tokens (its text ends with `CUT_MARK`);
    runaway: the model repeated itself a second time in the run (`agent/runaway.py`);
    escalated: a direct run outgrew its opening's `escalate_at` (the session hands it over)."""
    checkpoint: str | None = None
    """The checkpoint taken before the run first changed files (None: it changed nothing)."""
    changed_nothing: bool = False
    """The task asked for a change and the run changed no file (`agent/nothing_changed.py`)."""


@dataclass(frozen=True)
class Opening:
    """How zen opens a run before any request (dual mode's triage, `agent/triage.py`): a line
    framed before the task, and a first call zen makes for the model. `settle` reads that
    call's result: the answer that ends the run, or None for the model to go on from it."""

    note: str = ""
    call: ToolCall | None = None
    settle: Callable[[ToolResult | None], str | None] = lambda _: None
    escalate_at: float | None = None
    """A direct run ends, `escalated`, before a request once its conversation passed this
    share of the window (dual mode with one model)."""


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
        protocol: Setting = "native",
        preamble: str = "",
        stub_reads: bool = False,
        test: TestCommand | None = None,
        nudge: bool = False,
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
        self.checks = EditChecks(self.calls, test)  # syntax and tests after edits, bounded
        self.unchanged = NothingChanged(name, self.files_changed, nudge)
        self.protocol = protocol_for(protocol, name, registry, ctx, self.transcript, self.runaways)
        """How the model asks for tools and hears back: calls or edit blocks (`tool_protocol`)."""
        self.stub_reads = stub_reads  # scouts: a noted file's reads become stubs (read_stubs)
        self.compactor = (
            None
            if context is None
            else Compactor(context, self.transcript, client, registry, ctx, self.wire_tools)
        )
        """Keeps the conversation inside the window; None: it is never compacted."""
        self.stop_hooks = StopHooks(name, top, ctx.hooks)

    def add(self, message: dict[str, Any]) -> None:
        """Append a message to the conversation, and to the session record."""
        self.transcript.add(message)

    async def run(
        self, task: str, run: RunContext, opening: Opening | None = None, change: bool = False
    ) -> RunResult:
        """Run one task to its end; `run` carries what belongs to this run alone (its events'
        destination, approver, delegations, checkpoints, id); `opening`: what zen says and
        does before the model is asked (dual mode's triage); `change`: the task asks for a
        change (ending with none is told once, then reported)."""
        self.unchanged.new_run(change and any(t.writes for t in self.registry.tools.values()))
        opening = opening or Opening()
        asked = len(self.transcript)
        self.checks.new_run(task)
        task = await self.protocol.task_message(task)
        facts = "\n".join(filter(None, [self.preamble if asked == 1 else "", opening.note]))
        self.add({"role": "user", "content": frame(facts, task)})
        self.files_changed.clear()
        self.runaways.new_run()
        self.stop_hooks.new_run()
        if opening.call is not None:
            answer = await self._open(opening, run)
            if answer is not None:
                return await self._ended(RunResult(answer, 1, list(self.files_changed)), run)
        for turn in range(1, self.max_turns + 1):
            if turn > 1 and await self._outgrew(opening.escalate_at):
                return RunResult("", turn - 1, list(self.files_changed), stop="escalated")
            try:
                ended = await self._step(turn, run)
            except LLMError:
                if len(self.transcript) == asked + 1:  # never answered: a retry must not
                    self.transcript.take_back(asked)  # hold it twice
                raise
            if ended is not None:
                return await self._ended(ended, run)
        result = RunResult("", self.max_turns, list(self.files_changed), stop="max_turns")
        return await self._ended(result, run)

    async def _open(self, opening: Opening, run: RunContext) -> str | None:
        """The first call zen makes for the model; the answer it ends the run with, if any."""
        assert opening.call is not None
        self.add(AssistantTurn(tool_calls=[opening.call]).to_message(self.client.echo_reasoning))
        results = await self._run_calls(NativeCalls([opening.call]), run)
        done = (results or {}).get(opening.call.id)
        answer = opening.settle(done)
        if answer is not None:
            self.add({"role": "assistant", "content": answer})
            run.emit(ev.TextDelta(agent=self.name, text=answer))
            run.emit(ev.TurnEnded(agent=self.name, turn=1, text=answer, tool_calls=0))
        return answer

    async def _outgrew(self, share: float | None) -> bool:
        """The conversation passed `share` of the window (None: never)."""
        if share is None or self.compactor is None:
            return False
        return await self.compactor.past(share)

    async def _step(self, turn: int, run: RunContext) -> RunResult | None:
        """One turn: the request, the reply kept, what it asks run and answered. The run's
        result when the turn ends it; None to go on."""
        emit = run.emit
        emit(ev.TurnStarted(agent=self.name, turn=turn))
        reply = await self._query(run)
        reply = self.protocol.recover(reply, str(len(self.transcript)), emit)
        self._keep_reply(reply, turn, emit)
        if reply.finish_reason == REPETITION and self._ran_away(emit):
            return self._runaway_end(reply.content, turn)
        reading = await self.protocol.read(reply, emit)  # edit blocks before the repeats count
        if reply.finish_reason == REPETITION and not reading.calls:
            self.add({"role": "user", "content": STREAM_NOTE})
            return None
        for message in reading.answers:  # zen answers instead (a cut call, auto's switch)
            self.add(message)
        if reading.answers:
            return None
        results = await self._run_calls(reading, run) if reading.calls else None
        if results is not None:  # the calls were answered; `auto` may switch on them
            if self.runaways.ended:
                return self._runaway_end("", turn)
            for message in await self.protocol.heard(reading, results, emit):
                self.add(message)
            return None
        if reply.finish_reason == "length":  # nothing to run: the reply is the answer
            return self._cut_answer(reply.content, turn, emit)
        again = await self.unchanged.nudge(run)
        if again is not None:  # with the tests' failure, when the task has a test command
            failed = await self.checks.unchanged(self.transcript.messages, run)
            again = f"{again}\n\n{failed}" if failed else again
        again = again or await self.stop_hooks.reason(emit)
        if again is not None:  # a change asked for and not made (once), or a Stop hook
            self.add({"role": "user", "content": again})
            return None
        return RunResult(reply.content, turn, list(self.files_changed))

    async def _query(self, run: RunContext) -> AssistantTurn:
        """One request; compacts first when the window is full, and once more (then sends
        again) when the server says the conversation is too long. Cancelled midway, the text
        streamed so far stays in the conversation, marked as interrupted."""
        if self.stub_reads:
            noted = stubbed(self.transcript.messages, lambda k: self.ctx.memo.read(k) is not None)
            self.transcript.shrink(noted)
        if self.compactor is not None:
            await self.compactor.if_full(run)
        said: list[str] = []  # this request's text so far (a retry's `Retrying` drops it)

        def shown(event: ev.Event) -> None:
            if event.agent == self.name and isinstance(event, ev.TextDelta):
                said.append(event.text)
            elif event.agent == self.name and isinstance(event, ev.Retrying):
                said.clear()
            run.emit(event)

        try:
            try:
                return await self.client.stream(self.wire(), self.wire_tools(), shown, self.name)
            except ContextLengthError:
                said.clear()
                if self.compactor is None or await self.compactor.compact(run, "overflow") is None:
                    raise
            return await self.client.stream(self.wire(), self.wire_tools(), shown, self.name)
        except asyncio.CancelledError:
            if "".join(said).strip():
                self.add({"role": "assistant", "content": "".join(said) + INTERRUPTED})
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

    async def _run_calls(self, reading: Reading, run: RunContext) -> dict[str, ToolResult] | None:
        """Run a reply's calls (`Calls.run`), inside the run's checkpoints when one may change
        files, and add what the protocol makes of their results and of the syntax check of the
        files they changed (`Calls.syntax`). Cancelled midway, the calls are answered all the
        same (no dangling tool call). The results by id; None: the calls did nothing, the reply
        stands as the answer."""
        results: dict[str, ToolResult] = {}
        frame = run.frame if reading.may_change_files(self.registry) else None
        done, checked = False, None
        try:
            if frame is not None:  # inside the try: a Ctrl-C here still answers every call
                await frame.before()
            await self.calls.run(reading.calls, run, results)
            self.unchanged.saw(self.calls.outcomes)
            checked = await self.checks.after(reading.calls, results, self.transcript.messages, run)
            done = True
        finally:
            answer = reading.answer(results, self.calls.started, not done, checked)
            for message in answer or []:
                self.add(message)
            if frame is not None:
                await frame.after()
        return None if answer is None else results

    # -- how a run ends ----------------------------------------------------------------------

    async def _ended(self, result: RunResult, run: RunContext) -> RunResult:
        result.changed_nothing = await self.unchanged.ended(run)
        return result

    def _ran_away(self, emit: ev.Emit) -> bool:
        """An answer stopped for repeating itself, counted: True when the run ends."""
        self.runaways.stopped_answer(self.name, emit)
        return self.runaways.ended

    def _runaway_end(self, content: str, turn: int) -> RunResult:
        text = f"{content}\n\n{STOP_MARK}".lstrip()
        return RunResult(text, turn, list(self.files_changed), stop="runaway")

    def _cut_answer(self, content: str, turn: int, emit: ev.Emit) -> RunResult:
        """An answer cut at max_tokens ends the run, marked as cut, with a warning."""
        text = "the answer was cut at max_tokens (raise max_tokens, or ask for less)"
        emit(ev.Notice(agent=self.name, text=text, level="warning"))
        text = f"{content.rstrip()}\n\n{CUT_MARK}".lstrip()
        return RunResult(text, turn, list(self.files_changed), stop="length")

    # -- for the session and compaction ------------------------------------------------------

    def wire(self) -> list[dict[str, Any]]:
        """The messages a request carries: the conversation, as the protocol sends it."""
        return self.protocol.wire_messages(self.transcript.messages)

    def wire_tools(self) -> list[dict[str, Any]]:
        """The tool schemas a request carries (none for edit blocks)."""
        return self.protocol.wire_tools()

    async def compact(self, run: RunContext, focus: str = "") -> ev.Compacted | None:
        """`/compact [focus]`: the conversation into the memo, now."""
        return (
            None if self.compactor is None else await self.compactor.compact(run, "manual", focus)
        )

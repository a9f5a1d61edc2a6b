"""Compaction anchored in the memo: when a conversation fills its window, shrink it.

First the cheap step: tool outputs older than the newest `KEEP_TOOL_SHARE` of the window become
one-line stubs, if that alone frees enough. Otherwise the model writes the task's state into the
memo under fixed keys (`task:goal`, `task:constraints` with the user's own words, `task:decisions`,
`task:done`, `task:next`, `file:*`), and the conversation restarts from the system prompt (project
instructions re-read from disk), one message holding that state, the memo index and the user's
messages, and the newest turns that fit. Before anything is dropped, every user message must be
represented: each of its sentences verbatim in `task:constraints`, else the message is kept whole.
A structured memo is checkable in a way a prose summary is not, and it outlives the conversation.

`Compactor.compact()` is the one place a compaction starts (the seam for PreCompact hooks). What
is kept, and in what form, is `compacted.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from zen.agent.compacted import (
    STATE_KEYS,
    fit_view,
    merge_constraints,
    parse_state,
    prune_tool_outputs,
    restart_note,
    summary_line,
    tail,
)
from zen.agent.context import (
    WindowResolver,
    message_tokens,
    messages_tokens,
    outgrown,
    tools_tokens,
)
from zen.base import events as ev
from zen.base.preamble import frame
from zen.llm.errors import ContextLengthError
from zen.settings.prompts import load_prompt, render

if TYPE_CHECKING:
    from zen.agent.transcript import Transcript
    from zen.llm.types import ChatModel
    from zen.tools.base import RunContext, ToolContext
    from zen.tools.registry import ToolRegistry

KEEP_TOOL_SHARE = 0.1
"""The newest tool outputs, up to this share of the window, are never stubbed."""
PRUNE_ENOUGH = 0.6
"""Stubbing alone suffices when it brings the conversation under this share of the threshold."""
TAIL_SHARE = 0.15
"""The newest turns since the last user message kept verbatim, up to this share of the window."""
SUMMARY_VIEW = 0.8
"""The summarising request shows the model at most this share of the window."""
AGAIN = 0.05
"""After a compaction, the next automatic one waits until the conversation grew this share."""
ASK_WINDOW_ABOVE = 2_000
"""Below this many tokens no window can be full: the server is not asked for its size yet."""


@dataclass
class ContextPolicy:
    """What an agent needs to keep its conversation inside the window."""

    window: WindowResolver
    compact_at: float = 0.8
    facts: Callable[[], str] | None = None
    """The run's facts afresh (project instructions re-read from disk), framed before the
    restart message as before the first."""
    owns_task: bool = True
    """The agent the user talks to keeps its `task:*` state in the shared memo. A Coder or
    sub-agent keeps its own only in its restart message (its sub-task must not overwrite the
    Orchestrator's); its `file:*` notes are shared either way."""


class Compactor:
    """Keeps one agent's conversation (`transcript`) inside its window: it knows the agent's
    model, tools (`tools`: those a request carries now) and context, never the agent."""

    def __init__(
        self,
        policy: ContextPolicy,
        transcript: Transcript,
        model: ChatModel,
        registry: ToolRegistry,
        ctx: ToolContext,
        tools: Callable[[], list[dict[str, Any]]],
    ) -> None:
        self.policy = policy
        self.transcript, self.model, self.registry, self.ctx = transcript, model, registry, ctx
        self.tools = tools
        self.compacted_to: int | None = None
        """Tokens right after the last compaction."""
        self.constraints = ""
        """The user's instructions as the last compaction recorded them (task:constraints)."""
        self._outgrown = False
        """The conversation outgrew the window and the user was told (once)."""

    async def if_full(self, run: RunContext) -> None:
        """Before a request: compact when the conversation passed `compact_at` of the window
        (not again before it grew `AGAIN` more; past the window, the user is told once)."""
        policy = self.policy
        used = self.transcript.tokens(self.tools())
        if policy.window.known is None and used < ASK_WINDOW_ABOVE:
            return
        known = await policy.window.get()
        window = known.tokens
        if used < window * policy.compact_at:
            return
        if self.compacted_to is not None and used < self.compacted_to + window * AGAIN:
            if used >= window and not self._outgrown:  # compacting again would not shrink it
                self._outgrown = True
                run.emit(
                    ev.Notice(agent=self.ctx.agent, text=outgrown(used, known), level="warning")
                )
            return
        await self.compact(run, "auto")

    async def past(self, share: float) -> bool:
        """The conversation holds more than `share` of the window (the window is asked only
        past `ASK_WINDOW_ABOVE` tokens, as for compacting)."""
        used = self.transcript.tokens(self.tools())
        if self.policy.window.known is None and used < ASK_WINDOW_ABOVE:
            return False
        return used > (await self.policy.window.get()).tokens * share

    async def compact(self, run: RunContext, reason: str, focus: str = "") -> ev.Compacted | None:
        """Compact the conversation within `run` (its events, and the run its memo notes are
        credited to); the one place a compaction starts.

        reason: "auto" (the threshold was crossed: stubbing old tool outputs is tried first),
        "overflow" (the server said the request is too long), "manual" (/compact [focus]) or
        "handover" (a direct run becomes orchestrated: its notes go to the memo and the
        conversation restarts from them alone, no turn kept; `agent/triage.py`).
        Returns the event it emitted, or None when there was nothing to compact.
        """
        policy, transcript, name = self.policy, self.transcript, self.ctx.agent
        if len(transcript) < 2:
            return None
        hooks = self.ctx.hooks
        if hooks and hooks.wants("PreCompact"):
            trigger = "manual" if reason == "manual" else "auto"
            await hooks.run(
                "PreCompact", run.emit, name, trigger=trigger, custom_instructions=focus
            )
        schemas = self.tools()
        before = transcript.tokens(schemas)
        if reason == "overflow":  # the server's window is evidently smaller than this request
            policy.window.learn_limit(before)
        window = (await policy.window.get()).tokens
        if reason == "auto":
            pruned = prune_tool_outputs(
                transcript.messages, int(window * KEEP_TOOL_SHARE), self.registry.detail
            )
            after = tools_tokens(schemas) + messages_tokens(pruned)
            if pruned != transcript.messages and after <= window * policy.compact_at * PRUNE_ENOUGH:
                transcript.restart(pruned)
                return self._done(run.emit, reason, before, after, 0)

        run.emit(ev.Compacting(agent=name))
        entries = await self._summarise(run.emit, window, focus)
        state = self._keep_state(entries, run.id)
        messages = self._restart(state, window, keep_turns=reason != "handover")
        if reason in ("manual", "handover") and messages[-1]["role"] == "user":
            # the next task arrives as a user message: keep roles alternating for strict templates
            messages.append({"role": "assistant", "content": load_prompt("compacted-ack")})
        after = tools_tokens(schemas) + messages_tokens(messages)
        transcript.restart(messages)
        return self._done(run.emit, reason, before, after, len(self.ctx.memo.entries))

    async def _summarise(self, emit: ev.Emit, window: int, focus: str) -> dict[str, str]:
        """One request asking the model for the state; {memo key: content} ({} if it failed)."""
        wish = f"\nThe user asks to keep in particular: {focus.strip()}" if focus.strip() else ""
        ask = {"role": "user", "content": render(load_prompt("compact"), focus=wish)}
        schemas = self.tools()
        budget = int(window * SUMMARY_VIEW) - tools_tokens(schemas) - message_tokens(ask)
        name = self.ctx.agent
        for _ in range(2):
            view = fit_view(self.transcript.messages, budget, self.registry.detail)
            try:
                reply = await self.model.stream([*view, ask], schemas, _quiet(emit), name)
            except ContextLengthError:  # again, at half of what was just refused
                budget = min(budget, messages_tokens(view)) // 2
                continue
            return parse_state(reply.content, [(c.name, c.arguments) for c in reply.tool_calls])
        emit(
            ev.Notice(
                agent=name,
                text="compaction: the model could not summarise; keeping your messages verbatim",
                level="warning",
            )
        )
        return {}

    def _keep_state(self, entries: dict[str, str], run: str) -> dict[str, str]:
        """Write the summary's `entries` into the memo (an agent that does not own the task
        keeps only its `file:*` notes there); the task state the restart starts from."""
        memo, owns = self.ctx.memo, self.policy.owns_task
        earlier = memo.read("task:constraints") if owns else None
        carried = earlier.content if earlier else self.constraints
        if carried:  # instructions only ever accumulate: an earlier compaction's are never lost
            entries["task:constraints"] = merge_constraints(
                carried, entries.get("task:constraints", "")
            )
        self.constraints = entries.get("task:constraints", "")
        for key, content in entries.items():
            if owns or not key.startswith("task:"):
                memo.write(key, content, summary_line(content), self.ctx.agent, run=run)
        if owns:  # the memo's state, older keys this summary left out included
            found = (memo.read(key) for key in STATE_KEYS)
            return {e.key: e.content for e in found if e is not None}
        return {key: entries[key] for key in STATE_KEYS if key in entries}

    def _restart(
        self, state: dict[str, str], window: int, keep_turns: bool = True
    ) -> list[dict[str, Any]]:
        """The system prompt, the restart message (after the facts), the newest turns that
        fit (`keep_turns`)."""
        messages, policy = self.transcript.messages, self.policy
        note = restart_note(messages, state, self.ctx.memo.index_text())
        facts = policy.facts() if policy.facts else ""
        head = [messages[0], {"role": "user", "content": frame(facts, note)}]
        room = int(window * policy.compact_at * 0.9) - messages_tokens(head)
        budget = min(int(window * TAIL_SHARE), room - tools_tokens(self.tools()))
        return head + tail(messages, budget) if keep_turns else head

    def _done(
        self, emit: ev.Emit, reason: str, before: int, after: int, memo_keys: int
    ) -> ev.Compacted:
        event = ev.Compacted(
            agent=self.ctx.agent, before=before, after=after, memo_keys=memo_keys, reason=reason
        )
        self.compacted_to = after
        emit(event)
        return event


def _quiet(emit: ev.Emit) -> ev.Emit:
    """The summary is for the memo, not the screen: pass on only usage and retries."""

    def quiet(event: ev.Event) -> None:
        if isinstance(event, (ev.Usage, ev.Retrying)):
            emit(event)

    return quiet

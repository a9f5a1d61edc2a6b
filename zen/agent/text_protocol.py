"""The text protocol: edit blocks instead of tool calls, for models that cannot drive tools.

With `tool_protocol: text` no tool schema goes on the wire. The task's files come with the
task (`text_context`), the model answers with SEARCH/REPLACE blocks, whole files and ```bash
blocks (`zen.tools.files.edit_blocks`), and each block becomes a call of edit-file, write-file
or bash that goes through the agent's own door (`run_call`): the registry's confinement,
permissions, approvals and hooks, the read tracker's stale check, the run's checkpoints. The
results come back as the next user message; an answer without blocks ends the run.

`auto` starts native and switches once, for good, when the model's answer makes no usable call
although it wrote code or a call-shaped text, before it ever made a usable call.

Tool calls written as text (`zen.agent.text_turns.recovered`) are made native before the reply
gets here, in either protocol: a reply that is only calls runs them as calls (a recovered call
counts as usable for `auto`); blocks never mix with them, since recovery takes only replies
that are nothing but calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Literal

from zen.agent import text_context as tc
from zen.agent.edits import syntax_check
from zen.agent.text_apply import Applier, TextAgent, owner
from zen.base import events as ev
from zen.base.preamble import asked
from zen.llm.types import AssistantTurn
from zen.settings.prompts import load_prompt, render
from zen.tools.base import RunContext, ToolContext
from zen.tools.files.edit_blocks import Block, Malformed, WholeFile, lone_fence, parse
from zen.tools.files.text import off_loop

Setting = Literal["native", "text", "auto"]
_CODE = re.compile(r"^[^\S\n]*(```|~~~|<{5,9}\s*SEARCH)", re.M)
"""Not `^\\s*`: from every line start it ran over all the blank lines after (quadratic)."""
_CALL_SHAPED = re.compile(r'<tool_call>|<function=|"name"\s*:\s*"[\w.-]+"\s*,\s*"arguments"')
NOTE = "[zen] "
"""Begins each user message the protocol writes (results, the switch): what zen said, not the
user, so compaction and the session's turns leave them out of the user's words."""
ALL_DONE = "All applied. If the task is done, answer in a sentence without blocks."
CUT = "Your answer was cut at max_tokens: send fewer, smaller blocks."
SOME_FAILED = "Fix what failed with new blocks; when the task is done, answer without blocks."
MAX_ANSWER = 1_000_000
"""Bytes of an answer read for blocks. More than any model writes in one answer (128K output
tokens are about 500 KB), so only a runaway or a hostile server sends more; at the cap the
parse takes under a second of CPU, off the event loop (dev/bench/edit_blocks.py)."""
TOO_LONG = (
    "your answer is {size:,} bytes, over the {cap:,} zen reads for blocks: nothing in it was "
    "applied or run. Send fewer blocks per answer, and SEARCH/REPLACE blocks for the lines you "
    "change rather than whole files"
)


def from_zen(content: object) -> bool:
    """A user message the protocol wrote (see NOTE)."""
    return isinstance(content, str) and content.startswith(NOTE)


class TextProtocol:
    """One agent's protocol: `active` once it speaks edit blocks (from the start, or after
    `auto` switched)."""

    def __init__(self, setting: Setting, system_prompt: Callable[[], str]) -> None:
        self.active = setting == "text"
        self.may_switch = setting == "auto"
        self.system_prompt = system_prompt
        """The text protocol's system prompt (an `auto` switch puts it in place)."""
        self._shown: dict[Any, tuple[int, int] | None] = {}
        """Files shown to the model, with their stamp then: shown again once they change."""
        self._last = ""
        self._ran: set[str] = set()

    def wire_tools(self, schemas: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The tools a request carries: none once the protocol is active."""
        return [] if self.active else schemas

    async def task_message(self, agent: TextAgent, task: str) -> str:
        """The task, with the files it needs attached when the protocol is active."""
        self._last, self._ran = "", set()
        if not self.active:
            return task
        files = await self.files_for(agent, task)
        return f"{task}\n\n{files}" if files else task

    async def files_for(self, agent: TextAgent, task: str) -> str:
        """The relevant files not shown yet (or changed since), marked as read."""
        ws = agent.ctx.workspace
        skip = tc.attached_paths(task, ws)
        paths, too_big = await off_loop(tc.relevant, task, ws, skip)
        held = tc.attached_names(agent.messages)
        seen = await off_loop(self._read, agent.ctx, paths, held)
        return tc.render(seen, too_big)

    def _read(self, ctx: ToolContext, paths: list[Any], held: set[str]) -> list[tc.Seen]:
        """The files to show: not those the conversation still holds, unchanged (a
        compaction drops attachments; a rewind, the messages that held them)."""
        seen = []
        for path in paths:
            s = tc.read_seen(ctx, path)
            if s is None or (s.shown in held and self._shown.get(s.path, False) == s.stamp):
                continue
            self.show(ctx, s)
            seen.append(s)
        return seen

    def show(self, ctx: ToolContext, seen: tc.Seen) -> None:
        """The model sees `seen` now: the read tracker learns it (the stale check)."""
        ctx.read_tracker.mark_read(seen.path, seen.stamp)
        self._shown[seen.path] = seen.stamp

    async def handled(self, agent: TextAgent, reply: AssistantTurn, run: RunContext) -> bool:
        """After each reply: True when the loop goes on (blocks applied and their results
        sent, or the switch to edit blocks made); False when the reply stands as the loop
        would take it (native calls to run, or the final answer)."""
        if reply.tool_calls:
            if any(c.name in agent.registry.tools for c in reply.tool_calls):
                self.may_switch = False  # the model can drive tools
            return False
        switched = False
        if not self.active:
            if not (self.may_switch and _tried(reply.content)):
                return False
            self._switch(agent, run.emit)
            switched = True
        blocks = await _blocks(agent, reply.content)
        if switched and not blocks:
            await self._ask_again(agent)
            return True
        if not blocks:
            return False
        if reply.content.strip() == self._last:
            stop = "the model sent the same blocks again: stopped"
            run.emit(ev.Notice(agent=agent.name, text=stop, level="warning"))
            return False
        self._last = reply.content.strip()
        applier = Applier(agent, run, lambda seen: self.show(agent.ctx, seen), self._ran)
        report = await self._apply(applier, blocks, cut=reply.finish_reason == "length")
        if not applier.acted:
            return False  # nothing left to do: the answer stands
        agent.add({"role": "user", "content": report})
        return True

    def _switch(self, agent: TextAgent, emit: ev.Emit) -> None:
        """From tools to edit blocks, for the rest of this agent's conversation."""
        self.active, self.may_switch = True, False
        agent.messages[0] = {"role": "system", "content": self.system_prompt()}
        emit(
            ev.Notice(
                agent=agent.name,
                text="the model made no tool call: switching to edit blocks (tool_protocol: auto)",
            )
        )

    async def _ask_again(self, agent: TextAgent) -> None:
        """After a switch: the task again, with its files, to answer with edit blocks."""
        task = next((m["content"] for m in reversed(agent.messages) if m.get("role") == "user"), "")
        task = asked(task) if isinstance(task, str) else ""  # not the facts framed before it
        files = await self.files_for(agent, task)
        text = NOTE + render(load_prompt("text-switch"), task=task)
        agent.add({"role": "user", "content": f"{text}\n\n{files}" if files else text})

    async def _apply(self, applier: Applier, blocks: list[Block], *, cut: bool) -> str:
        """Apply the blocks in order, framed by the run's checkpoints; the results message."""
        run = applier.run
        frame = run.frame if any(not isinstance(b, Malformed) for b in blocks) else None
        results: list[tuple[bool, str]] = []
        try:
            if frame is not None:
                await frame.before()
            for block in blocks:
                results.append(await applier.apply(block))
        finally:
            if frame is not None:
                await frame.after()
        if cut:
            results.append((False, CUT))
        body = "\n".join(f"{n}. {line}" for n, (_, line) in enumerate(results, 1))
        root = applier.agent.ctx.workspace.root
        broken = await off_loop(syntax_check.report, root, applier.changed, applier.agent.messages)
        tail = ALL_DONE if all(ok for ok, _ in results) and not broken else SOME_FAILED
        head = f"{NOTE}results of your blocks:\n{body}"
        return "\n\n".join(filter(None, [head, broken, applier.attached(), tail]))


async def _blocks(agent: TextAgent, content: str) -> list[Block]:
    """The answer's blocks, read off the event loop (a deadline or Ctrl-C can still end the
    run). An answer over MAX_ANSWER bytes is not read: refused when it holds code."""
    size = len(content.encode(errors="surrogatepass"))
    if size > MAX_ANSWER:
        return [Malformed(TOO_LONG.format(size=size, cap=MAX_ANSWER))] if _tried(content) else []
    known = frozenset(tc.attached_names(agent.messages))
    return await off_loop(parse, content, known) or await _lone_file(agent, content)


async def _lone_file(agent: TextAgent, content: str) -> list[Block]:
    """An answer that is one bare fenced block: the whole new text of the one shown file it
    can only be, or nothing (a snippet quoted in an answer stays an answer)."""
    body = await off_loop(lone_fence, content)
    path = None if body is None else await off_loop(owner, agent, body)
    return [] if path is None or body is None else [WholeFile(path, body)]


def _tried(content: str) -> bool:
    """The answer tried to act without a usable call: it holds code or call-shaped text."""
    return bool(_CODE.search(content) or _CALL_SHAPED.search(content))

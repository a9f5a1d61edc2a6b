"""Edit blocks: the protocol for models that cannot drive tools.

With `tool_protocol: text` no tool schema goes on the wire. The task's files come with the
task (`block_files`), the model answers with SEARCH/REPLACE blocks, whole files and ```bash
blocks (`block_parser`), and each block becomes a call of edit-file, write-file or bash that
goes through the loop's one door (`block_apply`): the registry's confinement, permissions,
approvals and hooks, the read tracker's stale check, the run's checkpoints. The results come
back as the next user message; an answer without blocks ends the run.

Tool calls written as text are made native before the reply gets here (`ToolProtocol.recover`): a
reply that is only calls runs them as calls; blocks never mix with them, since recovery takes
only replies that are nothing but calls.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from zen.agent.protocols import block_files as bf
from zen.agent.protocols.base import Door, Message, Reading, Step, ToolProtocol, tool_calls
from zen.agent.protocols.block_apply import Applier, owner
from zen.agent.protocols.block_parser import lone_fence, parse
from zen.agent.protocols.block_peek import peeks
from zen.agent.protocols.block_types import Block, Command, Malformed, WholeFile
from zen.agent.runaway import Runaways
from zen.agent.transcript import Transcript
from zen.base import events as ev
from zen.base.preamble import asked
from zen.llm.repetition import REPETITION
from zen.llm.types import AssistantTurn, ToolCall
from zen.settings.prompts import load_prompt, render
from zen.tools.base import ToolContext, ToolResult
from zen.tools.files.text import off_loop
from zen.tools.registry import ToolRegistry

_CODE = re.compile(r"^[^\S\n]*(```|~~~|<{5,9}\s*SEARCH)", re.M)
"""Not `^\\s*`: from every line start it ran over all the blank lines after (quadratic)."""
_CALL_SHAPED = re.compile(r'<tool_call>|<function=|"name"\s*:\s*"[\w.-]+"\s*,\s*"arguments"')
NOTE = "[zen] "
"""Begins each user message the protocol writes (results, the switch): what zen said, not the
user, so compaction and the session's turns leave them out of the user's words."""
ALL_DONE = "All applied. If the task is done, answer in a sentence without blocks."
CUT = "Your answer was cut at max_tokens: send fewer, smaller blocks."
STOPPED = (
    "zen stopped your answer where it began repeating itself; the blocks before that are "
    "above. Do not write it again."
)
ENDS = {"length": CUT, REPETITION: STOPPED}
"""What is said after the results of an answer that did not end by itself."""
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


@cache
def example() -> tuple[Message, ...]:
    """`prompts/text-example.md`: its parts, between `----` lines, are the user's and the
    model's turns in order."""
    parts = load_prompt("text-example").split("\n----\n")
    return tuple(
        {"role": "assistant" if n % 2 else "user", "content": part.strip()}
        for n, part in enumerate(parts)
    )


def from_zen(content: object) -> bool:
    """A user message the protocol wrote (see NOTE)."""
    return isinstance(content, str) and content.startswith(NOTE)


def tried(content: str) -> bool:
    """The answer tried to act without a usable call: it holds code or call-shaped text."""
    return bool(_CODE.search(content) or _CALL_SHAPED.search(content))


class EditBlocks(ToolProtocol):
    native = False

    def __init__(
        self,
        agent: str,
        registry: ToolRegistry,
        ctx: ToolContext,
        transcript: Transcript,
        runaways: Runaways,
        system_prompt: Callable[[], str],
    ) -> None:
        super().__init__(agent, registry)
        self.ctx, self.transcript, self.runaways = ctx, transcript, runaways
        self.system_prompt = system_prompt
        """Its system prompt (an `auto` switch puts it in place)."""
        self._shown: dict[Any, tuple[int, int] | None] = {}
        """Files shown to the model, with their stamp then: shown again once they change."""
        self._ran: set[str] = set()
        """Commands this task already ran: each runs once per task."""

    def wire_tools(self) -> list[dict[str, Any]]:
        return []

    def new_task(self) -> None:
        self._ran = set()

    def wire_messages(self, messages: list[Message]) -> list[Message]:
        """The worked example goes after the system prompt as an exchange already had, not in
        the prompt: inside the instructions a 1.5B model copied the example's content (it ran
        its commands, and answered a question with "I will change"). Fixed text: the prefix
        stays stable, and it is never saved."""
        return [*messages[:1], *(dict(m) for m in example()), *messages[1:]]

    async def task_message(self, task: str) -> str:
        """The files the task needs, then the task: the request comes last, where a small
        model attends to it (aider's order)."""
        self.new_task()
        files = await self.files_for(task)
        return f"{files}\n\n{task}" if files else task

    async def read(self, reply: AssistantTurn, emit: ev.Emit) -> Reading:
        if reply.tool_calls:
            return tool_calls(reply, self.agent, emit)
        blocks = await self._blocks(reply.content)
        if not blocks or self.runaways.repeated_blocks(reply.content, self.agent, emit):
            return Reading()  # the answer stands
        applier = Applier(self.ctx, self.registry, self.transcript, self.show, self._ran)
        return Blocks(
            [BlockStep(applier, block, f"block-{n}") for n, block in enumerate(blocks, 1)],
            applier=applier,
            cut=ENDS.get(reply.finish_reason or "", ""),
        )

    async def ask_again(self, why: str) -> Message:
        """After the switch from tools (`why`, said to the model): the task again, with its
        files, to answer in blocks."""
        messages = self.transcript.messages
        task = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
        task = asked(task) if isinstance(task, str) else ""  # not the facts framed before it
        files = await self.files_for(task)
        text = NOTE + render(load_prompt("text-switch"), why=why, task=task)
        return {"role": "user", "content": f"{text}\n\n{files}" if files else text}

    async def files_for(self, task: str) -> str:
        """The relevant files not shown yet (or changed since), marked as read."""
        ws = self.ctx.workspace
        skip = bf.attached_paths(task, ws)
        paths, too_big = await off_loop(bf.relevant, task, ws, skip)
        held = bf.attached_names(self.transcript.messages)
        seen, unread = await off_loop(self._read, paths, held)
        notes = await off_loop(peeks, self.ctx, [*too_big, *unread])
        return bf.render(seen, [], notes)

    def _read(self, paths: list[Any], held: set[str]) -> tuple[list[bf.Seen], list[str]]:
        """The files to show: not those the conversation still holds, unchanged (a
        compaction drops attachments; a rewind, the messages that held them); and those
        that cannot be shown as text (binary, not UTF-8), to be named."""
        seen, unread = [], []
        for path in paths:
            s = bf.read_seen(self.ctx, path)
            if s is None:
                unread.append(self.ctx.workspace.show(path))
                continue
            if s.shown in held and self._shown.get(s.path, False) == s.stamp:
                continue
            self.show(s)
            seen.append(s)
        return seen, unread

    def show(self, seen: bf.Seen) -> None:
        """The model sees `seen` now: the read tracker learns it (the stale check)."""
        self.ctx.read_tracker.mark_read(seen.path, seen.stamp)
        self._shown[seen.path] = seen.stamp

    async def _blocks(self, content: str) -> list[Block]:
        """The answer's blocks, read off the event loop (a deadline or Ctrl-C can still end
        the run). An answer over MAX_ANSWER bytes is not read: refused when it holds code."""
        size = len(content.encode(errors="surrogatepass"))
        if size > MAX_ANSWER:
            return [Malformed(TOO_LONG.format(size=size, cap=MAX_ANSWER))] if tried(content) else []
        known = frozenset(bf.attached_names(self.transcript.messages))
        return await off_loop(parse, content, known) or await self._lone_file(content)

    async def _lone_file(self, content: str) -> list[Block]:
        """An answer that is one bare fenced block: the whole new text of the one shown file
        it can only be, or nothing (a snippet quoted in an answer stays an answer)."""
        body = await off_loop(lone_fence, content)
        path = None
        if body is not None:
            path = await off_loop(owner, self.ctx, self.transcript.messages, body)
        return [] if path is None or body is None else [WholeFile(path, body)]


class BlockStep(Step):
    """One block, planned when its turn comes and applied through the door."""

    def __init__(self, applier: Applier, block: Block, step_id: str) -> None:
        self.applier, self.block, self.id = applier, block, step_id
        self.may_change_files = not isinstance(block, Malformed)

    async def run(self, door: Door) -> ToolResult:
        changed: list[str] = []  # for the syntax check

        async def through(call: ToolCall) -> ToolResult:
            result = await door(call)
            changed.extend(result.files_changed)
            return result

        ok, line = await self.applier.apply(self.block, through)
        return ToolResult(ok, line, files_changed=changed)


@dataclass
class Blocks(Reading):
    """One answer's blocks: applied in order, their results one `[zen]` user message."""

    applier: Applier | None = None
    cut: str = ""
    """Said after the results: the answer was cut (max_tokens) or stopped (repeats)."""

    def answer(
        self,
        results: dict[str, ToolResult],
        started: set[str],
        cancelled: bool,
        checked: str | None = None,
    ) -> list[Message] | None:
        assert self.applier is not None
        if cancelled:
            return []
        if not self.applier.acted:
            return None  # nothing left to do: the answer stands
        lines = [(results[c.id].ok, results[c.id].output) for c in self.calls]
        if self.cut:
            lines.append((False, self.cut))
        body = "\n".join(f"{n}. {line}" for n, (_, line) in enumerate(lines, 1))
        ran = [isinstance(c, BlockStep) and isinstance(c.block, Command) for c in self.calls]
        failed = [  # a command that ran and exited non-zero (grep found nothing) is output
            not ok and not (n < len(ran) and ran[n] and line.startswith("$ "))
            for n, (ok, line) in enumerate(lines)
        ]
        tail = SOME_FAILED if any(failed) or checked else ALL_DONE
        head = f"{NOTE}results of your blocks:\n{body}"
        report = "\n\n".join(filter(None, [head, checked, self.applier.attached(), tail]))
        return [{"role": "user", "content": report}]

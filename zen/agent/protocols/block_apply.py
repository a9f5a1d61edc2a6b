"""One answer's edit blocks, applied in order through the loop's one door.

Each block is first checked against the file as it is (in a worker thread), so a block that
cannot apply gets an exact, short error without asking anyone to approve it: which file, which
SEARCH text was not found and the closest lines, a file changed since the model saw it (its
current text goes with the results). A block that can apply becomes an edit-file, write-file or
bash call through the door (`Calls.one`): the tool checks everything again under its lock, and
the registry asks for approval, runs hooks and caps the output, exactly as for a native call.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zen.agent.edits import lazy, snippet
from zen.agent.edits.fence_top import without_stray_divider
from zen.agent.protocols import block_files as bf
from zen.agent.protocols.base import Door
from zen.agent.protocols.block_checks import lost_definitions
from zen.agent.protocols.block_types import Block, Command, Malformed, Replace, WholeFile
from zen.agent.transcript import Transcript
from zen.llm.types import ToolCall
from zen.tools.base import ToolContext, ToolResult
from zen.tools.edit_file import find
from zen.tools.files.regular import FileError, Target
from zen.tools.files.targets import writable_target
from zen.tools.files.text import decode_strict, off_loop, read_existing
from zen.tools.registry import ToolRegistry


@dataclass(frozen=True)
class Call:
    """The tool call a block becomes."""

    tool: str
    args: dict[str, Any]
    note: str = ""  # said after the result: how a snippet was merged


Plan = tuple[bool, str] | Call
"""(ok, the line for the results) when the block needs no call; else the call."""
ALIKE = 0.6
"""How alike (difflib's ratio of lines) an unnamed whole file and a shown file without
definitions must be for the block to be that file: a one-line change of 5 lines is 0.8."""
CLOSEST_UP_TO = 200_000
"""Characters of a file searched for the lines closest to a SEARCH text that did not match."""
QUOTED = (
    "not run: a ```bash block runs only in an answer made of blocks alone; next to other text "
    "it is a quote. To run it, send it again with no text around the blocks"
)
"""Told once a conversation; later, a quoted command is only said to be not run."""


class Applier:
    """One answer's blocks: what they did (`acted`), the files to show again (`attached`)."""

    def __init__(
        self,
        ctx: ToolContext,
        registry: ToolRegistry,
        transcript: Transcript,
        show: Callable[[bf.Seen], None],
        ran: set[str],
    ) -> None:
        self.ctx, self.registry, self.transcript, self._show = ctx, registry, transcript, show
        self._attach: list[bf.Seen] = []
        self._ran = ran
        """Commands this run already ran: each runs once per task."""
        self._told = False
        self._n = 0
        self.acted = 0
        """Blocks that ran a call or failed; an answer with none (all were no-ops: already
        applied, unchanged, already run) ends the run, so a model repeating itself stops."""

    async def apply(self, block: Block, door: Door) -> tuple[bool, str]:
        """(ok, the line the model reads about this block); its call goes through `door`."""
        if isinstance(block, Malformed):
            self.acted += 1
            return False, f"Error: {block.problem}"
        if isinstance(block, Command):
            return (
                self._quoted(block.command)
                if block.quoted
                else await self._command(block.command, door)
            )
        plan = await off_loop(self._plan, block)
        if not isinstance(plan, Call):
            self.acted += 0 if plan[0] else 1
            return plan
        result = await self._call(plan.tool, plan.args, door)
        if not result.ok:
            return False, result.output
        note = f" ({plan.note})" if plan.note else ""
        return True, f"{(result.files_changed or [block.path])[0]}: {result.summary}{note}"

    def attached(self) -> str:
        """The files shown again because they changed (or were never seen), as attachments."""
        return bf.render(self._attach, [])

    def _quoted(self, command: str) -> tuple[bool, str]:
        """A command shown in prose ("never run this: …") is not run; the model learns why
        once, and a quote in a final answer then leaves the answer as it is."""
        told = any(
            m.get("role") == "user" and QUOTED in str(m.get("content"))
            for m in self.transcript.messages
        )
        if told or self._told:
            return True, f"`{command}`: not run (text around it)"
        self._told = True
        self.acted += 1
        return False, f"`{command}`: {QUOTED}"

    async def _command(self, command: str, door: Door) -> tuple[bool, str]:
        if "bash" not in self.registry.tools:
            self.acted += 1
            return False, f"Error: `{command}` not run: you cannot run commands here"
        if command in self._ran:
            return True, f"`{command}`: already ran in this task, see above"
        self._ran.add(command)
        result = await self._call("bash", {"command": command}, door)
        return result.ok, f"$ {command}\n{result.output}"

    async def _call(self, tool: str, args: dict[str, Any], door: Door) -> ToolResult:
        self._n += 1
        self.acted += 1
        return await door(ToolCall(f"text-{self._n}", tool, json.dumps(args), origin="text"))

    def _plan(self, block: Replace | WholeFile) -> Plan:
        """What a block needs: a call, or the line saying why not. Runs in a worker thread."""
        ctx = self.ctx
        try:
            t = writable_target(ctx, block.path)
            if not (t.path.exists() or t.path.is_symlink()):
                return _create(t, block)
            unseen = self._unseen(t)
            if unseen:
                return False, unseen
            text = decode_strict(read_existing(t, ctx.max_edit_bytes), t.shown)
        except FileError as exc:
            return False, f"Error: {exc}"
        if isinstance(block, WholeFile):
            return _whole(t, text, block)
        return _replace(t, text, block)

    def _unseen(self, t: Target) -> str | None:
        """Why the model cannot edit `t` from what it saw; its current text goes along."""
        tracker = self.ctx.read_tracker
        if tracker.check_edit(t.path, t.shown) is None:
            return None
        why = "changed since you saw it" if tracker.has_read(t.path) else "was not shown to you"
        seen = bf.read_seen(self.ctx, t.path)
        if seen is None:
            return f"Error: {t.shown} {why}, and it cannot be shown (binary or too large)"
        self._show(seen)
        self._attach.append(seen)
        return f"Error: {t.shown} {why}; its current text is below: write your block against it"


def owner(ctx: ToolContext, messages: list[dict[str, Any]], content: str) -> str | None:
    """The one shown file a whole file without a path can only be: it loses no function or
    class of that file, and shares one with it or most of its lines (a quoted snippet does
    neither); or a Python snippet that redefines some of that file's definitions (else, the
    only file shown). Reads files: call it off the event loop."""
    found: list[str] = []
    adds: list[str] = []
    shown = bf.attached_names(messages)
    for name in shown:
        seen = bf.read_seen(ctx, ctx.workspace.root / name)
        if seen is None:
            continue
        if name.endswith(".py") and snippet.is_snippet(seen.text, content):
            overlap = snippet.names(content) & snippet.names(seen.text)
            (found if overlap else adds).append(name)
        elif not lost_definitions(seen.text, content) and (
            lost_definitions(seen.text, "") or _alike(seen.text, content)
        ):
            found.append(name)
    if len(found) == 1:
        return found[0]
    return adds[0] if not found and len(shown) == 1 and adds else None


def _rewrites(old: str, content: str, shown: str) -> bool:
    """A SEARCH/REPLACE block with no divider is a new version of the file when it is not
    lines copied from it (a block cut before its divider) and reads as the whole file, or as
    a Python snippet the merge can place."""
    if not content.strip() or content.strip() in old:
        return False
    return _alike(old, content) or (shown.endswith(".py") and snippet.is_snippet(old, content))


def _alike(old: str, new: str) -> bool:
    """Most lines of `old` are in `new` and most of `new` is from `old`."""
    a, b = old.splitlines(), new.splitlines()
    return bool(a) and difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() >= ALIKE


UNDIVIDED = (
    "has no ======= line between the lines to find and the new lines; to rewrite the whole "
    "file, send its path, then the whole new file in a fenced block"
)


def _create(t: Target, block: Replace | WholeFile) -> Plan:
    """A block for a file that does not exist: a whole file (or an empty SEARCH) creates it."""
    if isinstance(block, WholeFile) and block.undivided:
        return False, f"Error: {t.shown} does not exist, and the block for it {UNDIVIDED}"
    if isinstance(block, WholeFile):
        content = without_stray_divider(block.content, None)
        return Call("write-file", {"path": block.path, "content": content})
    if not block.search.strip():
        return Call("write-file", {"path": block.path, "content": block.replace})
    return False, (
        f"Error: {t.shown} does not exist; to create it, send its path, then the whole file "
        "in a fenced block"
    )


def _whole(t: Target, text: str, block: WholeFile) -> Plan:
    old = text.replace("\r\n", "\n")
    content = without_stray_divider(block.content, old)
    if block.undivided and not _rewrites(old, content, t.shown):
        return False, f"Error: the SEARCH/REPLACE block for {t.shown} {UNDIVIDED}"
    if old == content:
        return True, f"{t.shown}: unchanged"
    left_out = lazy.placeholders(old, content)
    if left_out:
        return False, lazy.refusal(t.shown, left_out)
    if t.shown.endswith(".py") and snippet.is_snippet(old, content):
        return _merged(t, old, WholeFile(block.path, content))
    lost = lost_definitions(old, content)
    if lost:
        partial = "" if t.shown.endswith(".py") else " (a part of a file is merged only in Python)"
        return False, (
            f"Error: the block for {t.shown} would delete {', '.join(lost)}{partial}; send the "
            "whole file, or SEARCH/REPLACE blocks for the part you change"
        )
    return Call("write-file", {"path": block.path, "content": content, "overwrite": True})


def _merged(t: Target, old: str, block: WholeFile) -> Plan:
    """A Python block holding only some definitions of the file, merged into it."""
    try:
        merged = snippet.merge(old, block.content)
    except snippet.Refused as exc:
        return False, (
            f"Error: the block for {t.shown} holds only part of the file and cannot be merged: "
            f"{exc}. Send the whole file, or SEARCH/REPLACE blocks"
        )
    if merged.text == old:
        return True, f"{t.shown}: unchanged"
    args = {"path": block.path, "content": merged.text, "overwrite": True}
    return Call("write-file", args, merged.said())


def _replace(t: Target, text: str, block: Replace) -> Plan:
    if not block.search.strip():
        return False, (
            f"Error: the SEARCH part for {t.shown} is empty; copy the lines to replace into "
            "it, or send the whole file"
        )
    if block.search == block.replace:
        return True, f"{t.shown}: SEARCH and REPLACE are the same, nothing to change"
    left_out = lazy.placeholders(text, block.replace)
    if left_out:
        return False, lazy.refusal(t.shown, left_out)
    spans = find(text, block.search)
    if len(spans) > 1:
        return False, (
            f"Error: in {t.shown} the SEARCH text matches {len(spans)} places; add lines "
            "around it so it matches one"
        )
    if spans:
        args = {"path": block.path, "old_string": block.search, "new_string": block.replace}
        return Call("edit-file", args)
    if block.replace.strip() and find(text, block.replace):
        return True, f"{t.shown}: already applied (the file holds the REPLACE lines)"
    return False, _not_found(t.shown, text, block.search)


def _not_found(shown: str, text: str, search: str) -> str:
    """The SEARCH text that did not match, and the file's lines closest to it."""
    wanted = search.rstrip("\n").split("\n")
    message = f"Error: the SEARCH text was not found in {shown}:\n" + "\n".join(wanted[:8])
    if len(wanted) > 8:
        message += f"\n[… {len(wanted) - 8} more lines]"
    lines = text[:CLOSEST_UP_TO].splitlines()
    first = next((w for w in wanted if w.strip()), "")
    stripped = [line.strip() for line in lines]
    close = difflib.get_close_matches(first.strip(), stripped, n=1, cutoff=0.6)
    if close:
        at = stripped.index(close[0])
        near = "\n".join(lines[at : at + min(len(wanted), 8)])
        message += f"\nThe closest lines in {shown} (from line {at + 1}):\n{near}"
    return message + "\nCopy the SEARCH lines exactly from the file."

"""edit-file: replace one exact, unique piece of a file the agent has read, keeping its style.

Matching is exact first, then forgiving in the two ways models slip without meaning anything
else: CRLF vs LF, and trailing whitespace on whole lines. Ambiguity is never guessed at.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.files.auto_memo import remember
from zen.tools.files.diffs import Diff, unified_diff
from zen.tools.files.regular import FileError, Target, regular_stat
from zen.tools.files.safe_write import write_off_loop
from zen.tools.files.targets import needs_confirm_to_write, path_lock, writable_target
from zen.tools.files.text import decode_strict, newline_of, off_loop, read_existing, with_newlines

Span = tuple[int, int]
TOO_BIG = (
    " (max_edit_bytes); edit-file does not change files that large. Use a stream editor "
    "through bash instead (sed -i, perl -pi)"
)
_NUMBERED = re.compile(r"^\s*\d+\t")


class EditFileParams(Params):
    path: str
    old_string: str
    new_string: str
    replace_all: bool = False


@dataclass(frozen=True)
class EditPlan:
    target: Target
    after: str
    count: int
    diff: Diff


class EditFile(Tool):
    name = "edit-file"
    Params = EditFileParams
    level = "confirm"
    writes = True
    claude_name = "Edit"
    acp_kind = "edit"
    file_arg = True

    def must_confirm(self, params: EditFileParams, ctx: ToolContext) -> bool:
        return needs_confirm_to_write(ctx, params.path)

    async def preview(self, params: EditFileParams, ctx: ToolContext) -> str | ToolResult:
        try:
            return (await off_loop(_plan, params, ctx)).diff.text
        except FileError as exc:
            return ToolResult.error(str(exc))

    async def execute(self, params: EditFileParams, ctx: ToolContext) -> ToolResult:
        async with path_lock(ctx, params.path):
            try:
                plan = await off_loop(_plan, params, ctx)
                await write_off_loop(plan.target, plan.after.encode("utf-8"))
            except FileError as exc:
                return ToolResult.error(str(exc))
            t, diff = plan.target, plan.diff
            ctx.read_tracker.mark_read(t.path)
        remember(ctx, t.shown, diff.text, f"edited, {diff.stat}")
        head = f"replaced {plan.count} occurrences\n" if plan.count > 1 else ""
        return ToolResult(
            True, head + diff.text, diff.stat, diff=diff.text, files_changed=[t.shown]
        )


def _plan(params: EditFileParams, ctx: ToolContext) -> EditPlan:
    """The edited text and its diff, or why the edit is refused; writes nothing.

    Runs in a worker thread. Files above `max_edit_bytes` are refused before they are read:
    the text, its edited copy and the diff would cost several times the file in memory.
    """
    t = writable_target(ctx, params.path)
    if not params.old_string:
        raise FileError("old_string is empty; give the text to replace (write-file creates files)")
    if params.old_string == params.new_string:
        raise FileError("old_string and new_string are the same; nothing to change")
    if not t.path.exists():
        raise FileError(f"{t.shown} does not exist; create it with write-file")
    regular_stat(t)
    refusal = ctx.read_tracker.check_edit(t.path, t.shown)
    if refusal:
        raise FileError(refusal)
    before = decode_strict(read_existing(t, ctx.max_edit_bytes, TOO_BIG), t.shown)
    spans = find(before, params.old_string)
    if not spans:
        raise FileError(_not_found(params.old_string, t.shown))
    if len(spans) > 1 and not params.replace_all:
        raise FileError(
            f"old_string found {len(spans)} times in {t.shown}; include more surrounding "
            "lines to pick one, or set replace_all: true to change every one"
        )
    after = splice(before, spans, with_newlines(params.new_string, newline_of(before)))
    if after == before:
        raise FileError(f"the edit leaves {t.shown} unchanged")
    return EditPlan(t, after, len(spans), unified_diff(before, after, t.shown))


def _not_found(old: str, shown: str) -> str:
    message = f"old_string not found in {shown}; copy it exactly from read-file output"
    lines = [line for line in old.splitlines() if line.strip()]
    if lines and all(_NUMBERED.match(line) for line in lines):
        return message + ", without the line numbers and the tab after them"
    return message + " (whole lines, with a little surrounding context)"


def find(text: str, old: str) -> list[Span]:
    """Non-overlapping spans of `old` in `text`: ignoring CRLF vs LF, then trailing spaces."""
    return _ignoring_crlf(text, old) or _ignoring_trailing_space(text, old)


def splice(text: str, spans: list[Span], new: str) -> str:
    pieces, pos = [], 0
    for start, end in spans:
        pieces += [text[pos:start], new]
        pos = end
    pieces.append(text[pos:])
    return "".join(pieces)


def _ignoring_crlf(text: str, old: str) -> list[Span]:
    """Search the LF form of both, then map back, so a CRLF pair is never split."""
    flat, needle = text.replace("\r\n", "\n"), old.replace("\r\n", "\n")
    # Where each CRLF's "\n" sits in `flat`; a flat index moves right by the CRs before it.
    lf_at = [m.start() - k for k, m in enumerate(re.finditer("\r\n", text))]
    spans, i = [], flat.find(needle)
    while i >= 0:
        end = i + len(needle)
        spans.append((i + bisect_left(lf_at, i), end + bisect_left(lf_at, end)))
        i = flat.find(needle, end)
    return spans


def _ignoring_trailing_space(text: str, old: str) -> list[Span]:
    """Whole lines equal up to trailing whitespace; the file's own line ends stay put."""
    needle = old.replace("\r\n", "\n")
    ends_with_newline = needle.endswith("\n")
    want = [line.rstrip() for line in needle.removesuffix("\n").split("\n")]
    if not any(want):
        return []  # blank lines only: would match anywhere
    lines = _lines(text)
    have = [text[start:stop].rstrip() for start, stop, _ in lines]
    spans, i, n = [], 0, len(want)
    while i + n <= len(lines):
        if have[i : i + n] == want:
            last = lines[i + n - 1]
            spans.append((lines[i][0], last[2] if ends_with_newline else last[1]))
            i += n
        else:
            i += 1
    return spans


def _lines(text: str) -> list[tuple[int, int, int]]:
    """(start, end of content, end with newline) of each line; a CR before LF is not content."""
    out, pos = [], 0
    for part in text.split("\n"):
        stop = pos + len(part)
        content_end = stop - 1 if part.endswith("\r") else stop
        out.append((pos, content_end, min(stop + 1, len(text))))
        pos = stop + 1
    if text.endswith("\n"):
        out.pop()  # the empty "line" after the final newline
    return out

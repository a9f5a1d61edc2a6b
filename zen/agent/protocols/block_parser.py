"""Edit blocks in a model's text answer: SEARCH/REPLACE blocks, whole files, shell commands.

The text protocol (for models that cannot drive tools) asks for aider-like blocks; this module
only reads them, touching nothing, so every rule is a unit test. Small models slip in small
ways, forgiven here: a missing or extra fence, the path in backticks, bold or after `#`, a
trailing colon, 5 to 9 marker characters, trailing whitespace. What is never guessed: a fenced
block without a path line is not a file (a snippet must not replace one; `lone_fence` offers an
answer's only block to the applier, which takes it only for the one shown file it can be), and
a block cut off before its end is reported, not applied. A shell block in an answer that
holds anything else (prose, a snippet) is a quote, not a command: "never run this" must not run.

The answer is the model's, so it may be built to be slow: it is read in one pass, the lookups
ahead (where a fence closes, whether a SEARCH marker follows) are indexed once (`block_ahead`),
and no pattern backtracks over a long line.
"""

from __future__ import annotations

import re

from zen.agent.edits.fence_top import DIVIDER
from zen.agent.protocols.block_ahead import Ahead
from zen.agent.protocols.block_paths import (
    angled,
    bare_path,
    copied,
    named_in,
    path_in_info,
    path_line,
)
from zen.agent.protocols.block_types import Block, Command, Malformed, Replace, WholeFile

HEAD = re.compile(r"^\s*<{5,9}\s*SEARCH\b.*$")
UPDATED = re.compile(r"^\s*>{5,9}\s*REPLACE\b.*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})([^`]*)$")
"""A fence line: its mark, then its info string, unstripped (a lazy group between two `\\s*`
backtracked quadratically on one long line)."""
OPEN_FILE = re.compile(r'^\s*<file path="([^"\n]{1,255})">\s*$')
CLOSE_FILE = re.compile(r"^\s*</file>\s*$")
"""The form zen shows files in; models echo it back around a file's new text."""
MARKS = {"search": HEAD, "file end": CLOSE_FILE}
"""The lines the parser looks ahead for (`Ahead`)."""
SHELLS = frozenset({"bash", "sh", "shell", "zsh"})
COPIED = (
    "format error: you copied a placeholder of the answer format (like <path of the file>); "
    "write the file's real path alone on a line, then its whole new text in a fenced block"
)
_LOOKBACK = 3
"""Lines above a SEARCH marker searched for its path (a fence and a blank may sit between)."""


def parse(text: str, known: frozenset[str] = frozenset()) -> list[Block]:
    """The blocks of an answer, in order; prose between them is ignored. `known`: the files
    the model was shown; a fence under a prose line naming exactly one of them ("Here is the
    updated `stats.py`:") is that whole file, as small models write it (the applier refuses
    one that would delete code, so a quoted snippet cannot replace the file). With any line
    outside the blocks (prose, a snippet), shell blocks come back `quoted`."""
    lines = _lines(text)
    ahead = Ahead(lines, MARKS, "<")
    blocks: list[Block] = []
    loose: set[int] = set()
    """Non-blank lines outside every block (a path line heading a block leaves it)."""
    last_path: str | None = None
    wrapper: str | None = None
    """The mark of an open fence that wraps SEARCH/REPLACE blocks (it is not a file)."""
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<" not in line and "`" not in line and "~" not in line:  # no marker, no fence
            if line and not line.isspace():
                loose.add(i)
            i += 1
            continue
        if "<" in line and HEAD.match(line):
            named = _path_above(lines, i)
            if named is not None:
                last_path = named[0]
                loose.discard(named[1])
            block, i = _search_replace(lines, i, last_path)
            blocks.append(block)
            continue
        fence = FENCE.match(line)
        if fence is None:
            found, after = _echoed(lines, i, ahead)
            if found is not None:
                blocks.append(found)
            elif line.strip():
                loose.add(i)
            i = after
            continue
        mark, bare = fence.group(1), not fence.group(2).strip()
        if bare and (wrapper or _after_replace(lines, i)):
            wrapper = None  # closes the fence around SEARCH/REPLACE blocks (or a stray one)
            i += 1
            continue
        end = ahead.closing(i + 1, mark)
        if _wraps_blocks(lines, i + 1, end, ahead):
            wrapper = mark
            i += 1
        else:
            start = i
            found, i = _fenced(lines, start, fence, end, known)
            if found is None:
                loose.add(start)  # a snippet, or a fence never closed
                continue
            blocks.append(found)
            last_path = found.path if isinstance(found, WholeFile) else last_path
            heading = _above(lines, start)
            if heading is not None and (
                path_line(lines[heading]) or angled(lines[heading]) or copied(lines[heading])
            ):
                loose.discard(heading)  # the block's path line
    if loose:
        return [Command(b.command, quoted=True) if isinstance(b, Command) else b for b in blocks]
    return blocks


def lone_fence(text: str) -> str | None:
    """The body of an answer's only fenced block when it is not a command: small models
    often answer an edit with the whole new file and nothing else. Whose file it is, if
    anyone's, is for the applier to judge (a quoted snippet must not replace a file)."""
    lines = _lines(text)
    ahead = Ahead(lines, MARKS, "<")
    found: list[str] = []
    i = 0
    while i < len(lines):
        fence = FENCE.match(lines[i])
        end = ahead.closing(i + 1, fence.group(1)) if fence else None
        if fence is None or end is None:
            i += 1
            continue
        words = fence.group(2).split()
        if words and (words[0].lower() in SHELLS or len(words) > 1):
            return None
        body = lines[i + 1 : end]
        if any(HEAD.match(x) or UPDATED.match(x) for x in body):
            return None  # a broken edit block, not a file (a stray ======= alone is dropped)
        if found:
            return None  # two blocks: no guess
        found.append(_joined(body))
        i = end + 1
    return found[0] if found and found[0].strip() else None


def _search_replace(lines: list[str], head: int, path: str | None) -> tuple[Block, int]:
    """The block starting at the SEARCH marker `head`, and the index after it."""
    search: list[str] = []
    replace: list[str] = []
    part = search
    for i in range(head + 1, len(lines)):
        line = lines[i]
        if "<" in line and HEAD.match(line):
            return Malformed(_where(path) + "a new <<<<<<< SEARCH began before >>>>>>> REPLACE"), i
        if part is search and DIVIDER.match(line):
            part = replace
        elif UPDATED.match(line):
            if path is None:
                return Malformed("a SEARCH/REPLACE block has no file path on the line above it"), (
                    i + 1
                )
            if part is search:  # no ======= line: maybe the whole new file (the applier decides)
                return WholeFile(path, _joined(search), undivided=True), i + 1
            return Replace(path, _joined(search), _joined(replace)), i + 1
        else:
            part.append(line)
    missing = "=======" if part is search else ">>>>>>> REPLACE"
    return Malformed(_where(path) + f"the block ends without {missing} (cut off?)"), len(lines)


def _fenced(
    lines: list[str], start: int, fence: re.Match[str], end: int | None, known: frozenset[str]
) -> tuple[Block | None, int]:
    """A fenced block from `start` to its closing line `end`: a whole file when a path heads
    it, a command when it is a shell block, else nothing (a snippet). Returns the index after
    the closing fence."""
    mark, info = fence.group(1), fence.group(2)
    words = info.split()
    above = _above(lines, start)
    heading = "" if above is None else lines[above]
    path = path_in_info(words) or path_line(heading) or angled(heading) or named_in(heading, known)
    if end is None:
        if path is not None or copied(heading):
            name = path or heading.strip()
            problem = f"{name}: the file's block has no closing {mark} (cut off?)"
            return Malformed(problem), len(lines)
        return None, start + 1
    inner = lines[start + 1 : end]
    top = next((k for k, x in enumerate(inner) if not DIVIDER.match(x)), len(inner))
    first = inner[top] if top < len(inner) else ""
    if copied(heading) or copied(first):
        return Malformed(COPIED), end + 1
    shell = bool(words) and words[0].lower() in SHELLS
    named = None if shell else angled(first) or bare_path(first)
    if named is not None and (path is None or named == path) and top + 1 < len(inner):
        path, inner = named, inner[:top] + inner[top + 1 :]  # ```\ncalc.py\n…, a stray ======= kept
    body = _joined(inner)
    if path is not None:
        return WholeFile(path, body), end + 1
    if shell and body.strip():
        if any(HEAD.match(x) or DIVIDER.match(x) or UPDATED.match(x) for x in body.split("\n")):
            problem = f"a ```{words[0]} block holds edit markers; it is for a command only"
            return Malformed(problem), end + 1
        if path_line(body.split("\n", 1)[0]) and "\n" in body.strip():
            problem = f"a ```{words[0]} block starts with a file path; it is for a command only"
            return Malformed(problem), end + 1
        return Command(body.strip()), end + 1
    return None, end + 1


def _echoed(lines: list[str], i: int, ahead: Ahead) -> tuple[Block | None, int]:
    """A file in the form zen shows it (`<file path="x">` … `</file>`, a fence inside
    forgiven) at line `i`, and the index after it; else (None, i + 1)."""
    opened = OPEN_FILE.match(lines[i])
    end = ahead.next("file end", i + 1) if opened else None
    if opened is None or end is None:
        return None, i + 1
    body = lines[i + 1 : end]
    if len(body) >= 2 and FENCE.match(body[0]) and FENCE.match(body[-1]):
        body = body[1:-1]
    return WholeFile(opened.group(1), _joined(body)), end + 1


def _after_replace(lines: list[str], i: int) -> bool:
    """The last non-blank line before `i` ends a SEARCH/REPLACE block."""
    for j in range(i - 1, -1, -1):
        if lines[j].strip():
            return bool(UPDATED.match(lines[j]))
    return False


def _wraps_blocks(lines: list[str], start: int, end: int | None, ahead: Ahead) -> bool:
    """A fence that wraps SEARCH/REPLACE blocks, or files in zen's `<file path>` form, is
    transparent: the blocks inside (from `start` to its closing line `end`) are read as if it
    were not there."""
    stop = len(lines) if end is None else end
    first = start
    while first < stop and not lines[first].strip():
        first += 1
    head = ahead.next("search", start)
    return (first < stop and bool(OPEN_FILE.match(lines[first]))) or (
        head is not None and head < stop
    )


def _path_above(lines: list[str], head: int) -> tuple[str, int] | None:
    """The path on one of the few lines above a SEARCH marker (skipping a fence, blanks),
    and the line that names it."""
    for i in range(head - 1, max(head - 1 - _LOOKBACK, -1), -1):
        line = lines[i]
        fence = FENCE.match(line)
        if fence:
            found = path_in_info(fence.group(2).split())
            if found:
                return found, i
            continue
        if not line.strip():
            continue
        found = path_line(line)
        return (found, i) if found else None
    return None


def _above(lines: list[str], start: int) -> int | None:
    """The line just above a fence that may name its file (one blank line between)."""
    for j in (start - 1, start - 2):
        if j >= 0 and lines[j].strip():
            return j
    return None


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").split("\n")


def _joined(lines: list[str]) -> str:
    """Block lines as text: trailing whitespace of each line dropped, a final newline kept."""
    if not lines:
        return ""
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _where(path: str | None) -> str:
    return f"{path}: " if path else ""

"""Streamed markdown, one finished block at a time.

Re-rendering the whole growing answer on every chunk costs O(n²) (aider spends ~59 s of CPU on
a 20,000-word answer that way). Here each complete line is looked at once, a block (paragraph,
list, code fence, heading, table, quote) is cut off as soon as it is certainly finished, and
each block is rendered exactly once, so the total cost is linear in the length of the answer.

Block boundaries, decided incrementally:
- a blank line ends a block, except inside a code fence and inside a list (a loose list, or an
  item's indented continuation, goes on after a blank line); a list ends at the first line
  that is neither indented nor another item, decided as soon as its first character arrives;
- a fence (``` or ~~~, indented at most 3) starts its own block and the matching closing fence
  ends it; a fence indented under a list item stays part of the list;
- an ATX heading (`## Title`) is a block by itself.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

FENCE = re.compile(r"^( *)(`{3,}|~{3,})(.*)$")
HEADING = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
LIST_ITEM = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
LIST_START_CHARS = "-*+0123456789"
LIVE_CHARS = 400


class BlockSplitter:
    """Feed streamed text; get back the markdown blocks that are finished."""

    HEAD = 16

    def __init__(self) -> None:
        self.lines: list[str] = []
        """Complete lines of the block being built."""
        self._pieces: list[str] = []
        """The line being streamed, as it arrived (joined only once it is complete)."""
        self._head = ""
        """Its first few characters: enough to tell whether a list goes on."""
        self._fence: tuple[str, int] | None = None
        """(fence char, length) while inside a fence."""
        self._fence_nested = False
        self._list = False
        self._blank_after_list = False

    def feed(self, text: str) -> list[str]:
        done: list[str] = []
        if "\n" not in text:
            if text:
                self._pieces.append(text)
                if len(self._head) < self.HEAD:
                    self._head = (self._head + text)[: self.HEAD]
        else:
            first, *rest = text.split("\n")
            tail = rest.pop()
            self._line("".join(self._pieces) + first, done)
            for line in rest:
                self._line(line, done)
            self._pieces = [tail] if tail else []
            self._head = tail[: self.HEAD]
        if self._blank_after_list and self._ends_list(self._head):
            self._emit(done)
        return done

    def finish(self) -> list[str]:
        """The stream ended: whatever is left is the last block."""
        done: list[str] = []
        if self._pieces:
            self._line("".join(self._pieces), done)
            self._pieces, self._head = [], ""
        self._emit(done)
        return done

    def tail_text(self) -> str:
        """What a live line shows (its last part is kept when cut to the width)."""
        return self.tail(LIVE_CHARS)

    def tail(self, width: int) -> str:
        """The last `width` characters of what a live line should show: the line being
        streamed, or the last complete line of the open block between lines."""
        if not self._pieces:
            return self.lines[-1][-width:] if self.lines else ""
        return tail_of(self._pieces, width)

    # -- one complete line --------------------------------------------------------------

    def _line(self, line: str, done: list[str]) -> None:
        if self._fence is not None:
            self.lines.append(line)
            if _closes(line, self._fence):
                self._fence = None
                if not self._fence_nested:
                    self._emit(done)
            return
        if not line.strip():
            if self._list:
                self._blank_after_list = bool(self.lines)
                if self.lines:
                    self.lines.append(line)
            else:
                self._emit(done)
            return
        if self._blank_after_list:
            if self._ends_list(line, complete=True):
                self._emit(done)
            else:
                self._blank_after_list = False
        fence = FENCE.match(line)
        if fence:
            indent = len(fence.group(1))
            char = fence.group(2)[0]
            if char == "`" and "`" in fence.group(3):
                fence = None  # ``` followed by more backticks is inline code, not a fence
            elif self._list and indent > 0:
                self._fence, self._fence_nested = (char, len(fence.group(2))), True
                self.lines.append(line)
                return
            elif indent <= 3:
                self._emit(done)
                self._fence, self._fence_nested = (char, len(fence.group(2))), False
                self.lines.append(line)
                return
        if HEADING.match(line):
            self._emit(done)
            done.append(line + "\n")
            return
        if LIST_ITEM.match(line):
            self._list = True
        self.lines.append(line)

    @staticmethod
    def _ends_list(line: str, complete: bool = False) -> bool:
        """After a blank line in a list: does this line start something new?

        On a partial line, False also means "cannot tell yet" (`-` may become `- item` or
        `---`, `12` may become `12. item` or `2024`): nothing is decided until it can be.
        """
        if not line or line[0] in " \t" or LIST_ITEM.match(line):
            return False
        if complete or line[0] not in LIST_START_CHARS:
            return True
        if line[0].isdigit():
            number = re.match(r"\d{1,9}[.)]?", line)
            return number is not None and number.end() < len(line)
        return len(line) >= 2

    def _emit(self, done: list[str]) -> None:
        while self.lines and not self.lines[-1].strip():
            self.lines.pop()
        if self.lines:
            done.append("\n".join(self.lines) + "\n")
        self.lines = []
        self._fence = None
        self._fence_nested = False
        self._list = False
        self._blank_after_list = False


def _closes(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    char, length = fence
    return len(stripped) >= length and stripped == char * len(stripped)


# -- rendering ----------------------------------------------------------------------------

TRAILING = re.compile(r"(?:\x1b\[[0-9;]*m| )+$")
SGR = re.compile(r"\x1b\[[0-9;]*m")


def render_block(console: Console, block: str) -> None:
    """Print one finished block as styled markdown (rich.markdown is imported on first use).

    rich pads every line with spaces to the full width and frames some blocks with blank
    lines; both are cut off here, so a terminal that reflows on resize does not turn them into
    extra lines, copied text stays clean, and the log spaces blocks evenly.
    """
    with console.capture() as captured:
        console.print(_markdown(block))
    lines = captured.get().split("\n")
    while lines and not SGR.sub("", lines[-1]).strip():
        lines.pop()
    start = 0
    while start < len(lines) and not SGR.sub("", lines[start]).strip():
        start += 1
    out = "\n".join(TRAILING.sub(_end_line, line) for line in lines[start:])
    console.file.write(out + "\n")
    console.file.flush()


def _end_line(match: re.Match[str]) -> str:
    return "\x1b[0m" if "\x1b" in match.group(0) else ""


_markdown_class: Any = None


def _markdown(block: str) -> RenderableType:
    global _markdown_class
    if _markdown_class is None:
        _markdown_class = _build_markdown_class()
    return _markdown_class(block)


def _build_markdown_class() -> Any:
    """rich's Markdown, adjusted for a log: left-aligned headings, code on the terminal's own
    background (indented, no padding box), and one shared parser instead of one per block."""
    from markdown_it import MarkdownIt
    from rich.markdown import CodeBlock, Heading, Markdown
    from rich.syntax import Syntax

    parser = MarkdownIt().enable("strikethrough").enable("table")

    class LeftHeading(Heading):
        LEVEL_ALIGN = dict.fromkeys(("h1", "h2", "h3", "h4", "h5", "h6"), "left")

    class PlainCodeBlock(CodeBlock):
        def __rich_console__(self, console: Any, options: Any) -> Any:
            code = str(self.text).rstrip()
            yield Syntax(
                code,
                self.lexer_name,
                theme=self.theme,
                word_wrap=True,
                background_color="default",
                padding=(0, 0, 0, 2),
            )

    class LogMarkdown(Markdown):
        elements = {
            **Markdown.elements,
            "heading_open": LeftHeading,
            "fence": PlainCodeBlock,
            "code_block": PlainCodeBlock,
        }

        def __init__(self, markup: str) -> None:
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = "monokai"
            self.justify = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer = None
            self.inline_code_theme = "monokai"

    return LogMarkdown


def tail_of(pieces: list[str], size: int) -> str:
    """The last `size` characters of a text kept as pieces, without joining all of it."""
    taken: list[str] = []
    total = 0
    for piece in reversed(pieces):
        taken.append(piece)
        total += len(piece)
        if total >= size:
            break
    return "".join(reversed(taken))[-size:]

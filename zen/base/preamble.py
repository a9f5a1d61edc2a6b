"""The run's facts framed before an agent's first message, and the user's own words back out.

The facts that differ between runs (environment, project instructions, git, project notes)
go in the first user message, not the system prompt, so the system prompt and the tool
schemas (which chat templates render after it) form a prefix that every run shares and a
server's prefix cache reuses. Titles, recaps, `sessions show` and rewind labels show what
the user asked: `asked()` takes the frame off. The facts come from the repository, so a
closing tag inside them is escaped: the first closing tag is always the frame's own.
"""

from __future__ import annotations

import re

SHELL_OPEN = "<shell-command>\n"
SHELL_CLOSE = "\n</shell-command>\n\n"
"""The shell's `!cmd` outputs, sent ahead of the next message (zen/ui/runs.py)."""
ATTACHED = ('<file path="', '<context ref="')
"""Where text the user did not type begins: an `@file` the shell attached, an editor's buffer."""
OPEN = "<context>\n"
CLOSE = "\n</context>\n\n"
_ESCAPED = "</context\u200b>"
_FILES_FIRST = re.compile(r'(?:<file path="[^"\n]*">\n.*?\n</file>\n\n)+', re.S)
"""The files edit blocks send ahead of the task (`EditBlocks.task_message`)."""


def frame(facts: str, text: str) -> str:
    """`text` preceded by `facts` in a context block (`text` alone when there are none)."""
    if not facts:
        return text
    return OPEN + facts.replace("</context>", _ESCAPED) + CLOSE + text


def asked(content: str) -> str:
    """A user message without the context block zen put before it."""
    if content.startswith(OPEN):
        end = content.find(CLOSE)
        if end >= 0:
            return content[end + len(CLOSE) :]
    return content


def words(content: str) -> str:
    """A user message without the context block and the files attached ahead of the task."""
    text = asked(content)
    files = _FILES_FIRST.match(text)
    return text[files.end() :] if files else text


def typed(task: str) -> str:
    """The words the user typed, from a front-end's task: a file's or a command's text must not
    choose what zen runs or claims was asked (a README saying "run `make test`", a buffer
    saying "rewrite config.py"). Cut at the first attachment's mark, which an attachment's own
    text cannot move later; behind `!cmd` outputs sent ahead, nothing: where they end cannot be
    told from text inside them or inside the files attached after the words."""
    if task.startswith(SHELL_OPEN):
        return ""
    return task[: min((i for m in ATTACHED if (i := task.find(m)) >= 0), default=len(task))]


def label(content: str) -> str:
    """One line naming a user message in a list (rewind, checkpoints): its first line without
    the context block, and without the `!cmd` outputs sent ahead of it, named instead as
    `(after !cmd)` (the last block's end, so a command's output cannot pass for the message)."""
    text, command = words(content), ""
    if text.startswith(SHELL_OPEN):
        first = text[len(SHELL_OPEN) :].partition("\n")[0]
        command = f"!{first[2:]}" if first.startswith("$ ") else ""
        text = text.rpartition(SHELL_CLOSE)[2]
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return f"{line} (after {command})" if line and command else line or command

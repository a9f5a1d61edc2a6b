"""What a slash command is and where it registers: the context every command gets, the
`command` decorator each family module (`sessions`, `modes`, ...) uses, and the table it fills.

Looking a command up goes through `dispatch`, which imports every family first; this module
imports none of them, so the families can import it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from zen.settings.extensions import Extension

if TYPE_CHECKING:
    from zen.agent.session import Session
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer


@dataclass
class CommandContext:
    session: Session
    out: LogRenderer
    approver: ShellApprover
    exit: bool = False
    listed: list[str] = field(default_factory=list)
    """Session ids of the last /sessions list, for `/resume N`."""
    commands: dict[str, Extension] = field(default_factory=dict)
    """The user's own commands (`~/.zen/commands`, a trusted project's `.zen/commands`)."""
    skills: dict[str, Extension] = field(default_factory=dict)
    """Skills, which `/<name> [task]` applies."""


@dataclass(frozen=True)
class Prompt:
    """A command's answer that is a message for the model: the shell sends it as if typed,
    for this one run on `model` and in `work_mode` when they are given."""

    text: str
    model: str | None = None
    work_mode: str | None = None


Handler = Callable[[CommandContext, str], "Awaitable[None] | Prompt | None"]
"""A command that talks to the model returns an awaitable (the shell runs it like a task:
Ctrl-C stops it, its events are rendered) or a Prompt to send."""


@dataclass(frozen=True)
class Command:
    name: str
    summary: str
    usage: str
    run: Handler
    aliases: tuple[str, ...] = field(default=())


COMMANDS: dict[str, Command] = {}
"""Every name and alias -> its command."""


def command(
    name: str, summary: str, usage: str = "", aliases: tuple[str, ...] = ()
) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        cmd = Command(name, summary, usage, fn, aliases)
        for key in (name, *aliases):
            COMMANDS[key] = cmd
        return fn

    return register


def say(ctx: CommandContext, text: str, style: str = "") -> None:
    """A text of several lines, one `info` line each."""
    for line in text.splitlines() or [""]:
        ctx.out.info(line, style)

"""Running a typed line as a command: every built-in family imported (so registered), the
user's own commands and skills after them, `/help` and `/exit`.

A line is a command only when it starts with `/name` followed by a space or the end, so a
message such as `/usr/bin is missing` still goes to the model.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable
from importlib import import_module

from zen.settings.extensions import expand_command
from zen.settings.prompts import load_prompt, render
from zen.ui.commands.registry import COMMANDS, Command, CommandContext, Prompt, command

COMMAND = re.compile(r"^/([A-Za-z][\w-]*)(?:\s+(.*))?$", re.DOTALL)
KEYS = (
    "Enter sends · Alt+Enter (or Esc Enter): new line · @path attaches a file",
    "!cmd runs cmd here, without the model; its output goes with your next message",
    "Esc or Ctrl-C stops a run · Ctrl-C clears the input · Ctrl-D exits",
)

FAMILIES = (
    "sessions",
    "modes",
    "state",
    "context",
    "approval",
    "mcp",
    "rewind",
)
"""The command table: the modules of `zen/ui/commands/` that hold the built-in commands, in
the order /help lists them (after this module's /help and /exit). A new command is a module
whose functions carry `@command(...)` (registry.py) and one line here; importing the module
registers its commands, and /help, completion and dispatch find them."""

for family in FAMILIES:
    import_module(f"zen.ui.commands.{family}")


def is_command(line: str) -> bool:
    return COMMAND.match(line.strip()) is not None


def run_command(ctx: CommandContext, line: str) -> Awaitable[None] | Prompt | None:
    """Run a command; an awaitable comes back from those that still have work to do, a
    Prompt from those that send the model a message (the user's commands and skills)."""
    match = COMMAND.match(line.strip())
    if match is None:
        ctx.out.info(f"not a command: {line.strip()}")
        return None
    name, arg = match.group(1).lower(), (match.group(2) or "").strip()
    cmd = COMMANDS.get(name)
    if cmd is not None:
        return cmd.run(ctx, arg)
    if name in ctx.commands:
        own = ctx.commands[name]
        meta = own.meta
        return Prompt(expand_command(own, arg), _text(meta.get("model")), _text(meta.get("mode")))
    if name in ctx.skills:
        skill = ctx.skills[name]
        return Prompt(
            render(
                load_prompt("skill-use"),
                name=skill.name,
                folder=str(skill.folder),
                body=skill.body,
                task=arg or "Apply it to the task at hand.",
            )
        )
    ctx.out.info(f"unknown command /{name} (/help lists the commands)", "yellow")
    return None


def _text(value: object) -> str | None:
    return str(value).strip() or None if value is not None else None


def user_listing(ctx: CommandContext) -> list[tuple[str, str]]:
    """(name, summary) of the user's commands and skills that no built-in command shadows."""
    rows = [(c.name, c.description or "your command") for c in ctx.commands.values()]
    rows += [(s.name, f"skill: {s.description}") for s in ctx.skills.values()]
    return [(name, summary) for name, summary in rows if name not in COMMANDS]


def listing() -> list[Command]:
    """Each command once, in the order /help lists them (for /help and completion)."""
    rank = {f"zen.ui.commands.{family}": n for n, family in enumerate(FAMILIES, 1)}
    seen: dict[str, Command] = {}
    for cmd in COMMANDS.values():
        seen.setdefault(cmd.name, cmd)
    return sorted(seen.values(), key=lambda cmd: rank.get(cmd.run.__module__, 0))


@command("help", "this list")
def _help(ctx: CommandContext, arg: str) -> None:
    """The user's commands, then the built-ins with their other names, in one column."""
    mine = user_listing(ctx)
    heads = [f"/{c.name} {c.usage}".rstrip() for c in listing()] + [f"/{n}" for n, _ in mine]
    width = max(len(head) for head in heads)
    for name, summary in mine:
        ctx.out.info(f"  {f'/{name}'.ljust(width)}  {summary}")
    for cmd in listing():
        head = f"/{cmd.name} {cmd.usage}".rstrip()
        also = f" (also {', '.join('/' + a for a in cmd.aliases)})" if cmd.aliases else ""
        ctx.out.info(f"  {head.ljust(width)}  {cmd.summary}{also}")
    for line in KEYS:
        ctx.out.info(line, "dim")


@command("exit", "leave zen (Ctrl-D does too)", aliases=("quit",))
def _exit(ctx: CommandContext, arg: str) -> None:
    ctx.exit = True

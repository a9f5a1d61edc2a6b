"""Slash commands: a small registry of plain functions, each `(ctx, argument) -> None`.

A line is a command only when it starts with `/name` followed by a space or the end, so a
message such as `/usr/bin is missing` still goes to the model.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, get_args

from zen.base.text import clip
from zen.settings.extensions import Extension, expand_command
from zen.settings.prompts import load_prompt, render
from zen.settings.schema import Collaboration
from zen.ui.format import role_order, tokens

if TYPE_CHECKING:
    from zen.agent.session import Session
    from zen.mcp.manager import McpManager
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer

COMMAND = re.compile(r"^/([A-Za-z][\w-]*)(?:\s+(.*))?$", re.DOTALL)
COLLABORATIONS: tuple[str, ...] = get_args(Collaboration)
KEYS = (
    "Enter sends · Alt+Enter (or Esc Enter): new line · @path attaches a file",
    "!cmd runs cmd here, without the model; its output goes with your next message",
    "Esc or Ctrl-C stops a run · Ctrl-C clears the input · Ctrl-D exits",
)


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
    """Each command once, in the order they were registered (for /help and completion)."""
    seen: dict[str, Command] = {}
    for cmd in COMMANDS.values():
        seen.setdefault(cmd.name, cmd)
    return list(seen.values())


def _say(ctx: CommandContext, text: str, style: str = "") -> None:
    for line in text.splitlines() or [""]:
        ctx.out.info(line, style)


# -- the commands ---------------------------------------------------------------------------


@command("help", "this list")
def _help(ctx: CommandContext, arg: str) -> None:
    width = max(len(f"/{c.name} {c.usage}".rstrip()) for c in listing())
    for name, summary in user_listing(ctx):
        ctx.out.info(f"/{name:<{width - 1}}  {summary}")
    for cmd in listing():
        head = f"/{cmd.name} {cmd.usage}".rstrip()
        ctx.out.info(f"  {head.ljust(width)}  {cmd.summary}")
    for line in KEYS:
        ctx.out.info(line, "dim")


@command("exit", "leave zen (Ctrl-D does too)", aliases=("quit",))
def _exit(ctx: CommandContext, arg: str) -> None:
    ctx.exit = True


@command("new", "start a new session (this one stays resumable: /resume)", aliases=("clear",))
def _new(ctx: CommandContext, arg: str) -> None:
    old = ctx.session.id
    ctx.session.clear()
    kept = f"; /resume {old} goes back" if old else ""
    ctx.out.info(f"new conversation: history, memo and todos cleared{kept}", "dim")
    offered_notes(ctx)


def offered_notes(ctx: CommandContext) -> None:
    offered = ctx.session.offered
    if offered:
        ctx.out.info(
            f"{len(offered)} project note{'s' if len(offered) != 1 else ''} from "
            "earlier sessions offered (/memo)",
            "dim",
        )


@command("sessions", "this workspace's saved sessions")
def _sessions(ctx: CommandContext, arg: str) -> None:
    if list_sessions(ctx):
        ctx.out.info("/resume N (or ID) continues one", "dim")


@command("resume", "continue a saved session", "[N|ID]")
def _resume(ctx: CommandContext, arg: str) -> None:
    if not arg:
        _sessions(ctx, arg)
        return
    resume_session(ctx, arg)


def list_sessions(ctx: CommandContext) -> list[Any]:
    """Print this workspace's recent sessions, numbered; the list shown."""
    from zen.ui.sessions_cmd import session_row

    store = ctx.session.store
    if store is None:
        ctx.out.info("sessions are not being saved (the store could not be opened)", "yellow")
        return []
    found = store.recent(str(ctx.session.workspace.root), 20)
    ctx.listed = [info.id for info in found]
    if not found:
        ctx.out.info("no saved sessions in this workspace yet", "dim")
    for n, info in enumerate(found, 1):
        mark = " (this one)" if info.id == ctx.session.id else ""
        ctx.out.info(f"{n:>3}. {session_row(info)}{mark}")
    return found


def resume_session(ctx: CommandContext, ref: str) -> None:
    """Resume session number `ref` of the last list, or the one whose id starts with it."""
    from zen.stores.session_db import SessionError

    session = ctx.session
    if session.store is None:
        ctx.out.info("sessions are not being saved (the store could not be opened)", "yellow")
        return
    if ref.isdigit() and 0 < int(ref) <= len(ctx.listed) and len(ref) < 4:
        ref = ctx.listed[int(ref) - 1]
    try:
        info = session.store.get(ref, str(session.workspace.root))
        if info.id == session.id:
            ctx.out.info(f"already in session {info.id}", "dim")
            return
        session.resume(info)
    except SessionError as e:
        ctx.out.info(str(e), "yellow")
        return
    resumed(ctx)


def resumed(ctx: CommandContext) -> None:
    """Say which session continues, and remind what was last said."""
    session = ctx.session
    users = [m for m in session.history if m.get("role") == "user"]
    ctx.out.info(
        f"resumed session {session.id}: {len(users)} turn"
        f"{'s' if len(users) != 1 else ''}, {session.mode} mode",
        "dim",
    )
    last = {m.get("role"): m for m in session.history if m.get("content")}
    for role, mark in (("user", "› "), ("assistant", "")):
        message = last.get(role)
        if message:
            text = " ".join(str(message["content"]).split())
            ctx.out.info(mark + (clip(text, 160)), "dim")


@command("init", "write a ZEN.md for this project (the model explores it first)")
def _init(ctx: CommandContext, arg: str) -> Prompt:
    return Prompt(f"{load_prompt('init')}\n\n{arg}".strip())


@command("mode", "work mode: bug-fix, develop, explain (read-only), optimize", "[MODE|off]")
def _mode(ctx: CommandContext, arg: str) -> None:
    from zen.agent.work_modes import available

    if not arg:
        current = ctx.session.work_mode or "none"
        ctx.out.info(f"work mode: {current} (choose from {', '.join(available())}, or off)")
        return
    mode = None if arg.lower() in ("off", "none") else arg.lower()
    try:
        ctx.session.set_work_mode(mode)
    except ValueError as e:
        ctx.out.info(str(e), "yellow")
        return
    ctx.out.info(f"work mode: {mode or 'none'} (the conversation is kept)", "dim")


@command("single", "one agent does everything")
def _single(ctx: CommandContext, arg: str) -> None:
    ctx.session.set_mode("single")
    ctx.out.info("single mode: one agent does everything (the conversation is kept)", "dim")


@command("dual", "an Orchestrator scouts and delegates to a Coder")
def _dual(ctx: CommandContext, arg: str) -> None:
    ctx.session.set_mode("dual")
    ctx.out.info(
        f"dual mode ({ctx.session.collaboration}): the Orchestrator scouts and hands precise "
        "tasks to a Coder",
        "dim",
    )


@command("collab", "how Orchestrator and Coder share the work", "MODE")
def _collab(ctx: CommandContext, arg: str) -> None:
    mode = arg.lower()
    if not mode:
        ctx.out.info(
            f"collaboration: {ctx.session.collaboration} (choose from {', '.join(COLLABORATIONS)})"
        )
        return
    if mode not in COLLABORATIONS:
        ctx.out.info(
            f"unknown collaboration mode {arg!r}: choose {', '.join(COLLABORATIONS)}", "yellow"
        )
        return
    ctx.session.set_collaboration(mode)
    note = "" if ctx.session.mode == "dual" else " (takes effect in dual mode: /dual)"
    ctx.out.info(f"collaboration: {mode}{note}", "dim")


@command(
    "model", "show every role's model, or switch one (default: the top agent's)", "[ROLE] [NAME]"
)
def _model(ctx: CommandContext, arg: str) -> None:
    from zen.settings.model_roles import ROLES
    from zen.settings.schema import DUAL_ROLES, ConfigError
    from zen.ui.format import endpoint_line

    words = arg.split()
    role: str | None = None
    if words and words[0] in ROLES:
        role = words.pop(0)
    if len(words) > 1:
        ctx.out.info(f"usage: /model [ROLE] [NAME] (roles: {', '.join(ROLES)})", "yellow")
        return
    session = ctx.session
    if words:
        changed = session.set_model(words[0], role)
        follows = ""
        if changed == "main" and session.mode == "dual":
            follows = " (dual roles without their own model follow it)"
        ctx.out.info(f"{changed} now uses {words[0]}{follows}", "dim")
    elif role:
        ctx.out.info(f"usage: /model {role} NAME", "yellow")
    shown = ["main", *DUAL_ROLES] if session.mode == "dual" or role in DUAL_ROLES else ["main"]
    for name in shown:
        try:
            settings = session.settings(name)
        except ConfigError as e:  # e.g. a provider without a key: say so, keep the shell
            ctx.out.error(f"{name}: {e}")
            continue
        own = getattr(session.config.dual_agent, name).model if name in DUAL_ROLES else None
        how = " (its own)" if own else (" (follows main)" if name != "main" else "")
        top = " ← top agent" if name == session.role else ""
        ctx.out.info(f"{endpoint_line(name, settings)}{how}{top}", "" if words else "dim")


@command("show", "a tool call's whole output (the last one, or the Nth last)", "[N]")
def _show(ctx: CommandContext, arg: str) -> None:
    outputs = ctx.out.outputs
    if not arg.isdigit() and arg:
        ctx.out.info("usage: /show [N] (1 = the last tool call)", "yellow")
        return
    n = int(arg or 1)
    if not outputs:
        ctx.out.info("no tool output yet", "dim")
        return
    if not 1 <= n <= len(outputs):
        ctx.out.info(f"/show 1 to /show {len(outputs)}", "yellow")
        return
    line, output = outputs[-n]
    ctx.out.info(line, "bold")
    _say(ctx, output.rstrip("\n"))


@command("memo", "the memo index, one entry, or `clear` (with the project notes)", "[KEY|clear]")
def _memo(ctx: CommandContext, arg: str) -> None:
    memo = ctx.session.memo
    if arg == "clear":
        ctx.session.clear_memo()
        ctx.out.info("memo cleared, and this workspace's project notes forgotten", "dim")
        return
    if arg:
        entry = memo.read(arg)
        if entry is None:
            ctx.out.info(f"no memo entry {arg!r} (/memo lists the keys)", "yellow")
            return
        ctx.out.info(f"{entry.key} — {entry.summary} ({entry.author})", "bold")
        _say(ctx, entry.content)
        return
    entries = memo.index()
    if not entries:
        ctx.out.info("the memo is empty", "dim")
    _notes_status(ctx)
    for entry in entries:
        ctx.out.print(
            ctx.out.styled(
                (entry.key, "cyan"), (f" — {entry.summary}", ""), (f" ({entry.author})", "dim")
            )
        )


@command("todo", "the task plan")
def _todo(ctx: CommandContext, arg: str) -> None:
    _say(ctx, ctx.session.todo.render())


@command("usage", "tokens, cache hits, cost and context of this session, by role")
def _usage(ctx: CommandContext, arg: str) -> None:
    from zen.llm.pricing import usd

    usage: dict[str, Any] = dict(ctx.session.usage)
    rows = [
        (role, u)
        for role, u in sorted(usage.items(), key=role_order)
        if u.prompt_tokens or u.completion_tokens
    ]
    if not rows:
        ctx.out.info("no tokens used yet", "dim")
        return
    for role, u in rows:
        cached = (
            f" ({u.cached_tokens / u.prompt_tokens:.0%} cached)"
            if u.cached_tokens and u.prompt_tokens
            else ""
        )
        guess = u.estimated
        ctx.out.info(
            f"{role}: {tokens(u.prompt_tokens, guess)} in{cached} / "
            f"{tokens(u.completion_tokens, guess)} out, "
            f"{u.requests} request{'s' if u.requests != 1 else ''}, {usd(u.cost_usd)}"
            + (" (~: estimated, the server sent no usage)" if guess else "")
        )
    prompt = sum(u.prompt_tokens for _, u in rows)
    completion = sum(u.completion_tokens for _, u in rows)
    cached_all = sum(u.cached_tokens for _, u in rows)
    guess = any(u.estimated for _, u in rows)
    hits = f" ({cached_all / prompt:.0%} cached)" if prompt and cached_all else ""
    ctx.out.info(
        f"total: {tokens(prompt, guess)} in{hits} / {tokens(completion, guess)} out, "
        f"{usd(ctx.session.cost_usd)}",
        "dim",
    )
    used, window = ctx.session.context_now()
    if used:
        of = f" of {tokens(window)} ({used / window:.0%})" if window else ""
        ctx.out.info(f"context: {tokens(used)}{of} (/context for the split)", "dim")
    if ctx.session.cost_usd is None:
        ctx.out.info("cost unknown: add the model's price under `pricing:` in the config", "dim")


@command("context", "what fills the model's context window")
def _context(ctx: CommandContext, arg: str) -> Awaitable[None]:
    return _show_context(ctx)


async def _show_context(ctx: CommandContext) -> None:
    part = await ctx.session.context_split()
    window = part.window
    share = part.used / window.tokens if window.tokens else 0.0
    source = {
        "config": "from the configuration",
        "provider": "from the provider table",
        "server": "reported by the server",
        "assumed": "assumed: the server does not say (set context_window)",
        "overflow": "learned: the server refused a longer request",
    }[window.source]
    approx = "" if part.measured else "~"
    ctx.out.info(
        f"context: {approx}{tokens(part.used)} of {tokens(window.tokens)} tokens "
        f"({share:.0%}) · window {source}"
    )
    rows = [
        ("system prompt", part.system),
        ("tool schemas", part.tools),
        ("memo", part.memo),
        ("conversation", part.conversation),
        ("free", part.free),
    ]
    for name, count in rows:
        ctx.out.info(f"  {name:<14}{tokens(count):>8}", "" if name != "free" else "dim")
    at = ctx.session.config.compact_at
    ctx.out.info(
        f"compacts at {at:.0%} ({tokens(int(window.tokens * at))}); /compact does it now", "dim"
    )


@command(
    "compact",
    "write the task's state into the memo and restart the conversation from it",
    "[WHAT TO KEEP]",
)
def _compact(ctx: CommandContext, arg: str) -> Awaitable[None]:
    return _run_compact(ctx, arg)


async def _run_compact(ctx: CommandContext, focus: str) -> None:
    if await ctx.session.compact(ctx.out, focus) is None:
        ctx.out.info("nothing to compact yet", "dim")


@command("yes", "approve every tool call from now on (/yes off to ask again)", "[off]")
def _yes(ctx: CommandContext, arg: str) -> None:
    off = arg.lower() in ("off", "no", "0", "false")
    ctx.approver.yes_all = not off
    if off:
        ctx.out.info("confirm-level tools will ask again", "dim")
    else:
        ctx.out.info("every tool call is approved without asking (/yes off to undo)", "yellow")


@command(
    "mcp",
    "MCP servers: status, /mcp restart [NAME], /mcp log [LINES]",
    "[restart [NAME] | log [LINES]]",
)
def _mcp(ctx: CommandContext, arg: str) -> Awaitable[None] | None:
    manager = ctx.session.mcp
    if manager is None:
        ctx.out.info("no MCP servers are configured (mcp_servers in .zen/config.yaml)", "dim")
        return None
    from zen.base.redaction import scrub
    from zen.mcp.manager import format_status

    verb, _, rest = arg.partition(" ")
    if verb == "restart":
        return _mcp_restart(ctx, manager, rest.strip() or None)
    if verb == "log":
        count = int(rest) if rest.strip().isdigit() else 30
        lines = manager.log_tail(count)
        _say(ctx, "\n".join(lines) if lines else "the MCP log is empty", "dim")
        ctx.out.info(f"log file: {manager.log_path}", "dim")
        return None
    if verb:
        ctx.out.info("usage: /mcp, /mcp restart [NAME], /mcp log [LINES]", "yellow")
        return None
    _say(ctx, scrub(format_status(manager.status())) or "no MCP servers")
    return None


async def _mcp_restart(ctx: CommandContext, manager: McpManager, name: str | None) -> None:
    ctx.out.info(f"restarting {name or 'all MCP servers'}…", "dim")
    for line in await manager.restart(name):
        ctx.out.info(line)


def _notes_status(ctx: CommandContext) -> None:
    session = ctx.session
    if session.config.memo.persist != "on":
        ctx.out.info("project notes: off (memo.persist in config)", "dim")
        return
    if session.notes is None:
        ctx.out.info("project notes: unavailable (the session store could not be opened)", "dim")
        return
    if not session.config.project_trusted:
        ctx.out.info("project notes: off, this workspace is not trusted (zen trust)", "dim")
        return
    dropped = len(session.notes.dropped)
    stale = f", {dropped} dropped (their files changed)" if dropped else ""
    ctx.out.info(
        f"project notes: on · {len(session.offered)} offered from earlier "
        f"sessions{stale} · /memo clear forgets them",
        "dim",
    )


@command("undo", "restore the files the last message changed (shows them, asks first)")
async def _undo(ctx: CommandContext, arg: str) -> None:
    from zen.ui.rewind import shell_undo

    await shell_undo(ctx)


@command("rewind", "go back to an earlier message: code, conversation or both", "[N]")
async def _rewind(ctx: CommandContext, arg: str) -> None:
    from zen.ui.rewind import shell_rewind

    await shell_rewind(ctx, arg)

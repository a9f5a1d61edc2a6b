"""/new, /sessions, /resume and /init: which conversation goes on, and the first one's ZEN.md.

`list_sessions`, `resume_session` and `resumed` also serve `zen -r` and a resumed start-up.
"""

from __future__ import annotations

from typing import Any

from zen.base.preamble import asked
from zen.base.text import clip
from zen.settings.prompts import load_prompt
from zen.ui.commands.notes import offered_notes
from zen.ui.commands.registry import CommandContext, Prompt, command


@command("new", "start a new session (this one stays resumable: /resume)", aliases=("clear",))
def _new(ctx: CommandContext, arg: str) -> None:
    old = ctx.session.id
    ctx.session.clear()
    kept = f"; /resume {old} goes back" if old else ""
    ctx.out.info(f"new conversation: history, memo and todos cleared{kept}", "dim")
    offered_notes(ctx)


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
    found = store.recent(str(ctx.session.workspace.root), 20, started=True)
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
    store = session.store
    if store is None:
        ctx.out.info("sessions are not being saved (the store could not be opened)", "yellow")
        return
    if ref.isdigit() and 0 < int(ref) <= len(ctx.listed) and len(ref) < 4:
        ref = ctx.listed[int(ref) - 1]
    try:
        info = store.get(ref, str(session.workspace.root))
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
    history = session.history
    users = [m for m in history if m.get("role") == "user"]
    ctx.out.info(
        f"resumed session {session.id}: {len(users)} turn"
        f"{'s' if len(users) != 1 else ''}, {session.mode} mode",
        "dim",
    )
    last = {m.get("role"): m for m in history if m.get("content")}
    for role, mark in (("user", "› "), ("assistant", "")):
        message = last.get(role)
        if message:
            content = str(message["content"])
            text = " ".join((asked(content) if role == "user" else content).split())
            ctx.out.info(mark + (clip(text, 160)), "dim")


@command("init", "write a ZEN.md for this project (the model explores it first)")
def _init(ctx: CommandContext, arg: str) -> Prompt:
    return Prompt(f"{load_prompt('init')}\n\n{arg}".strip())

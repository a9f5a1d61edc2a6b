"""/mode, /single, /dual, /collab and /model: how the agents work and on which models."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Any, get_args

from zen.settings.schema import Collaboration, Triage
from zen.ui.commands.registry import CommandContext, command

COLLABORATIONS: tuple[str, ...] = get_args(Collaboration)


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
    "model",
    "every role's model and what its endpoint serves, or switch one (default: the top agent's)",
    "[ROLE] [NAME]",
)
def _model(ctx: CommandContext, arg: str) -> Awaitable[None] | None:
    from zen.settings.model_roles import ROLES
    from zen.settings.schema import DUAL_ROLES

    words = arg.split()
    role: str | None = None
    if words and words[0] in ROLES:
        role = words.pop(0)
    if len(words) > 1:
        ctx.out.info(f"usage: /model [ROLE] [NAME] (roles: {', '.join(ROLES)})", "yellow")
        return None
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
    return _show_models(ctx, shown, "" if words else "dim")


async def _show_models(ctx: CommandContext, shown: list[str], style: str) -> None:
    """Each role's line, then what each endpoint serves: the lookup the first request makes,
    made now if it has not been (the same facts `zen doctor` shows)."""
    from zen.llm.served import describe, listing
    from zen.settings.schema import DUAL_ROLES, ConfigError
    from zen.ui.format import endpoint_line

    session = ctx.session
    asked: dict[str, Any] = {}
    for name in shown:
        try:
            found = await session.served(name)
        except ConfigError:  # e.g. a provider without a key: said below, keep the shell
            continue
        if found is not None:
            asked.setdefault(*found)
    for name in shown:
        try:
            settings = session.settings(name)
        except ConfigError as e:
            ctx.out.error(f"{name}: {e}")
            continue
        own = getattr(session.config.dual_agent, name).model if name in DUAL_ROLES else None
        how = " (its own)" if own else (" (follows main)" if name != "main" else "")
        top = " ← top agent" if name == session.role else ""
        ctx.out.info(f"{endpoint_line(name, settings)}{how}{top}", style)
    for url, served in asked.items():
        if served.listed:
            ctx.out.info(f"{url}: {describe(served)}", "dim")
            ctx.out.info(f"  serves {listing(served, limit=20)}", "dim")
        elif served.status:
            ctx.out.info(f"{url}: answered GET /models with {served.status}, no model list", "dim")
        else:
            ctx.out.info(f"{url}: no answer ({served.error})", "yellow")


TRIAGES: tuple[Triage, ...] = ("auto", "question", "small", "direct", "large")


@command(
    "triage", "how dual mode sizes a task: auto, or always question|small|direct|large", "[MODE]"
)
def _triage(ctx: CommandContext, arg: str) -> None:
    choice = arg.strip().lower()
    if choice and choice not in TRIAGES:
        ctx.out.info(f"unknown triage {arg!r}: choose {', '.join(TRIAGES)}", "yellow")
        return
    if choice:
        ctx.session.triage_setting = next(t for t in TRIAGES if t == choice)
    last = ctx.session.triage
    told = f"; the last task: {last.path}" if last is not None and not choice else ""
    note = "" if ctx.session.mode == "dual" else " (takes effect in dual mode: /dual)"
    ctx.out.info(f"triage: {ctx.session.triage_setting}{told}{note}", "dim")

"""/context and /compact: what fills the model's context window, and emptying it into the memo."""

from __future__ import annotations

from collections.abc import Awaitable

from zen.ui.commands.registry import CommandContext, command
from zen.ui.format import tokens


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

"""/mcp: the MCP servers' status, restarting them, and the tail of their log."""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING

from zen.ui.commands.registry import CommandContext, command, say

if TYPE_CHECKING:
    from zen.mcp.manager import McpManager


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
        say(ctx, "\n".join(lines) if lines else "the MCP log is empty", "dim")
        ctx.out.info(f"log file: {manager.log_path}", "dim")
        return None
    if verb:
        ctx.out.info("usage: /mcp, /mcp restart [NAME], /mcp log [LINES]", "yellow")
        return None
    say(ctx, scrub(format_status(manager.status())) or "no MCP servers")
    return None


async def _mcp_restart(ctx: CommandContext, manager: McpManager, name: str | None) -> None:
    ctx.out.info(f"restarting {name or 'all MCP servers'}…", "dim")
    for line in await manager.restart(name):
        ctx.out.info(line)

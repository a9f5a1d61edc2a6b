"""/status: what `zen doctor` shows, for the session's own configuration, from doctor's code.

Without an argument nothing touches the network: the endpoint and model are named as
configured, the window as far as the configuration or provider table knows it. `/status
--check` (or `/status check`) asks each endpoint too, as `zen doctor` does (a `GET /models`
under a 4 s deadline; Ctrl-C stops the wait).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable

from zen.ui.commands.registry import CommandContext, command

CHECK = ("--check", "check", "-c")


@command("status", "what zen doctor checks; --check also asks the endpoint", "[--check]")
def _status(ctx: CommandContext, arg: str) -> Awaitable[None] | None:
    if arg and arg not in CHECK:
        ctx.out.info("usage: /status [--check]", "yellow")
        return None
    return _show(ctx, check=bool(arg))


async def _show(ctx: CommandContext, check: bool) -> None:
    from zen.cli import doctor
    from zen.settings import trust

    session = ctx.session
    config, root = session.config, session.workspace.root
    state = trust.check(root)
    by_flag = config.project_trusted and not state.trusted
    lines = [(doctor.OK, "config", doctor.files_read(root, config.project_trusted))]
    # doctor's lookups run their own event loop: in a thread, beside the shell's
    lines += await asyncio.to_thread(doctor.model_lines, config, check)
    if check and session.sandbox.mode != "off":
        await session.sandbox.settle(10.0)  # probes bwrap: one tiny sandbox, no network
    lines += [doctor.mcp_line(config, root), doctor.box_line(session.sandbox)]
    lines += [doctor.acp_line(), doctor.trust_line(state, by_flag)]
    for line in doctor.shown(lines):
        ctx.out.info(line, "red" if line.startswith(doctor.FAIL) else "")
    if not check:
        ctx.out.info("the endpoint was not asked: /status --check asks it", "dim")

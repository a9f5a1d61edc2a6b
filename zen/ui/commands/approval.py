"""/yes: approve every tool call from now on, or ask again; /sandbox: where bash runs."""

from __future__ import annotations

from collections.abc import Awaitable

from zen.settings.sandbox_options import SandboxMode
from zen.ui.commands.registry import CommandContext, command


@command("yes", "approve every tool call from now on (/yes off to ask again)", "[off]")
def _yes(ctx: CommandContext, arg: str) -> None:
    off = arg.lower() in ("off", "no", "0", "false")
    ctx.approver.yes_all = not off
    if off:
        ctx.out.info("confirm-level tools will ask again", "dim")
    else:
        ctx.out.info("every tool call is approved without asking (/yes off to undo)", "yellow")


@command("sandbox", "show where bash runs, or switch: /sandbox auto|on|off", "[auto|on|off]")
def _sandbox(ctx: CommandContext, arg: str) -> Awaitable[None] | None:
    box = ctx.session.sandbox
    modes: dict[str, SandboxMode] = {"auto": "auto", "on": "on", "off": "off"}
    mode = arg.strip().lower()
    if mode and mode not in modes:
        ctx.out.info("  /sandbox auto, /sandbox on or /sandbox off", "dim")
        return None
    if mode:
        box.mode = modes[mode]
        box.told = False
    return _show(ctx)


async def _show(ctx: CommandContext) -> None:
    """The status line, after the probe (at most 10 s, the loop running meanwhile)."""
    box = ctx.session.sandbox
    if box.mode != "off":
        await box.settle(10.0)
    ctx.out.info(f"sandbox {box.status()}", "yellow" if box.mode == "off" else "dim")

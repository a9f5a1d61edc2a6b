"""/yes: approve every tool call from now on, or ask again."""

from __future__ import annotations

from zen.ui.commands.registry import CommandContext, command


@command("yes", "approve every tool call from now on (/yes off to ask again)", "[off]")
def _yes(ctx: CommandContext, arg: str) -> None:
    off = arg.lower() in ("off", "no", "0", "false")
    ctx.approver.yes_all = not off
    if off:
        ctx.out.info("confirm-level tools will ask again", "dim")
    else:
        ctx.out.info("every tool call is approved without asking (/yes off to undo)", "yellow")

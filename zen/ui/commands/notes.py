"""The project notes' lines: how many earlier sessions offered, and whether notes are kept.

Shared by /new, /memo and the shell's greeting.
"""

from __future__ import annotations

from zen.ui.commands.registry import CommandContext


def offered_notes(ctx: CommandContext) -> None:
    """An event line of its own (a marker, and a blank line before the answer that follows),
    so it never reads as the answer's first line."""
    offered = ctx.session.notes().offered
    if offered:
        text = f"{offered} project note{'s' if offered != 1 else ''} from earlier sessions"
        out = ctx.out
        out.line(out.styled(("• ", "cyan"), (f"{text} offered (/memo)", "dim")), kind="tool")


def notes_status(ctx: CommandContext) -> None:
    session = ctx.session
    if session.config.memo.persist != "on":
        ctx.out.info("project notes: off (memo.persist in config)", "dim")
        return
    notes = session.notes()
    if notes.dropped is None:
        ctx.out.info("project notes: unavailable (the session store could not be opened)", "dim")
        return
    if not session.config.project_trusted:
        ctx.out.info("project notes: off, this workspace is not trusted (zen trust)", "dim")
        return
    dropped = notes.dropped
    stale = f", {dropped} dropped (their files changed)" if dropped else ""
    ctx.out.info(
        f"project notes: on · {notes.offered} offered from earlier "
        f"sessions{stale} · /memo clear forgets them",
        "dim",
    )

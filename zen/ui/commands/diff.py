"""/diff: what zen changed in this session, and apart from it what others changed between
messages; the same view as `zen diff` (zen/ui/diff_view.py)."""

from __future__ import annotations

from zen.ui.commands.registry import CommandContext, command
from zen.ui.diff_view import diff_lines


@command("diff", "what zen changed in this session (others' changes shown apart)")
async def _diff(ctx: CommandContext, arg: str) -> None:
    from zen.checkpoints.diffs import session_runs, session_sections
    from zen.checkpoints.safe_git import CheckpointError

    session, store = ctx.session, ctx.session.checkpoints
    if store is None:
        ctx.out.info("checkpoints are off (checkpoints.enabled, or no git executable)", "yellow")
        return
    runs = session_runs(store, session.id or "", [t.run for t in session.turns if t.run])
    try:
        rows = diff_lines(await session_sections(store, runs))
    except (CheckpointError, OSError) as e:
        ctx.out.error(f"cannot diff: {e}")
        return
    if not rows:
        ctx.out.info("no changes in this session yet", "dim")
    for text, style in rows:
        ctx.out.info(text, style)

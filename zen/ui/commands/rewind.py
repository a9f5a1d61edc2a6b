"""/undo and /rewind: the shell's way back, to before the last message or an earlier one.

Each shows the files it would restore and asks first; files changed outside zen since zen
recorded them are marked and can be skipped. `zen rewind` (zen/ui/rewind.py) is the same
outside the shell, and lends the checkpoint helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from zen.base.preamble import label
from zen.base.terminal_safe import terminal_safe
from zen.base.text import clip
from zen.ui.commands.registry import CommandContext, command
from zen.ui.rewind import (
    nothing_to_restore,
    out_of_reach_lines,
    undo_run,
    undo_target,
)

if TYPE_CHECKING:
    from zen.checkpoints.plan import Plan
    from zen.checkpoints.store import Checkpoint, CheckpointStore

SHOWN_FILES = 30


@command("undo", "restore the files the last message changed (shows them, asks first)")
async def _undo(ctx: CommandContext, arg: str) -> None:
    await shell_undo(ctx)


@command("rewind", "go back to an earlier message: code, conversation or both", "[N]")
async def _rewind(ctx: CommandContext, arg: str) -> None:
    await shell_rewind(ctx, arg)


async def shell_undo(ctx: CommandContext) -> None:
    store = _shell_store(ctx)
    if store is None:
        return
    target = undo_target(store)
    if target is None:
        ctx.out.info("nothing to undo: no message changed files here yet", "dim")
        return
    label = f" “{terminal_safe(target.label)}”" if target.label else ""
    await _restore(ctx, store, target, f"undo the files changed by{label or ' the last run'}")


async def shell_rewind(ctx: CommandContext, arg: str) -> None:
    """Pick a message of this session, then code, conversation or both."""
    session = ctx.session
    turns = session.turns
    if not turns:
        ctx.out.info("no messages to rewind to yet", "dim")
        return
    store = session.checkpoints
    if not arg:
        for number, turn in enumerate(turns, 1):
            start = store.run_start(turn.run) if store and turn.run else None
            note = f"checkpoint {start.id}" if start else "no file changes"
            ctx.out.info(f"  {number}. {terminal_safe(_first_line(turn.label))}  ({note})")
        arg = await _ask(ctx, "  rewind to just before which message? (number, Enter: none) › ")
    try:
        turn = turns[int(arg) - 1]
        if int(arg) < 1:
            raise ValueError
    except (ValueError, IndexError):
        if arg:
            ctx.out.info(f"  no message {arg!r}: choose 1 to {len(turns)}", "yellow")
        return
    choice = (
        await _ask(ctx, "  rewind [c]ode, c[o]nversation or [b]oth? (Enter: both) › ")
    ).strip().lower() or "b"
    if choice not in ("c", "o", "b", "code", "conversation", "both"):
        ctx.out.info("  nothing rewound", "dim")
        return
    if choice[0] in "cb":
        target = _code_target(store, turns[turns.index(turn) :]) if store else None
        if store is None or target is None:
            ctx.out.info("  no file changed since that message: the code stays as it is", "dim")
        elif not await _restore(ctx, store, target, f"rewind the files to before message {arg}"):
            return
    if choice[0] in "ob":
        if not session.rewind(turn):
            ctx.out.info(
                "  that message was compacted into the memo: the conversation "
                "cannot go back before the compaction",
                "yellow",
            )
            return
        ctx.out.info(
            f"  conversation rewound: the next message continues from before "
            f"“{terminal_safe(_first_line(turn.label))}”",
            "dim",
        )


def _code_target(store: CheckpointStore, turns: list[Any]) -> Checkpoint | None:
    """The state before the first of these messages that changed files."""
    for turn in turns:
        start = store.run_start(turn.run) if turn.run else None
        if start is not None:
            return start
    return None


async def _restore(
    ctx: CommandContext, store: CheckpointStore, target: Checkpoint, what: str
) -> bool:
    """Show what would change, ask, restore. False when the user said no."""
    from zen.checkpoints.safe_git import CheckpointError

    try:
        plan = await store.plan(target)
    except (CheckpointError, OSError) as e:
        ctx.out.error(f"cannot {what}: {e}")
        return False
    for line in out_of_reach_lines(plan):
        ctx.out.info(line, "yellow")
    if not plan.changes:
        ctx.out.info(nothing_to_restore(plan), "dim")
        return True
    lines = _show(ctx, plan, what)
    skip: set[str] = set()
    if plan.conflicts:
        ctx.out.info(
            f"  {len(plan.conflicts)} file(s) marked ! were changed outside zen "
            "since zen last recorded them (files zen never recorded stay as they are)",
            "yellow",
        )
        answer = await _ask(ctx, "  restore [a]ll, [s]kip the ! files, or [n]o? › ")
        if answer.strip().lower() in ("s", "skip"):
            skip = set(plan.conflicts)
        elif answer.strip().lower() not in ("a", "all"):
            ctx.out.info("  nothing restored", "dim")
            return False
    elif (await _ask(ctx, f"  restore {len(lines)} file(s)? [y/n] › ")).strip().lower() not in (
        "y",
        "yes",
    ):
        ctx.out.info("  nothing restored", "dim")
        return False
    try:
        done = await store.apply(plan, skip=skip, run=undo_run(target, store))
    except (CheckpointError, OSError) as e:
        ctx.out.error(f"restore failed: {e}")
        return False
    ctx.out.info(
        f"  restored {len(done)} file(s); `zen rewind {plan.current.id}` or /rewind goes back",
        "dim",
    )
    return True


def _show(ctx: CommandContext, plan: Plan, what: str) -> list[str]:
    """What the rewind would do, file by file (the first SHOWN_FILES); the lines."""
    target = plan.target
    ctx.out.info(f"{what} (checkpoint {target.id}, {target.when()}):")
    lines = plan.summary_lines()
    for line in lines[:SHOWN_FILES]:
        ctx.out.info(f"  {terminal_safe(line)}", "yellow" if "  ! " in line else "")
    if len(lines) > SHOWN_FILES:
        ctx.out.info(f"  … {len(lines) - SHOWN_FILES} more", "dim")
    return lines


async def _ask(ctx: CommandContext, question: str) -> str:
    try:
        return await ctx.approver.ask(question)
    except (KeyboardInterrupt, EOFError):
        return ""


def _shell_store(ctx: CommandContext) -> CheckpointStore | None:
    store = ctx.session.checkpoints
    if store is None:
        ctx.out.info("checkpoints are off (checkpoints.enabled, or no git executable)", "yellow")
    return store


def _first_line(text: str) -> str:
    """What the user typed (`preamble.label`), shortened."""
    return clip(label(text), 70)

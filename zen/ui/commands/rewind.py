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
    """Pick a message of this session, see what going back would restore, and answer one
    question: both, code, conversation, or no (anything else asks again)."""
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
    target = _code_target(store, turns[turns.index(turn) :]) if store else None
    plan = None
    if store is not None and target is not None:
        plan = await _plan(ctx, store, target, f"rewind the files to before message {arg}")
        if plan is None:
            return
    if plan is None or not plan.changes:
        if plan is None:
            ctx.out.info("  no file changed since that message: the code stays as it is", "dim")
        choices = {"o": "conversation", "n": "no"}
        question = "  rewind the c[o]nversation, or [n]o? › "
    else:
        choices = {"b": "both", "c": "code", "o": "conversation", "n": "no"}
        question = "  rewind [b]oth code and conversation, [c]ode, c[o]nversation, or [n]o? › "
    choice = await _choose(ctx, question, choices)
    if choice == "no":
        ctx.out.info("  nothing rewound", "dim")
        return
    if plan is not None and plan.changes and choice in ("both", "code"):
        assert store is not None and target is not None
        if not await _apply(ctx, store, plan, target):
            return
    if choice in ("both", "conversation"):
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


async def _choose(ctx: CommandContext, question: str, choices: dict[str, str]) -> str:
    """One of `choices`' values, by its key or its word; Enter (or Ctrl-C) is "no", anything
    else asks again, with the choices spelt out."""
    while True:
        answer = (await _ask(ctx, question)).strip().lower()
        if not answer:
            return "no"
        for key, word in choices.items():
            if answer in (key, word):
                return word
        listed = ", ".join(f"{key} ({word})" for key, word in choices.items())
        ctx.out.info(f"  answer {listed}", "yellow")


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
    plan = await _plan(ctx, store, target, what)
    if plan is None:
        return False
    if not plan.changes:
        return True
    if not plan.conflicts:
        question = f"  restore {len(plan.summary_lines())} file(s)? [y]es or [n]o › "
        if await _choose(ctx, question, {"y": "yes", "n": "no"}) == "no":
            ctx.out.info("  nothing restored", "dim")
            return False
    return await _apply(ctx, store, plan, target)


async def _plan(
    ctx: CommandContext, store: CheckpointStore, target: Checkpoint, what: str
) -> Plan | None:
    """What going back to `target` would restore, shown file by file; None if it cannot."""
    from zen.checkpoints.safe_git import CheckpointError

    try:
        plan = await store.plan(target)
    except (CheckpointError, OSError) as e:
        ctx.out.error(f"cannot {what}: {e}")
        return None
    for line in out_of_reach_lines(plan):
        ctx.out.info(line, "yellow")
    if not plan.changes:
        ctx.out.info(nothing_to_restore(plan), "dim")
    else:
        _show(ctx, plan, what)
    return plan


async def _apply(
    ctx: CommandContext, store: CheckpointStore, plan: Plan, target: Checkpoint
) -> bool:
    """Restore `plan`, asking first only about files changed outside zen. False: not done."""
    from zen.checkpoints.safe_git import CheckpointError

    skip: set[str] = set()
    if plan.conflicts:
        ctx.out.info(
            f"  {len(plan.conflicts)} file(s) marked ! were changed outside zen "
            "since zen last recorded them (files zen never recorded stay as they are)",
            "yellow",
        )
        choices = {"a": "all", "s": "skip", "n": "no"}
        answer = await _choose(ctx, "  restore [a]ll, [s]kip the ! files, or [n]o? › ", choices)
        if answer == "no":
            ctx.out.info("  nothing restored", "dim")
            return False
        skip = set(plan.conflicts) if answer == "skip" else set()
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

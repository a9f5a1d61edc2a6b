"""`zen rewind`: list checkpoints, restore one, prune old ones, outside the shell.

`zen rewind` alone undoes the last run that changed files; `zen rewind ID` goes back to any
listed checkpoint. Files someone else changed since zen last recorded them make it refuse
(exit 6) unless `--force`; files only zen changed are restored without a question.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING, Any

from zen.base import exits
from zen.base.paths import expand_user
from zen.base.text import clip

if TYPE_CHECKING:
    from zen.checkpoints.store import Checkpoint, CheckpointStore
    from zen.ui.commands import CommandContext

LISTED = ("before", "coder", "rewind")
"""Kinds worth going back to: a run's start, a Coder's start, the state before a rewind."""


def printable(text: str) -> str:
    """File names and labels come from outside: no control characters reach the terminal."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def listing(store: CheckpointStore) -> list[tuple[Checkpoint, str]]:
    """(checkpoint, line) for each checkpoint worth rewinding to, oldest first: the first of
    each run, each Coder's, and the state before each rewind (so a rewind can be undone)."""
    rows = []
    seen_runs: set[str] = set()
    for c in store.checkpoints():
        if c.kind not in LISTED:
            continue
        if c.kind == "before":
            if c.run in seen_runs:
                continue
            seen_runs.add(c.run)
        what = {"before": "before", "coder": "  before Coder", "rewind": "before rewind"}[c.kind]
        label = f"  {printable(c.label)}" if c.label else ""
        rows.append((c, f"{c.id}  {c.when()}  {what}{label}"))
    return rows


def undo_target(store: CheckpointStore) -> Checkpoint | None:
    run = store.last_run()
    return store.run_start(run) if run else None


def undo_run(target: Checkpoint, store: CheckpointStore) -> str:
    """The `run` a restore to `target` records: `undo:<run>` when it undoes a whole run."""
    start = store.run_start(target.run) if target.run else None
    return f"undo:{target.run}" if start is not None and start.id == target.id else ""


def rewind_command(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="zen rewind",
        description="Restore the workspace's files to a checkpoint zen took. Without an ID: "
        "undo the last run that changed files.",
    )
    parser.add_argument("id", nargs="?", help="a checkpoint id (or its start) from --list")
    parser.add_argument("--list", action="store_true", help="list the checkpoints")
    parser.add_argument(
        "--prune",
        action="store_true",
        help="drop checkpoints beyond checkpoints.keep_days / max_mb now",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="also overwrite files changed outside zen since the checkpoint",
    )
    parser.add_argument("-C", dest="directory", metavar="DIR", help="the workspace")
    args = parser.parse_args(argv)
    workspace = expand_user(args.directory or ".")
    if not workspace.is_dir():
        return _fail(f"-C {args.directory}: no such directory", exits.USAGE)

    from zen.checkpoints.safe_git import CheckpointError, has_git
    from zen.checkpoints.store import CheckpointStore
    from zen.settings import trust
    from zen.settings.loading import load_config
    from zen.settings.schema import ConfigError

    try:
        # A project's own settings apply only if the user trusted them (no question here).
        config = load_config(workspace.resolve(), trusted=trust.check(workspace).trusted)
    except ConfigError as e:
        return _fail(str(e), exits.USAGE)
    settings = config.checkpoints
    store = CheckpointStore(
        workspace.resolve(),
        max_file_size=settings.max_file_size,
        keep_days=settings.keep_days,
        max_mb=settings.max_mb,
        copies=not has_git(),
    )
    try:
        return asyncio.run(_rewind(store, args))
    except (CheckpointError, OSError) as e:
        return _fail(str(e), exits.API_ERROR)
    except KeyboardInterrupt:
        return _fail("interrupted", exits.INTERRUPTED)
    finally:
        store.close()


async def _rewind(store: CheckpointStore, args: argparse.Namespace) -> int:
    if args.prune:
        dropped, size = await store.prune()
        print(
            f"pruned {dropped} checkpoint(s); snapshots of this workspace use "
            f"{size / 1_000_000:.1f} MB"
        )
        return exits.DONE
    if args.list:
        rows = listing(store)
        for _c, line in rows:
            print(line)
        if not rows:
            print("no checkpoints for this workspace yet", file=sys.stderr)
        return exits.DONE
    if args.id:
        target = store.find(args.id)
        if target is None:
            return _fail(
                f"no checkpoint {args.id!r} (or more than one starts so); see zen rewind --list",
                exits.USAGE,
            )
    else:
        target = undo_target(store)
        if target is None:
            return _fail("nothing to undo: no run of zen changed files here", exits.USAGE)
    plan = await store.plan(target)
    if not plan.changes:
        print(f"nothing to restore: the files already match checkpoint {target.id}")
        return exits.DONE
    if plan.conflicts and not args.force:
        print(
            f"zen: not rewinding: {len(plan.conflicts)} file(s) changed outside zen since "
            "zen last recorded them (--force overwrites them):",
            file=sys.stderr,
        )
        for path in plan.conflicts:
            print(f"  {printable(path)}", file=sys.stderr)
        return exits.CONFLICT
    done = await store.apply(plan, run=undo_run(target, store))
    for line in plan.summary_lines():
        print(printable(line))
    print(
        f"restored {len(done)} file(s) to checkpoint {target.id} ({target.when()}); "
        f"`zen rewind {plan.current.id}` goes back"
    )
    return exits.DONE


def _fail(message: str, code: int) -> int:
    print(f"zen: {message}", file=sys.stderr)
    return code


# -- the shell's /undo and /rewind ------------------------------------------------------------

SHOWN_FILES = 30


async def shell_undo(ctx: CommandContext) -> None:
    store = _shell_store(ctx)
    if store is None:
        return
    target = undo_target(store)
    if target is None:
        ctx.out.info("nothing to undo: no message changed files here yet", "dim")
        return
    label = f" “{printable(target.label)}”" if target.label else ""
    await _restore(ctx, store, target, f"undo the files changed by{label or ' the last run'}")


async def shell_rewind(ctx: CommandContext, arg: str) -> None:
    """Pick a message of this session, then code, conversation or both."""
    session = ctx.session
    turns = list(session.turns)
    if not turns:
        ctx.out.info("no messages to rewind to yet", "dim")
        return
    store = session.checkpoints
    if not arg:
        for number, turn in enumerate(turns, 1):
            start = store.run_start(turn.run) if store and turn.run else None
            note = f"checkpoint {start.id}" if start else "no file changes"
            ctx.out.info(f"  {number}. {printable(_first_line(turn.label))}  ({note})")
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
        if not session.rewind_conversation(turn):
            ctx.out.info(
                "  that message was compacted into the memo: the conversation "
                "cannot go back before the compaction",
                "yellow",
            )
            return
        ctx.out.info(
            f"  conversation rewound: the next message continues from before "
            f"“{printable(_first_line(turn.label))}”",
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
    if not plan.changes:
        ctx.out.info(f"nothing to restore: the files already match checkpoint {target.id}", "dim")
        return True
    ctx.out.info(f"{what} (checkpoint {target.id}, {target.when()}):")
    lines = plan.summary_lines()
    for line in lines[:SHOWN_FILES]:
        ctx.out.info(f"  {printable(line)}", "yellow" if "! changed" in line else "")
    if len(lines) > SHOWN_FILES:
        ctx.out.info(f"  … {len(lines) - SHOWN_FILES} more", "dim")
    skip: set[str] = set()
    if plan.conflicts:
        ctx.out.info(
            f"  {len(plan.conflicts)} file(s) marked ! were changed outside zen "
            "since zen last recorded them",
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
    line = next((s.strip() for s in text.splitlines() if s.strip()), "")
    return clip(line, 70)

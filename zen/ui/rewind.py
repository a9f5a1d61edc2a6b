"""`zen rewind`: list checkpoints, restore one, prune old ones, outside the shell.

`zen rewind` alone undoes the last run that changed files; `zen rewind ID` goes back to any
listed checkpoint. Files someone else changed since zen last recorded them make it refuse
(exit 6) unless `--force`; files only zen changed are restored without a question. The
shell's /undo and /rewind (zen/ui/commands/rewind.py) use the helpers here.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from zen.base import exits
from zen.base.paths import directory_arg
from zen.base.terminal_safe import terminal_safe
from zen.base.text import clip

if TYPE_CHECKING:
    from zen.checkpoints.plan import Plan
    from zen.checkpoints.store import Checkpoint, CheckpointStore

LABEL = 60
"""A message's label in the list, shortened to keep a row on one line."""
LISTED = ("before", "coder", "rewind")
"""Kinds worth going back to: a run's start, a Coder's start, the state before a rewind."""


HEADER = f"{'ID':<8}  {'TAKEN':<19}  {'BEFORE':<7}  MESSAGE"
"""`zen rewind --list`'s header, over the columns `listing` writes."""


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
        what = {"before": "message", "coder": "Coder", "rewind": "rewind"}[c.kind]
        label = f"  {terminal_safe(clip(c.label, LABEL))}" if c.label else ""
        rows.append((c, f"{c.id:<8}  {c.when()}  {what:<7}{label}".rstrip()))
    return rows


def out_of_reach_lines(plan: Plan) -> list[str]:
    """What the rewind cannot restore (no snapshot holds it), said before it starts."""
    if not plan.out_of_reach:
        return []
    head = (
        f"cannot restore {len(plan.out_of_reach)} file(s) changed since checkpoint "
        f"{plan.target.id} (no snapshot holds them; they stay as they are):"
    )
    return [head, *(f"  {terminal_safe(line)}" for line in plan.out_of_reach)]


def nothing_to_restore(plan: Plan) -> str:
    what = "the files it recorded" if plan.out_of_reach else "the files"
    return f"nothing to restore: {what} already match checkpoint {plan.target.id}"


def undo_target(store: CheckpointStore) -> Checkpoint | None:
    run = store.last_run()
    return store.run_start(run) if run else None


def undo_run(target: Checkpoint, store: CheckpointStore) -> str:
    """The `run` a restore to `target` records: `undo:<run>` when it undoes a whole run."""
    start = store.run_start(target.run) if target.run else None
    return f"undo:{target.run}" if start is not None and start.id == target.id else ""


def _parser() -> argparse.ArgumentParser:
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
    return parser


def rewind_command(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    workspace, problem = directory_arg(args.directory)
    if problem:
        return _fail(problem, exits.USAGE)

    from zen.checkpoints.scope import refusal

    refused = refusal(workspace)
    if refused:
        return _fail(refused, exits.USAGE)
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
        tool_file_size=config.max_edit_bytes,
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
        if rows:
            print(HEADER)
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
    for line in out_of_reach_lines(plan):
        print(line)
    if not plan.changes:
        print(nothing_to_restore(plan))
        return exits.DONE
    if plan.conflicts and not args.force:
        return _refuse(plan)
    done = await store.apply(plan, run=undo_run(target, store))
    for line in plan.summary_lines():
        print(terminal_safe(line))
    print(
        f"restored {len(done)} file(s) to checkpoint {target.id} ({target.when()}); "
        f"`zen rewind {plan.current.id}` goes back"
    )
    return exits.DONE


def _refuse(plan: Plan) -> int:
    print(
        f"zen: not rewinding: {len(plan.conflicts)} file(s) changed outside zen since "
        "zen last recorded them (--force overwrites them; files zen never recorded "
        "are always left alone):",
        file=sys.stderr,
    )
    for path in plan.conflicts:
        why = f": {plan.blocked[path]}" if path in plan.blocked else ""
        print(f"  {terminal_safe(path + why)}", file=sys.stderr)
    return exits.CONFLICT


def _fail(message: str, code: int) -> int:
    print(f"zen: {message}", file=sys.stderr)
    return code

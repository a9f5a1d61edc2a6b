"""`zen diff` and the lines `/diff` prints: what zen changed in a session, as a unified diff.

The sections come from the checkpoints (zen/checkpoints/diffs.py): each message's own
changes, and apart from them what others changed between messages and since. Every line is
file content or a file name, so each goes through `terminal_safe` before any colour is added:
a file holding escape sequences shows them as placeholders. Colour only on a terminal
(`NO_COLOR` and pipes get plain text); binary files are named, never printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

from zen.base import exits
from zen.base.paths import directory_arg
from zen.base.terminal_safe import terminal_safe

if TYPE_CHECKING:
    from zen.checkpoints.diffs import Section
    from zen.checkpoints.store import CheckpointStore

SGR = {"bold": "1", "yellow": "1;33", "green": "32", "red": "31", "cyan": "36", "dim": "2"}


def diff_lines(sections: list[Section]) -> list[tuple[str, str]]:
    """(text, style) per line, every text terminal-safe."""
    rows: list[tuple[str, str]] = []
    for section in sections:
        rows.append((terminal_safe(f"── {section.title}"), "bold" if section.by_zen else "yellow"))
        for file in section.files:
            if file.binary:
                rows.append((terminal_safe(f"Binary file {file.path} changed"), "dim"))
                continue
            rows += [(terminal_safe(line), _style(line)) for line in file.lines]
    return rows


def _style(line: str) -> str:
    if line.startswith(("--- ", "+++ ")):
        return "bold"
    if line.startswith("@@"):
        return "cyan"
    return {"+": "green", "-": "red"}.get(line[:1], "")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="zen diff",
        description="What zen changed in the workspace's latest session (or SESSION), from "
        "its checkpoints; changes made by others between messages are shown apart.",
    )
    parser.add_argument("session", nargs="?", help="a session id (default: the latest)")
    parser.add_argument("-C", dest="directory", metavar="DIR", help="the workspace")
    return parser


def diff_command(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    workspace, problem = directory_arg(args.directory)
    if problem:
        print(f"zen: {problem}", file=sys.stderr)
        return exits.USAGE
    from zen.checkpoints.safe_git import CheckpointError, has_git
    from zen.checkpoints.store import CheckpointStore

    store = CheckpointStore(workspace.resolve(), copies=not has_git())
    try:
        return asyncio.run(_diff(store, args.session or ""))
    except (CheckpointError, OSError) as e:
        print(terminal_safe(f"zen: {e}"), file=sys.stderr)
        return exits.API_ERROR
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    finally:
        store.close()


async def _diff(store: CheckpointStore, session: str) -> int:
    from zen.checkpoints.diffs import latest_session, session_runs, session_sections
    from zen.ui import term

    session = _session(store, session) if session else latest_session(store)
    runs = session_runs(store, session, []) if session else []
    if not runs:
        print("no changes by zen recorded in this workspace's sessions", file=sys.stderr)
        return exits.DONE
    caps = term.detect(sys.stdout)
    print(f"session {session}", flush=True)
    for text, style in diff_lines(await session_sections(store, runs)):
        sgr = SGR.get(style) if caps.styled and caps.colour else None
        print(f"\x1b[{sgr}m{text}\x1b[0m" if sgr else text)
    return exits.DONE


def _session(store: CheckpointStore, prefix: str) -> str:
    """The one session whose id starts with `prefix` among this workspace's checkpoints."""
    found = {c.session for c in store.checkpoints() if c.session.startswith(prefix.strip())}
    return found.pop() if len(found) == 1 else ""

"""How the command line writes: exact text on any code page, one-line failures, notes.

Shared by the entry point, the subcommands and the run starters; it imports only `sys` and
`zen.base.exits` at module level, since `zen --help` loads it too.
"""

from __future__ import annotations

import sys

from zen.base import exits


def exact_output() -> None:
    """Every character of an answer reaches the user as written, whatever the code page.

    Redirected to a pipe or file, stdout and stderr write UTF-8 (Windows would use the ANSI
    code page, which cannot encode `✓` or CJK: a crash after the edits were made, or `?`).
    A terminal keeps its own encoding (a Windows console is written through its wide-character
    API, which has no code page); only a lone surrogate, never valid text, is replaced."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            tty = stream.isatty()
        except (OSError, ValueError):
            tty = False
        try:
            if tty:
                reconfigure(errors="replace")
            else:
                reconfigure(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            pass


def fail(message: str, code: int = exits.USAGE) -> int:
    from zen.base.terminal_safe import terminal_safe  # messages quote config files and paths

    print(terminal_safe(f"zen: {message}"), file=sys.stderr)
    return code


def report_tightened() -> None:
    """One line per state path whose wider permissions zen narrowed (issue 19)."""
    paths = sys.modules.get("zen.base.paths")
    for path in getattr(paths, "tightened", [])[:]:
        print(
            f"zen: note: {path} was readable by others; it is now private to you", file=sys.stderr
        )
    if paths is not None:
        paths.tightened.clear()

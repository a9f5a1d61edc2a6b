"""Warnings: the `Warn` callback every layer takes, and the default that prints one.

Layers below the front-ends never print; they take a `Warn` (the shell shows it in its log,
`zen acp` sends it to the client) and only a caller without one falls back to `warn_stderr`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from zen.base.terminal_safe import terminal_safe

Warn = Callable[[str], None]


def warn_stderr(message: str) -> None:
    """`zen: warning: …` on stderr, safe for a terminal (messages quote outside text)."""
    print(terminal_safe(f"zen: warning: {message}"), file=sys.stderr, flush=True)

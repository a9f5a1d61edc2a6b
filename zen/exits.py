"""Exit codes, one table for every front-end (documented in README)."""

DONE = 0
API_ERROR = 1
"""The model or its API failed in a way retrying could not fix."""
USAGE = 2
"""A bad flag or config value."""
MAX_TURNS = 3
INTERRUPTED = 130
TERMINATED = 143
"""SIGTERM (`timeout`, `kill`, `docker stop`): stopped like Ctrl-C, 128 + 15."""
HANGUP = 129
"""SIGHUP (the terminal closed): stopped like Ctrl-C, 128 + 1."""


def for_signal(signum: int) -> int:
    """The shell convention: 128 + the signal's number."""
    return 128 + signum

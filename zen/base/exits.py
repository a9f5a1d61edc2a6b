"""Exit codes, one table for every front-end (documented in docs/reference.md)."""

DONE = 0
API_ERROR = 1
"""The model or its API failed in a way retrying could not fix."""
USAGE = 2
"""A bad flag or config value."""
MAX_TURNS = 3
MAX_TIME = 4
"""The task ran out of its time limit (`max_time`, `--max-time`)."""
CUT = 5
"""The answer was cut at `max_tokens` (finish_reason "length"); what came is printed, marked."""
CONFLICT = 6
"""`zen rewind` refused: files changed outside zen since the checkpoint (--force overwrites)."""
DENIED = 7
"""The run finished, but confirm-level calls were refused because nobody could approve them
(`-p` without `--yes`): the result may be incomplete."""
BUDGET = 8
"""The task cost more than `max_budget_usd` (`--max-budget-usd`) and was stopped."""
INTERRUPTED = 130
MCP_FAILED = 9
"""`zen mcp list`: at least one MCP server could not start."""
DOCTOR = 10
"""`zen doctor`: at least one check says FAIL."""
TERMINATED = 143
"""SIGTERM (`timeout`, `kill`, `docker stop`): stopped like Ctrl-C, 128 + 15."""
HANGUP = 129
"""SIGHUP (the terminal closed), or the Windows console window closed: stopped like Ctrl-C,
128 + 1."""
PIPE_CLOSED = 141
"""Whoever read zen's output stopped reading (`zen sessions list | head -1`): zen stops
quietly, 128 + SIGPIPE (13), as tools killed by SIGPIPE do."""
BREAK = 149
"""Ctrl-Break (Windows): stopped like Ctrl-C, 128 + SIGBREAK (21). Logoff and shutdown give
TERMINATED."""


def for_signal(signum: int) -> int:
    """The shell convention: 128 + the signal's number."""
    return 128 + signum

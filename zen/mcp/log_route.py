"""Where MCP logging goes while a manager runs: a private file, never the terminal.

The SDK's loggers and the servers' stderr lines (`stderr.py`) are routed to `~/.zen/logs/mcp.log`
with known secrets scrubbed; the loggers' own settings come back when the last route closes.
"""

from __future__ import annotations

import logging
from pathlib import Path

from zen.base.paths import private_file, zen_home
from zen.base.redaction import scrub


def default_log_path() -> Path:
    return zen_home() / "logs" / "mcp.log"


_ROUTED = {
    "mcp": logging.INFO,
    "mcp_types": logging.INFO,
    "zen.mcp": logging.INFO,
    "httpx2": logging.WARNING,
    "httpcore2": logging.WARNING,
}


class _Scrubbed(logging.Formatter):
    """Known secrets (API keys, MCP env and header values) never reach the log file."""

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class LogRoute:
    """Sends the SDK's and the servers' logging to a file and nowhere else, while held.

    Routes are counted, so two managers alive at once cannot undo each other; the
    loggers' own settings come back when the last one closes.
    """

    _held = 0
    _saved: dict[str, tuple[bool, int]] = {}

    def __init__(self, path: Path) -> None:
        try:
            handler: logging.Handler = logging.FileHandler(private_file(path), encoding="utf-8")
        except OSError:
            handler = logging.NullHandler()  # a log we cannot write must not cost the servers
        handler.setFormatter(_Scrubbed("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        self._handler = handler
        if LogRoute._held == 0:
            for name, level in _ROUTED.items():
                logger = logging.getLogger(name)
                LogRoute._saved[name] = (logger.propagate, logger.level)
                logger.propagate = False
                if logger.level == logging.NOTSET:
                    logger.setLevel(level)
        LogRoute._held += 1
        for name in _ROUTED:
            logging.getLogger(name).addHandler(handler)

    def close(self) -> None:
        for name in _ROUTED:
            logging.getLogger(name).removeHandler(self._handler)
        self._handler.close()
        LogRoute._held -= 1
        if LogRoute._held == 0:
            for name, (propagate, level) in LogRoute._saved.items():
                logger = logging.getLogger(name)
                logger.propagate = propagate
                logger.setLevel(level)

"""A stdio server's stderr: copied to the MCP log, and the line that explains a failure.

When a server dies, its last stderr line is often a footer (`Node.js v20.11.0`, a closing
brace of an error object, a stack frame), not the error. `telling_line` picks the line a
person would quote instead.
"""

from __future__ import annotations

import logging
import os
import re
import threading
from collections import deque
from collections.abc import Iterable

import anyio
import anyio.to_thread

from zen.base.text import clip

log = logging.getLogger("zen.mcp")

_KEPT_LINES = 200
_MAX_LINE = 500
_READ_CHUNK = 8192
_NOISE = re.compile(
    r"^(?:Node\.js v\d[\w.]*|at .*|\^+|[{}()\[\],;]+|(?!\w*Error)\w+: *(?:'[^']*'|\[\]|\{\}|\d+),?"
    r"|throw \w+;|node:internal\S*|Traceback \(most recent call last\):|File \".*"
    r"|-+|=+|\s*)$"
)
_ERROR = re.compile(
    r"\b(?:\w*Error|\w*Exception|error|fatal|failed|failure|cannot|can't|could not|not found"
    r"|no such|denied|refused|invalid|missing|unable|ENOENT|EACCES|EADDRINUSE)\b",
    re.IGNORECASE,
)
_CONTROL = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC (window titles, links)
    r"|\x1b\[[0-?]*[ -/]*[@-~]|\x1b.?|[\x00-\x08\x0b-\x1f\x7f\x9b]"
)


def telling_line(lines: Iterable[str]) -> str:
    """The most informative of a server's last stderr lines: the last one that reads like an
    error, else the last one that is not a footer, stack frame or punctuation."""
    kept = [line.strip() for line in lines if line.strip()]
    useful = [line for line in kept if not _NOISE.match(line)]
    for line in reversed(useful):
        if _ERROR.search(line):
            return line
    return useful[-1] if useful else (kept[-1] if kept else "")


def clean_line(raw: bytes) -> str:
    """One stderr line as text: decoded, without control sequences, at most 500 characters."""
    text = raw.decode("utf-8", errors="replace").rstrip("\r\n").replace("\n", " ")
    text = _CONTROL.sub("", text).rstrip()
    return clip(text, _MAX_LINE)


class StderrPump:
    """Copies a server's stderr into the MCP log line by line, keeping the last lines.

    The child needs a real file descriptor for stderr; a pipe drained by a daemon thread
    keeps every byte of it off zen's terminal and lets a failure quote the server's words.
    Memory stays bounded: lines are read in chunks and only the last 200 are kept.
    """

    def __init__(self, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w")
        self.lines: deque[str] = deque(maxlen=_KEPT_LINES)
        self._seen = 0
        self._mark = 0
        self._server = server
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), name=f"mcp stderr {server}", daemon=True
        )
        self._thread.start()

    def mark(self) -> None:
        """From now on only newer lines explain a failure (not the start-up chatter)."""
        self._mark = self._seen

    @property
    def reason(self) -> str:
        newer = self._seen - self._mark
        return telling_line(list(self.lines)[-newer:] if newer else [])

    def _pump(self, read_fd: int) -> None:
        with os.fdopen(read_fd, "rb") as pipe:
            while raw := pipe.readline(_READ_CHUNK):
                line = clean_line(raw)
                if line.strip():
                    self.lines.append(line)
                    self._seen += 1
                    log.info("server %s stderr: %s", self._server, line)

    async def close(self) -> None:
        """Close zen's end; the pump ends once the server's copy is closed too (it has exited)."""
        if not self.file.closed:
            self.file.close()
        await anyio.to_thread.run_sync(self._thread.join, 1.0)

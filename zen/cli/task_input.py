"""The text of a `-p` task: the argument or stdin, plus what a pipe gives as context.

Bytes that are not UTF-8 become U+FFFD here, at the door, and a stdin left open and silent
never makes zen wait more than a moment.
"""

from __future__ import annotations

import sys


def read_task(given: str) -> str:
    """The task as valid text: bytes that are not UTF-8 (in argv, kept by Python as lone
    surrogates, or on stdin) become U+FFFD instead of failing far away, in a request."""
    if given == "-":  # UTF-8 whatever the code page; PowerShell may put a BOM first
        return sys.stdin.buffer.read().decode("utf-8-sig", "replace")
    return given.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


PIPED_LIMIT = 200_000
"""Characters of piped stdin attached to a `-p` task, at most."""
PIPED_WAIT = 0.5
"""Seconds stdin may take to give data or end-of-file before zen goes on without it."""


def piped_input(wait: float = PIPED_WAIT) -> str:
    """What a pipe gives on stdin (`cat log | zen -p "explain"`), as context for the task.

    Read only when stdin is not a terminal and has data or end-of-file within `wait` seconds:
    an editor or CI job that leaves stdin open and silent must not hang zen. A reader thread
    waits for the first chunk (select() takes only sockets on Windows); if the deadline passes
    it is left blocked and dies with the process."""
    import os
    import queue
    import threading

    stream = sys.stdin
    if stream is None:
        return ""
    try:
        if stream.isatty():
            return ""
        fd = stream.fileno()
    except (OSError, ValueError):
        return ""
    chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def pump() -> None:
        size = 0
        try:
            while size <= PIPED_LIMIT * 4:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.put(chunk)
                size += len(chunk)
        except OSError:
            pass
        chunks.put(None)

    threading.Thread(target=pump, name="zen-stdin", daemon=True).start()
    try:
        chunk = chunks.get(timeout=wait)
    except queue.Empty:
        return ""
    got: list[bytes] = []
    while chunk is not None:
        got.append(chunk)
        chunk = chunks.get()
    text = b"".join(got).decode("utf-8-sig", "replace").replace("\r\n", "\n")
    if len(text) > PIPED_LIMIT:
        text = text[:PIPED_LIMIT] + f"\n[cut: stdin gave more than {PIPED_LIMIT:,} characters]"
    return text

"""Server-sent events from raw bytes, as the SSE spec says, and chunks made safe to use.

The SDK's own parser dispatches an event for every blank line after `retry:` or `event:` and
then fails to parse its empty data; it also dies on one invalid UTF-8 byte. Both are legal or
at least survivable, so zen reads the bytes itself (over the SDK's raw response):

- only `data:` fields make an event; `event:`, `id:`, `retry:`, comments and unknown fields
  are ignored, and an event whose data is empty is not dispatched;
- lines end in LF, CRLF or CR; the data of one event is its `data:` lines joined by LF;
- a payload that is not valid UTF-8, not JSON, or JSON of the wrong shape is `Malformed`:
  the attempt fails and is retried, it is never silently dropped;
- a line or an event longer than `MAX_LINE` bytes is `Malformed` too (memory stays bounded).
"""

from __future__ import annotations

import json
import re
from typing import Any

from zen.base.text import encodable_in

MAX_LINE = 16 * 1024 * 1024
DONE = b"[DONE]"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


class Malformed(Exception):
    """The server sent something that is not a well-formed chat-completion stream."""


class SseDecoder:
    """Feed it the body's byte chunks; it returns each complete event's data payload."""

    def __init__(self) -> None:
        self._pending: list[bytes] = []
        self._pending_size = 0
        self._data: list[bytes] = []
        self._data_size = 0
        self.saw_data = False
        """Any `data:` field arrived (an empty 200 stream has none)."""

    def feed(self, chunk: bytes) -> list[bytes]:
        if b"\r" in chunk:
            if chunk.endswith(b"\r"):  # maybe half of a CRLF: wait for the next byte
                self._hold(chunk)
                return []
            chunk = self._joined(chunk)
            chunk = chunk.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        elif b"\n" not in chunk:
            self._hold(chunk)
            return []
        else:
            chunk = self._joined(chunk)
        lines = chunk.split(b"\n")
        rest = lines.pop()
        if rest:
            self._hold(rest)
        return self._lines(lines)

    def finish(self) -> list[bytes]:
        """The body ended: a last line without its newline still counts, and pending data is
        dispatched (servers often end with `data: [DONE]` and no blank line)."""
        rest = self._joined(b"").replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return self._lines([*rest.split(b"\n"), b""])

    def _hold(self, piece: bytes) -> None:
        self._pending.append(piece)
        self._pending_size += len(piece)
        if self._pending_size > MAX_LINE:
            raise Malformed(f"the server sent a stream line longer than {MAX_LINE >> 20} MB")

    def _joined(self, chunk: bytes) -> bytes:
        if not self._pending:
            return chunk
        self._pending.append(chunk)
        joined = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        return joined

    def _lines(self, lines: list[bytes]) -> list[bytes]:
        out: list[bytes] = []
        data = self._data
        for line in lines:
            if not line:
                if data:
                    payload = data[0] if len(data) == 1 else b"\n".join(data)
                    data.clear()
                    self._data_size = 0
                    if payload:
                        out.append(payload)
                continue
            if line.startswith(b"data:"):
                value = line[5:]
                if value[:1] == b" ":
                    value = value[1:]
                data.append(value)
                self.saw_data = True
                if len(data) > 1:  # one event in many data lines: bound it as a whole
                    self._data_size += len(value)
                    if self._data_size > MAX_LINE:
                        raise Malformed(
                            f"the server sent a stream event larger than {MAX_LINE >> 20} MB"
                        )
            # event:, id:, retry:, `:` comments and unknown fields carry nothing zen uses
        return out


def parse_payload(payload: bytes) -> Any:
    """One event's data as JSON, with lone surrogates (`\\ud83d`) replaced: they cannot be
    printed or sent back, and would fail far from here."""
    try:
        value = json.loads(payload)
    except UnicodeDecodeError:
        raise Malformed("the server sent bytes that are not UTF-8 in the stream") from None
    except ValueError as exc:
        raise Malformed(f"the server sent a chunk that is not JSON ({exc})") from None
    except RecursionError:
        raise Malformed("the server sent a chunk nested too deeply") from None
    if b"\\u" in payload and _SURROGATE_ESCAPE.search(payload):
        value = encodable_in(value)
    return value

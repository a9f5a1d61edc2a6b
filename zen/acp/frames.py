"""The protocol's incoming lines, checked before the ACP SDK reads them.

The SDK's connection takes every JSON line for an object: `[]`, `42` or `"s"` raised
AttributeError in its receive loop and `null` ended it silently, so one client bug (or a
JSON-RPC batch, which ACP does not use) ended every session. A line that is JSON but not an
object is answered here with JSON-RPC's Invalid Request (id null) and never reaches the SDK;
everything else is passed on byte for byte (a line that is not JSON at all the SDK logs and
skips).
"""

from __future__ import annotations

import asyncio
import json

INVALID_REQUEST = (
    json.dumps(
        {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid Request"}}
    ).encode()
    + b"\n"
)


def checked(
    source: asyncio.StreamReader, writer: asyncio.StreamWriter, limit: int
) -> tuple[asyncio.StreamReader, asyncio.Task[None]]:
    """A reader for the SDK holding only `source`'s lines that may reach it, and the task that
    fills it (it ends with `source`)."""
    target = asyncio.StreamReader(limit=limit)
    return target, asyncio.ensure_future(_pump(source, target, writer))


async def _pump(
    source: asyncio.StreamReader, target: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    try:
        while line := await _line(source):
            if _not_an_object(line):
                writer.write(INVALID_REQUEST)
            else:
                target.feed_data(line)
    finally:
        target.feed_eof()


async def _line(source: asyncio.StreamReader) -> bytes:
    """One line however long (what the SDK would have read), b"" at the end."""
    chunks: list[bytes] = []
    while True:
        try:
            chunks.append(await source.readuntil(b"\n"))
            return b"".join(chunks)
        except asyncio.LimitOverrunError as exc:
            chunks.append(await source.readexactly(exc.consumed))
        except asyncio.IncompleteReadError as exc:
            return b"".join([*chunks, exc.partial])


def _not_an_object(line: bytes) -> bool:
    text = line.strip()
    if not text or text.startswith(b"{"):
        return False  # blank, or an object (or broken JSON the SDK skips): the SDK's to read
    try:
        json.loads(text)
    except ValueError:
        return False
    return True

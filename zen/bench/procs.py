"""Waiting on a bench's child processes: bounded waits and bounded reads, nothing more."""

from __future__ import annotations

import asyncio


async def ended(proc: asyncio.subprocess.Process, within: float) -> bool:
    """Whether the process ended within `within` seconds."""
    try:
        await asyncio.wait_for(proc.wait(), within)
    except asyncio.TimeoutError:
        return False
    return True


async def drain(stream: asyncio.StreamReader, limit: int) -> bytes:
    """Everything the stream gives, keeping the first `limit` bytes (a flood costs nothing)."""
    kept = bytearray()
    while chunk := await stream.read(65536):
        if len(kept) < limit:
            kept += chunk[: limit - len(kept)]
    return bytes(kept)

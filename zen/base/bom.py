"""Text of a file a user's editor or shell saved: UTF-8 with or without a byte-order mark,
or UTF-16 with one.

Windows tools write BOMs: Notepad and PowerShell 7's `-Encoding utf8BOM` a UTF-8 one,
PowerShell 5.1's `>` and `Out-File` UTF-16 LE. `.mcp.json`, `.claude/settings.json`, the
config and skills are read through here so such a file means what it says instead of being
called invalid or skipped.
"""

from __future__ import annotations

import codecs


def decode_text(raw: bytes, errors: str = "strict") -> str:
    """`raw` as text: the BOM decides the encoding (and is dropped); without one, UTF-8."""
    if raw.startswith(codecs.BOM_UTF8):
        return raw[3:].decode("utf-8", errors)
    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return raw.decode("utf-16", errors)  # reads the BOM, drops it
    return raw.decode("utf-8", errors)

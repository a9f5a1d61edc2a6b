"""Text from outside zen made safe to write to a terminal: the one function every front-end uses.

A model's answer, a tool's output, a file name, an MCP result or an HTTP error body can carry
bytes a terminal obeys: `ESC]0;…BEL` retitles the window, `ESC[2J` clears it, `ESC[1A ESC[2K`
erases the line that showed the command that just ran, a lone carriage return overwrites it,
U+009B is an 8-bit CSI, U+202E reverses what follows. Each of these is shown as one visible
placeholder instead, whole escape sequences at once, so nothing is executed and nothing is
silently hidden. Piped output is treated the same: it usually ends up on a terminal too.

Machine-readable output (JSON) keeps the exact text and escapes it with `ensure_ascii`.
"""

from __future__ import annotations

import re

PLACEHOLDER = "\ufffd"
"""`�`: one cell, visible in every font, and what a terminal shows for undecodable bytes."""

_STRING_END = r"(?:\x07|\x1b\\|\x9c)"
"""BEL or ST (ESC \\ or 8-bit U+009C) ends OSC, DCS, SOS, PM and APC strings."""

UNSAFE = re.compile(
    "\x1b(?:"
    r"\[[0-?]*[ -/]*[@-~]"  # CSI: ESC [ params intermediates final
    r"|[\]PX^_][^\x07\x1b\x9c]{0,4096}"
    + _STRING_END  # OSC, DCS, SOS, PM, APC
    + r"|[ -/]*[0-~]"  # other escapes (charset, keypad, ...)
    r")?"  # or a lone ESC
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|[\x90\x98\x9d\x9e\x9f][^\x07\x1b\x9c]{0,4096}"
    + _STRING_END  # 8-bit strings
    + "|[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"  # other C0, DEL, C1, bidi
)
"""Everything a terminal could act on, except newline and tab."""


def terminal_safe(text: str) -> str:
    """`text` with CRLF made LF, then every control character, escape sequence (whole), C1
    control and bidi override or isolate replaced by `PLACEHOLDER`; newlines and tabs kept."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    return UNSAFE.sub(PLACEHOLDER, text)

"""Secrets never reach a terminal, a log or a file: keys are shown as `sk-…last4`.

The process remembers the secrets it was given (the model API keys, MCP servers' `env`
values and header values) and `scrub` replaces each of them in any text on its way out:
error messages (a 401 whose body echoes the key), the MCP log (a server printing its
environment), status lines. This is zen's one redactor: nothing else replaces keys in text.

Short values (under 8 characters: `TZ: UTC`, a local server's dummy key `x`) are not treated
as secrets: replacing them would garble ordinary text and they guard nothing. Values under 16
characters are replaced only where they stand as a whole token (not inside a longer word or
identifier), so a key `password1` never turns `password12` into `…2`; longer ones (real keys)
are replaced wherever they appear, glued to other text or not.
"""

from __future__ import annotations

import re
import threading

MIN_SECRET = 8
WHOLE_TOKEN_UNDER = 16
"""Secrets shorter than this are matched only as whole tokens."""
_secrets: set[str] = set()
_lock = threading.Lock()
_pattern: re.Pattern[str] | None = None


def redact(secret: str | None) -> str:
    """A key as zen shows it: `sk-…last4` for real keys, nothing of a short one."""
    if not secret:
        return "none"
    if len(secret) < 16:
        return "…"
    return f"{secret[:3]}…{secret[-4:]}"


def remember(*values: str | None) -> None:
    """Treat these values (and the token part of `Bearer TOKEN`) as secrets from now on."""
    global _pattern
    found = set()
    for value in values:
        if not value:
            continue
        found.add(value)
        found.update(part for part in value.split() if len(part) >= MIN_SECRET)
    found = {value for value in found if len(value) >= MIN_SECRET}
    with _lock:
        if found - _secrets:
            _secrets.update(found)
            ordered = sorted(_secrets, key=len, reverse=True)  # longest first
            _pattern = re.compile("|".join(_matcher(s) for s in ordered))


def scrub(text: str) -> str:
    """`text` with every remembered secret replaced by its redacted form."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(lambda match: redact(match.group(0)), text)


def _matcher(secret: str) -> str:
    """A secret's regex: anywhere when long, as a whole token when short."""
    if len(secret) >= WHOLE_TOKEN_UNDER:
        return re.escape(secret)
    return rf"(?<![\w]){re.escape(secret)}(?![\w])"

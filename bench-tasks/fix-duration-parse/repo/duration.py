"""Durations written like `1h30m`, `45s` or `2h`, as in the scheduler's config."""

import re

UNITS = {"h": 3600, "m": 60, "s": 1}
PART = re.compile(r"(\d)([hms])")


def seconds(text: str) -> int:
    """`1h30m` -> 5400. ValueError for text that is not a duration."""
    text = text.strip()
    parts = PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ValueError(f"not a duration: {text!r}")
    return sum(int(n) * UNITS[u] for n, u in parts)


def describe(total: int) -> str:
    """5400 -> `1h30m`; 0 -> `0s`."""
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    text = (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes else "")
    return text + (f"{secs}s" if secs or not text else "")

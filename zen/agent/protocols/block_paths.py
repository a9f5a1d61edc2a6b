"""Where an edit block names its file: a path line above a fence or a SEARCH marker, the
fence's info string, a prose line naming a shown file. Small models slip in small ways, so
markdown around a path is forgiven; prose is never taken for a path."""

from __future__ import annotations

import re

_PATH_PREFIX = re.compile(r"^(?:#+|[-*]|\d+\.)?\s*(?:(?:file(?:name)?|path)\s*:\s*)?", re.I)


def named_above(lines: list[str], start: int, known: frozenset[str]) -> str | None:
    """The one file the model was shown that the prose line above a fence names."""
    above = next(
        (lines[j] for j in range(start - 1, max(start - 3, -1), -1) if lines[j].strip()), ""
    )
    words = {w.strip(".,;:!?()[]'\"`*") for w in re.findall(r"[\w./\\`*-]+", above)}
    named = words & known
    return named.pop() if len(named) == 1 else None


def placeholder_above(lines: list[str], start: int) -> bool:
    above = next(
        (lines[j] for j in range(start - 1, max(start - 3, -1), -1) if lines[j].strip()), ""
    )
    return bool(re.fullmatch(r"\s*<[^<>]{1,40}>\s*:?\s*", above))


def path_before(lines: list[str], start: int) -> str | None:
    """The path line just above a fence (one blank line between is forgiven)."""
    for j in range(start - 1, max(start - 3, -1), -1):
        if lines[j].strip():
            return path_line(lines[j])
    return None


def angled(line: str) -> str | None:
    """`<count.py>` on a fence's first line: the path, in the prompt's `<path of the file>`."""
    found = re.fullmatch(r"\s*<([^<>\s]{1,255})>\s*", line)
    return path_line(found.group(1)) if found else None


def path_in_info(words: list[str]) -> str | None:
    """```python app.py or ```app.py: a fence's info string naming the file."""
    for word in reversed(words):
        found = path_line(word)
        if found and ("." in found or "/" in found):
            return found
    return None


def path_line(line: str) -> str | None:
    """The path a line consists of, forgiving markdown around it; None for prose."""
    text = _PATH_PREFIX.sub("", line.strip(), count=1).strip()
    text = text.strip("*_`'\"").rstrip(":").strip("*_`'\"").strip()
    if not text or len(text) > 255 or any(c.isspace() for c in text):
        return None
    if (
        text.endswith(".")
        or "://" in text
        or not re.search(r"\w", text)
        or set(text) & set("<>|?*")
    ):
        return None
    name = text.replace("\\", "/").rsplit("/", 1)[-1]
    if "." in name.strip(".") or "/" in text.replace("\\", "/") or name in EXTENSIONLESS:
        return text
    return None


EXTENSIONLESS = frozenset({"Makefile", "Dockerfile", "Procfile", "Gemfile", "Rakefile", "LICENSE"})
"""File names without a dot that a path line may still be."""

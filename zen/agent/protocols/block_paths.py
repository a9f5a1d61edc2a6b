"""Where an edit block names its file: a path line above a fence or a SEARCH marker, the
fence's info string, a prose line naming a shown file. Small models slip in small ways, so
markdown around a path is forgiven; prose is never taken for a path. Each check reads one line
once, with no pattern that backtracks (the parser asks at every fence of a hostile answer)."""

from __future__ import annotations

import re

_PATH_PREFIX = re.compile(r"^(?:#+|[-*]|\d+\.)?\s*(?:(?:file(?:name)?|path)\s*:\s*)?", re.I)
_MAYBE_PATH = re.compile(r"[./\\]|Makefile|Dockerfile|Procfile|Gemfile|Rakefile|LICENSE")
"""What a line naming a path must hold somewhere: most lines are not paths, told at once."""
_NOT_IN_PATH = re.compile(r"\s|://|[<>|?*]")
_WORD = re.compile(r"\w")
_WORDS = re.compile(r"[\w./\\`*-]+")
_COPIED = re.compile(r"\s*<[a-z]+(?: [a-z]+){2,8}>\s*(?::\s*)?")
"""`<path of the file>` copied from an answer format; not markup (`<b>`, `</file>`)."""


def named_in(line: str, known: frozenset[str]) -> str | None:
    """The one file the model was shown that the prose line above a fence names."""
    if not known:
        return None
    words = {w.strip(".,;:!?()[]'\"`*") for w in _WORDS.findall(line)}
    named = words & known
    return named.pop() if len(named) == 1 else None


def copied(line: str) -> bool:
    """A placeholder in words (`<path of the file>`, `<the whole new file>`): the model copied
    a format's slot instead of filling it. Three words at least, so markup is not one."""
    return bool(_COPIED.fullmatch(line))


def bare_path(line: str) -> str | None:
    """A fence's first line that is only a path (`calc.py`, `` `calc.py` ``, `**calc.py**:`),
    never a comment (`# calc.py` may be the file's own first line)."""
    text = line.strip()
    if text.lstrip("*_`'\"").startswith(("#", "//", "-")):
        return None
    return path_line(text)


def angled(line: str) -> str | None:
    """`<count.py>` on a fence's first line: the path, in the prompt's `<path of the file>`."""
    found = re.fullmatch(r"\s*<([^<>\s/][^<>\s]{0,254})>\s*", line)  # not `</file>`
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
    if not _MAYBE_PATH.search(line):
        return None
    text = _PATH_PREFIX.sub("", line.strip(), count=1).strip()
    text = text.strip("*_`'\"").rstrip(":").strip("*_`'\"").strip()
    if not text or len(text) > 255 or text.endswith("."):
        return None
    if _NOT_IN_PATH.search(text) or not _WORD.search(text):
        return None
    name = text.replace("\\", "/").rsplit("/", 1)[-1]
    if "." in name.strip(".") or "/" in text.replace("\\", "/") or name in EXTENSIONLESS:
        return text
    return None


EXTENSIONLESS = frozenset({"Makefile", "Dockerfile", "Procfile", "Gemfile", "Rakefile", "LICENSE"})
"""File names without a dot that a path line may still be."""

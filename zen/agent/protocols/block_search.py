"""The files a task points at when it names none: a cheap search by the task's words.

Each word found in a file counts log(n / files holding it), so a word every file has counts
for nothing. Code often says a thing once, as a named value (`AUDIT_FILE = DATA / "audit.log"`,
`DB_URL = os.environ["DATABASE_URL"]`), and uses the name everywhere else: a task about
"audit.log" is about the code that writes through `AUDIT_FILE`. So the search goes through one
such name: the files that use a name whose top-level assignment holds the task's words come
after the files the words are in. Read in a worker thread; every read is bounded.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from pathlib import Path

from zen.tools.files.regular import FileError, Target
from zen.tools.files.text import read_existing

SEARCHED = 3
"""Files the words find, at most; as many again may use a name they found."""
READ_LIMIT = 16_000
"""Bytes of a file searched."""
WORDS = 64
"""Distinct task words searched for, the first ones: a pasted log of 3,000 words made one
regular expression of 3,000 branches, 0.09 s a file, minutes over the walk."""
NAMES = 8
"""Names followed, at most: a word in many assignments is no lead."""
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_ASSIGNED = re.compile(
    r"^(?:export\s+)?(?:(?:const|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]{2,})\s*(?::[^=\n]*)?=(?!=)(.*)$",
    re.M,
)
"""A top-level assignment: Python's (annotated or not), or JavaScript's const/let/var."""
_COMMON = frozenset(
    {
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "into",
        "make",
        "add",
        "fix",
        "use",
        "are",
        "was",
        "not",
        "but",
        "all",
        "any",
        "can",
        "its",
        "have",
        "has",
        "def",
        "class",
        "return",
        "import",
        "file",
        "files",
        "code",
        "function",
        "test",
        "tests",
        "should",
        "when",
        "then",
        "also",
        "each",
        "some",
        "more",
        "than",
        "only",
        "them",
        "they",
        "their",
        "what",
        "which",
        "where",
        "will",
        "would",
    }
)

Files = list[tuple[Path, str]]


def searched(task: str, files: Files) -> list[Path]:
    """The few small text files the task's words point at, best first, then those using a
    name those files assign from the task's words."""
    found = (w for w in _WORD.findall(task) if w.lower() not in _COMMON)
    words = set(list(dict.fromkeys(found))[:WORDS])
    if not words:
        return []
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(words))) + r")\b")
    holding: dict[Path, set[str]] = {}
    for path, rel in files:
        hits = set(pattern.findall(_text(path, rel)))
        if hits:
            holding[path] = hits
    df = Counter(w for hits in holding.values() for w in hits)
    n = len(files)
    score = {p: sum(math.log((n + 1) / df[w]) for w in hits) for p, hits in holding.items()}
    ranked = sorted((p for p in score if score[p] > 0), key=lambda p: -score[p])[:SEARCHED]
    names = _assigned(ranked, files, pattern, words)
    return ranked + _using(names, files, set(ranked))


def _assigned(
    ranked: list[Path], files: Files, pattern: re.Pattern[str], words: set[str]
) -> list[str]:
    """Names the ranked files assign, at the top level, from a value holding a task word
    (not the task's own words: the search already found those)."""
    rels = dict(files)
    names: list[str] = []
    for path in ranked:
        for match in _ASSIGNED.finditer(_text(path, rels[path])):
            name = match.group(1)
            if pattern.search(match.group(2)) and name not in words and name not in names:
                names.append(name)
                if len(names) == NAMES:
                    return names
    return names


def _using(names: list[str], files: Files, skip: set[Path]) -> list[Path]:
    """Up to SEARCHED other files that use one of `names`, in the walk's order."""
    if not names:
        return []
    pattern = re.compile(r"\b(?:" + "|".join(map(re.escape, names)) + r")\b")
    found: list[Path] = []
    for path, rel in files:
        if path not in skip and pattern.search(_text(path, rel)):
            found.append(path)
            if len(found) >= SEARCHED:
                break
    return found


def _text(path: Path, rel: str) -> str:
    try:
        return read_existing(Target(path, rel), READ_LIMIT).decode("utf-8", "replace")
    except FileError:
        return ""

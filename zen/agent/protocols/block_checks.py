"""Whether a whole-file block is the whole file: a model that sends one function as "the
file" would delete code if the block were written as it is (placeholders such as
`# ... rest unchanged`: `zen.agent.edits.lazy`)."""

from __future__ import annotations

import re

from zen.agent.edits.pysource import renamed

_DEFINITION = re.compile(r"^(?:async\s+def|def|class|function|func|fn)\s+([A-Za-z_]\w*)", re.M)


def lost_definitions(old: str, new: str) -> list[str]:
    """Top-level functions and classes of the file that a whole-file block no longer names at
    all: a model that sends one function as "the file" would delete the others."""
    kept = set(re.findall(r"[A-Za-z_]\w*", new)) | set(renamed(old, new))
    return [name for name in dict.fromkeys(_DEFINITION.findall(old)) if name not in kept]

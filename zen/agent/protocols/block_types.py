"""The blocks an edit-block answer is read into (`block_parser`) and applied from
(`block_apply`): what each asks for, with nothing of how it was written."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Replace:
    """Replace `search` (copied from the file) with `replace` in `path`."""

    path: str
    search: str
    replace: str


@dataclass(frozen=True)
class WholeFile:
    """`path` should hold exactly `content` (a new file, or all of a small one; a Python
    file's snippet is merged by the applier). `content` may begin with a stray divider line
    (`=======`), which the applier drops unless the file holds such lines."""

    path: str
    content: str
    undivided: bool = False
    """Written as a SEARCH/REPLACE block with no `=======` line (a 1.5B model's way of
    writing a whole new file): applied only when it reads as the whole file (`block_apply`)."""


@dataclass(frozen=True)
class Command:
    """A shell command from a ```bash block; `quoted` when the answer holds prose too."""

    command: str
    quoted: bool = False


@dataclass(frozen=True)
class Malformed:
    """A block that cannot be applied as written; `problem` is what the model is told."""

    problem: str


Block = Replace | WholeFile | Command | Malformed

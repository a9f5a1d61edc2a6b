"""What read-file, write-file and edit-file share: confinement, text checks, safe writes, diffs.

Expected failures raise `FileError`; each tool turns it into `ToolResult.error` at its edge, so
the helpers stay plain functions and the messages stay in one place.
"""

from __future__ import annotations

import difflib
import os
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zen.stores.memo import AUTO
from zen.tools.workspace import PathError

if TYPE_CHECKING:
    from zen.tools.base import ToolContext

BINARY_PROBE = 8192
"""Bytes checked for a NUL: what git and grep look at to call a file binary."""
MEMO_CAP = 4000
"""Characters of content an auto-memo entry keeps: enough to recall a file, cheap to read back."""


class FileError(Exception):
    """An expected failure whose message the model reads and acts on."""


@dataclass(frozen=True)
class Target:
    """A confined file: its real path, and the path as the user and model see it."""

    path: Path
    shown: str


def target(ctx: ToolContext, path: str) -> Target:
    """Resolve `path` inside the workspace, or explain why it cannot be used."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError as exc:
        raise FileError(str(exc)) from None
    return Target(real, ctx.workspace.show(real))


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_PROBE]


def require_file(t: Target) -> None:
    """Missing files and folders are errors that say so."""
    if not t.path.exists():
        raise FileError(f"{t.shown} does not exist")
    if t.path.is_dir():
        raise FileError(f"{t.shown} is a directory, not a file")


def read_existing(t: Target) -> bytes:
    """The bytes of an existing regular file."""
    require_file(t)
    try:
        return t.path.read_bytes()
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None


def decode_strict(data: bytes, shown: str) -> str:
    """UTF-8 text for an edit; anything else is refused rather than silently corrupted."""
    if is_binary(data):
        raise FileError(f"{shown} is a binary file; edit-file only changes text files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileError(
            f"{shown} is not UTF-8 text; edit-file will not change it (that could corrupt it)"
        ) from None


def decode_loose(data: bytes) -> str:
    """Text for display and diffs, where a replacement character is harmless."""
    return data.decode("utf-8", errors="replace")


def newline_of(text: str) -> str:
    """The file's newline style: CRLF when most of its line ends are CRLF, else LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def with_newlines(text: str, newline: str) -> str:
    """`text` with every line end written as `newline`."""
    text = text.replace("\r\n", "\n")
    return text.replace("\n", newline) if newline != "\n" else text


def count_lines(text: str) -> int:
    """Lines as `wc -l` counts them, plus a last line without a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def atomic_write(path: Path, data: bytes, shown: str) -> None:
    """Write via a temp file in the same folder and os.replace, keeping an existing file's mode.

    A crash or a full disk leaves either the old file or the new one, never half of each.
    """
    try:
        mode = _mode(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp, fd = _open_temp(path, 0o666 if mode is None else mode)
    except OSError as exc:
        raise FileError(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)  # os.open applied the umask; an existing file's mode wins
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise FileError(f"cannot write {shown}: {exc.strerror or exc}") from None
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _mode(path: Path) -> int | None:
    try:
        return path.stat().st_mode & 0o7777
    except FileNotFoundError:
        return None


def _open_temp(path: Path, mode: int) -> tuple[Path, int]:
    """A new hidden file next to `path`, created with `mode` under the umask like a normal file."""
    while True:
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.zen-tmp")
        try:
            return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue


@dataclass(frozen=True)
class Diff:
    text: str
    added: int
    removed: int

    @property
    def stat(self) -> str:
        return f"+{self.added} -{self.removed}"


def unified_diff(before: str, after: str, shown: str, context: int = 3) -> Diff:
    """A git-style diff of two texts, newline style ignored, with its `+N -M` counts."""
    lines = list(
        difflib.unified_diff(_split(before), _split(after), f"a/{shown}", f"b/{shown}", n=context)
    )
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return Diff(text, added, removed)


def _split(text: str) -> list[str]:
    """Lines with their `\\n`, split on `\\n` only (str.splitlines also splits on \\f, \\x1c…)."""
    parts = text.replace("\r\n", "\n").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def remember(ctx: ToolContext, shown: str, content: str, summary: str) -> None:
    """Auto-memo: record what this agent just saw or did to a file under `file:<path>`."""
    if len(content) > MEMO_CAP:
        content = content[:MEMO_CAP] + f"\n… [{len(content) - MEMO_CAP} more chars]"
    ctx.memo.write(f"file:{shown}", content, summary, AUTO)


@asynccontextmanager
async def path_lock(ctx: ToolContext, path: str) -> AsyncIterator[None]:
    """Hold the session-wide lock of `path` so agents writing one file take turns.

    Check, write and re-stamp happen under it, so no agent writes between another's
    stale-read check and its write. A path that does not resolve takes no lock; the tool
    reports it.
    """
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        yield
        return
    async with ctx.workspace.lock(real):
        yield

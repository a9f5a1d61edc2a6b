"""Confine file tools to the workspace (and any extra roots the user allowed)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path

from zen.base.paths import expand_user
from zen.base.text import REPLACEMENT, encodable


def _undo_replacement(candidate: Path) -> Path:
    """The real path whose name showed as `candidate` (U+FFFD for each undecodable byte),
    matched one part at a time; unchanged when no single entry matches."""
    parts = candidate.parts
    current = Path(parts[0])
    for part in parts[1:]:
        if REPLACEMENT in part and not (current / part).exists():
            try:
                names = [n for n in os.listdir(current) if encodable(n) == part]
            except OSError:
                return candidate
            if len(names) != 1:
                return candidate
            part = names[0]
        current = current / part
    return current


RESERVED = frozenset(
    ["CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"]
    + [f"{kind}{n}" for kind in ("COM", "LPT") for n in [*"123456789", "¹", "²", "³"]]
)
"""Windows device names: `CON`, `nul.txt` or `src/aux.py` open a device, never a file."""


def reserved_part(path: str) -> str | None:
    """The first part of `path` that is a Windows device name (any case, any extension)."""
    for part in path.replace("\\", "/").split("/"):
        stem = part.split(".", 1)[0].rstrip(" ")
        if stem.upper() in RESERVED:
            return part
    return None


def without_verbatim_prefix(path: str) -> str:
    """`\\\\?\\C:\\x` → `C:\\x`, `\\\\?\\UNC\\host\\share` → `\\\\host\\share`: Windows'
    long-path spelling of the same path, which would otherwise never match the workspace root."""
    for prefix, replacement in (("\\\\?\\UNC\\", "\\\\"), ("\\\\?\\", ""), ("//?/", "")):
        if path.startswith(prefix):
            return replacement + path[len(prefix) :]
    return path


class PathError(ValueError):
    """A path a tool cannot use; the message says why, for the model to read."""


class OutsideWorkspace(PathError):
    pass


@dataclass
class Workspace:
    root: Path
    extra_roots: list[Path] = field(default_factory=list)
    _locks: dict[Path, asyncio.Lock] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.root = self.root.resolve()
        self.extra_roots = [expand_user(p).resolve() for p in self.extra_roots]

    def resolve(self, path: str) -> Path:
        """The real path for `path`; PathError (OutsideWorkspace) when it cannot be used.

        Symlinks are resolved first, so a link inside the workspace that points out is refused.
        """
        if not path or not path.strip():
            raise PathError("empty path")
        if os.name == "nt":
            path = without_verbatim_prefix(path)
            device = reserved_part(path)
            if device:
                raise PathError(
                    f"{path}: {device!r} is a reserved device name on Windows (CON, NUL, AUX, "
                    "PRN, COM1-9, LPT1-9, with any extension); no file can have it, choose "
                    "another name"
                )
        try:
            candidate = expand_user(path)
            if not candidate.is_absolute():
                candidate = self.root / candidate
            if REPLACEMENT in path and not candidate.exists():
                candidate = _undo_replacement(candidate)
            real = candidate.resolve()
        except (ValueError, OSError, RuntimeError) as exc:  # a NUL byte, a symlink loop
            raise PathError(f"invalid path {path!r}: {exc}") from None
        for root in (self.root, *self.extra_roots):
            if real == root or real.is_relative_to(root):
                return real
        raise OutsideWorkspace(f"{path} is outside the workspace {self.root}")

    def show(self, path: Path) -> str:
        """A path as the user and model should see it: relative to the workspace when inside.

        A name that is not valid UTF-8 (`caf\\xe9.txt`) shows its bad bytes as U+FFFD; such
        text can still be sent to the model, and `resolve` maps it back to the real name.
        """
        try:
            shown = path.relative_to(self.root).as_posix() or "."
        except ValueError:
            shown = str(path)
        return encodable(shown)

    def relative_parts(self, path: Path) -> tuple[str, ...]:
        """The parts of a resolved path below the root (or extra root) that holds it."""
        for root in (self.root, *self.extra_roots):
            if path == root or path.is_relative_to(root):
                return path.relative_to(root).parts
        return path.parts

    def lock(self, path: Path) -> asyncio.Lock:
        """One lock per real path: agents writing the same file concurrently take turns."""
        return self._locks.setdefault(path, asyncio.Lock())

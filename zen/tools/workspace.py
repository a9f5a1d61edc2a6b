"""Confine file tools to the workspace (and any extra roots the user allowed)."""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass, field
from pathlib import Path


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
        self.extra_roots = [p.expanduser().resolve() for p in self.extra_roots]

    def resolve(self, path: str) -> Path:
        """The real path for `path`; PathError (OutsideWorkspace) when it cannot be used.

        Symlinks are resolved first, so a link inside the workspace that points out is refused.
        """
        if not path or not path.strip():
            raise PathError("empty path")
        try:
            candidate = Path(os.path.expanduser(path))
            if not candidate.is_absolute():
                candidate = self.root / candidate
            real = candidate.resolve()
        except (ValueError, OSError, RuntimeError) as exc:  # a NUL byte, a symlink loop
            raise PathError(f"invalid path {path!r}: {exc}") from None
        for root in (self.root, *self.extra_roots):
            if real == root or real.is_relative_to(root):
                return real
        raise OutsideWorkspace(f"{path} is outside the workspace {self.root}")

    def show(self, path: Path) -> str:
        """A path as the user and model should see it: relative to the workspace when inside."""
        try:
            return path.relative_to(self.root).as_posix() or "."
        except ValueError:
            return str(path)

    def relative_parts(self, path: Path) -> tuple[str, ...]:
        """The parts of a resolved path below the root (or extra root) that holds it."""
        for root in (self.root, *self.extra_roots):
            if path == root or path.is_relative_to(root):
                return path.relative_to(root).parts
        return path.parts

    def lock(self, path: Path) -> asyncio.Lock:
        """One lock per real path: agents writing the same file concurrently take turns."""
        return self._locks.setdefault(path, asyncio.Lock())

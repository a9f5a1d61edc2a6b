"""The composition root: the one place that wires config, workspace, MCP and git into a Session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from zen.agent.session import Session
from zen.config import Config
from zen.tools.workspace import Workspace


def make_workspace(config: Config, root: Path) -> Workspace:
    return Workspace(root, [Path(p) for p in config.allowed_roots])


@asynccontextmanager
async def open_session(config: Config, root: Path) -> AsyncIterator[Session]:
    """A session with its MCP servers started, and stopped again on the way out."""
    session = Session(config, make_workspace(config, root))
    # Fail early on a missing API key, before any server starts.
    session.settings(session.role)
    yield session

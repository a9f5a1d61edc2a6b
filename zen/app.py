"""The composition root: the one place that wires config, workspace, MCP and git into a Session.

Both front-ends (`zen -p` and the shell) open their session here, so MCP servers start and
stop the same way for both, and a missing API key is reported before anything starts.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from zen.agent import work_modes
from zen.agent.git_facts import git_facts
from zen.agent.session import Session
from zen.base.redaction import remember, scrub
from zen.base.warn import Warn, warn_stderr
from zen.mcp.servers import collect_servers, mcp_enabled
from zen.settings.extensions import Extension, load_skills
from zen.settings.model_roles import resolve_model
from zen.settings.schema import DUAL_ROLES, Config, ConfigError
from zen.stores.session_db import SessionError
from zen.stores.session_rows import SessionInfo
from zen.stores.sessions import SessionStore
from zen.tools import temp_journal
from zen.tools.catalog import builtin_tools
from zen.tools.hooks import Hook, load_hooks, unmatched
from zen.tools.workspace import Workspace

__all__ = ["SessionError", "check_startup", "open_session"]


def make_workspace(config: Config, root: Path) -> Workspace:
    return Workspace(root, [Path(p) for p in config.allowed_roots])


def start_mcp(config: Config, root: Path, warn: Warn) -> Any:
    """An McpManager starting every configured server in the background, or None when there
    are none. Failures and oversized tool lists are warned about once start-up is over.

    `mcp` costs ~0.8 s to import, so nothing touches it unless a server is configured, and
    then only in a worker thread.
    """
    if not mcp_enabled(config):
        return None
    servers = collect_servers(config, root, warn)
    if not servers:
        return None
    from zen.mcp.manager import McpManager, default_log_path

    def report(manager: McpManager) -> None:
        for status in manager.status():
            if status.state != "running":
                warn(scrub(f"MCP server {status.name} is not available: {status.error}"))
        for line in manager.warnings():
            warn(scrub(line))

    manager = McpManager(servers, root, default_log_path(), config.permissions)
    manager.begin(done=report)
    return manager


def open_store(warn: Warn) -> SessionStore | None:
    """The session store; a store that cannot open is a warning, the run goes on unsaved."""
    try:
        return SessionStore()
    except SessionError as e:
        warn(f"{e}; this session will not be saved")
        return None


def find_session(store: SessionStore, root: Path, ref: str | None) -> SessionInfo:
    """`ref` (an id or prefix), or the workspace's latest session when it is None."""
    if ref is not None:
        return store.get(ref)
    latest = store.latest(str(root))
    if latest is None:
        raise SessionError(f"no earlier session in {root} to continue")
    return latest


def open_checkpoints(config: Config, root: Path, warn: Warn, *, home: bool = False) -> Any:
    """The workspace's CheckpointStore, or None when checkpoints are off or impossible
    (`home`: the user agreed to snapshot their home folder)."""
    settings = config.checkpoints
    if settings.enabled == "off":
        return None
    from zen.checkpoints import scope
    from zen.checkpoints.safe_git import has_git
    from zen.checkpoints.store import CheckpointStore

    why = scope.refusal(root) or ("" if home else scope.home_refusal(root))
    if why:
        warn(why)
        return None

    copies = not has_git()
    if copies:
        warn(
            "no git executable: checkpoints keep copies of the files zen's own tools change; "
            "changes made through bash are not covered by /undo or zen rewind"
        )
    return CheckpointStore(
        root,
        max_file_size=settings.max_file_size,
        tool_file_size=config.max_edit_bytes,
        keep_days=settings.keep_days,
        max_mb=settings.max_mb,
        copies=copies,
    )


async def _new_session(
    config: Config,
    workspace: Workspace,
    store: SessionStore | None,
    mcp: Any,
    warn: Warn,
    home: bool,
) -> Session:
    """The session, with the folder's extensions, git facts and snapshots (when on)."""
    skills, hooks = extensions(config, workspace.root, warn)
    return Session(
        config,
        workspace,
        git_facts=await git_facts(workspace.root, config.features.git),
        hooks=hooks,
        skills=skills,
        warn=warn,
        store=store,
        mcp=mcp,
        checkpoints=open_checkpoints(config, workspace.root, warn, home=home),
    )


def extensions(config: Config, root: Path, warn: Warn) -> tuple[list[Extension], list[Hook]]:
    """The folder's skills (the `skill` tool serves them) and hooks; each problem with them,
    and each hook that matches no tool, is warned once. MCP tools join later."""
    trusted = config.project_trusted
    skills = load_skills(root, trusted)
    hooks, problems = load_hooks(config.hooks, root, trusted)
    for line in problems + unmatched(hooks, list(builtin_tools().values())):
        warn(line)
    return skills, hooks


@asynccontextmanager
async def _snapshots_kept(snapshots: Any) -> AsyncIterator[None]:
    """While the session is open, its snapshots are warmed and pruned in the background
    (a first snapshot of a big workspace takes seconds; pruning runs at most daily); both
    are cancelled if zen ends first, and the store is closed."""
    if snapshots is None:
        yield
        return
    pruning = asyncio.ensure_future(_warm_and_prune(snapshots))
    try:
        yield
    finally:
        pruning.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await pruning
        snapshots.close()


async def _warm_and_prune(store: Any) -> None:
    """In the background: a first snapshot (so the first turn's is cheap) and the daily
    prune; a failure only means the turn does the work, or the prune runs another day."""
    from zen.checkpoints.safe_git import CheckpointError

    with contextlib.suppress(CheckpointError, OSError):
        await store.repo.snapshot()
        if store.prune_due():
            await store.prune()


def check_startup(config: Config) -> None:
    """What makes a config unusable before anything starts (ConfigError): an unknown work
    mode, a role without its API key. The shell runs it before its prompt."""
    if config.work_mode:
        try:
            work_modes.mode_prompt(config.work_mode)
        except ValueError as e:
            raise ConfigError(f"work_mode: {e}") from None
    for role in DUAL_ROLES if config.agent_mode == "dual" else (None,):
        resolve_model(config, role)  # a missing API key fails here, before servers start


@asynccontextmanager
async def open_session(
    config: Config,
    root: Path,
    *,
    warn: Warn = warn_stderr,
    resume: str | None = None,
    continue_last: bool = False,
    keep: frozenset[str] = frozenset(),
    snapshot_home: bool = False,
) -> AsyncIterator[Session]:
    """A session with its MCP servers starting and git facts gathered; all stopped on exit.
    The session takes the servers' tools when its first conversation starts.

    `continue_last` continues the workspace's latest session, `resume` the one with that id
    (`keep`: settings the user gave for this run, which the saved ones do not replace). A
    session that cannot be found raises SessionError before anything starts.
    `snapshot_home`: the user agreed to checkpoints of their home folder (else none there).
    """
    remember(*config.known_keys())  # scrubbed from errors, logs and saved sessions from now on
    workspace = make_workspace(config, root)
    temp_journal.sweep()  # temp files a killed zen left in a workspace, exactly those
    check_startup(config)
    wanted = resume is not None or continue_last
    store = SessionStore() if wanted else open_store(warn)
    found = find_session(store, workspace.root, resume) if wanted and store else None
    try:
        manager = start_mcp(config, workspace.root, warn)
        try:
            session = await _new_session(config, workspace, store, manager, warn, snapshot_home)
            if found is not None:
                session.resume(found, keep=keep)
            else:
                session.memo_keeper.offer()
            try:
                async with _snapshots_kept(session.checkpoints):
                    yield session
            finally:
                session.record.close()
                await session.aclose()
        finally:
            if manager is not None:
                await manager.stop()
    finally:
        if store is not None:
            store.close()

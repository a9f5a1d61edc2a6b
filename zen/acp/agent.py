"""The ACP agent: sessions, prompts, modes and cancellation mapped onto zen's Session.

Every request is checked before it touches anything: an unknown session, a relative or
missing `cwd`, an empty prompt or a second prompt while one runs get a JSON-RPC error and
nothing else happens. Whatever fails inside a run (the model's API, a config problem) is one
error line for the editor, never a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from acp import PROTOCOL_VERSION, RequestError
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionModeResponse,
)

from zen import __version__
from zen.acp.client_files import ClientFiles, client_file_tools
from zen.acp.errors import bad_params, failure
from zen.acp.hosts import Host
from zen.acp.modes import mode_state, switch_mode
from zen.acp.permission import EditorApprover
from zen.acp.prompt_blocks import prompt_text
from zen.acp.replay import replay
from zen.acp.session_config import session_config, with_client_servers, workspace_root
from zen.acp.updates import Updates
from zen.agent.run_guards import RunLimit
from zen.agent.session import Session
from zen.llm.types import LLMError
from zen.settings.schema import ConfigError
from zen.stores.session_db import SessionError

log = logging.getLogger("zen.acp")

STOP = {
    "done": "end_turn",
    "max_turns": "max_turn_requests",
    "length": "max_tokens",
    "runaway": "max_tokens",
}
MAX_PROMPT_CHARS = 2_000_000
"""A prompt larger than this is refused: no model takes it, and it must not exhaust memory."""


class ZenAgent:
    """zen behind the ACP SDK's `Agent` interface (one per connection)."""

    def __init__(self, overrides: dict[str, Any] | None = None) -> None:
        self.overrides = dict(overrides or {})
        """The `zen acp` flags (model, provider...): the command line layer of every config."""
        self.conn: Any = None
        self.hosts: dict[str, Host] = {}
        self.client_fs = (False, False)

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    # -- handshake --------------------------------------------------------------------------

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: Any = None,
        client_info: Any = None,
        **kwargs: Any,
    ) -> InitializeResponse:
        fs = getattr(client_capabilities, "fs", None)
        self.client_fs = (
            bool(getattr(fs, "read_text_file", False)),
            bool(getattr(fs, "write_text_file", False)),
        )
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=True
                ),
                mcp_capabilities=McpCapabilities(http=True, sse=False),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="zen", title="zen", version=__version__),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        raise bad_params("zen needs no authentication (it reads its API key from its config)")

    # -- sessions ---------------------------------------------------------------------------

    async def new_session(
        self,
        cwd: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> NewSessionResponse:
        host = await self._open(cwd, mcp_servers or [])
        return NewSessionResponse(session_id=host.id, modes=mode_state(host.session))

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[Any] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: Any,
    ) -> LoadSessionResponse:
        if session_id in self.hosts:
            raise bad_params(f"session {session_id} is already open")
        host = await self._open(cwd, mcp_servers or [], resume=session_id)
        if host.id != session_id:  # an id prefix found it: the client must use the whole id
            self.hosts.pop(host.id, None)
            await host.close()
            raise bad_params(f"no session {session_id!r}; session/list gives the whole ids")
        await replay(self.conn, host.id, host.session)
        return LoadSessionResponse(modes=mode_state(host.session))

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: Any
    ) -> ListSessionsResponse:
        from zen.stores.sessions import SessionStore

        root = str(workspace_root(cwd)) if cwd else None
        try:
            store = SessionStore()
        except SessionError as e:
            raise failure(str(e)) from None
        try:
            found = store.recent(root, limit=100)
        finally:
            store.close()
        from datetime import datetime, timezone

        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id,
                    cwd=info.workspace,
                    title=info.title or None,
                    updated_at=datetime.fromtimestamp(info.updated, timezone.utc).isoformat(),
                )
                for info in found
                if info.turns
            ]
        )

    async def _open(self, cwd: str, servers: list[Any], resume: str | None = None) -> Host:
        root = workspace_root(cwd)
        notices: list[str] = []
        config = session_config(root, self.overrides, notices)
        config = with_client_servers(config, servers, notices)
        host = Host(id="", root=root, notices=notices)
        try:
            session = await host.open(config, resume=resume)
        except (SessionError, ConfigError) as e:
            raise failure(str(e)) from None
        except Exception as e:
            raise failure(f"zen could not open the session: {type(e).__name__}: {e}") from None
        sid = session.id if resume is not None else session.open_record()
        host.id = sid or uuid.uuid4().hex
        reads, writes = self.client_fs
        if reads or writes:  # file tools go through the editor; the guards stay zen's
            files = ClientFiles(self.conn, host.id, reads, writes)
            session.add_tools(client_file_tools(files))
        self.hosts[host.id] = host
        return host

    def _host(self, session_id: str) -> Host:
        host = self.hosts.get(session_id)
        if host is None or host.session is None:
            raise bad_params(f"no session {session_id!r} (session/new opens one)")
        return host

    # -- modes ------------------------------------------------------------------------------

    async def set_session_mode(
        self, mode_id: str, session_id: str, **kwargs: Any
    ) -> SetSessionModeResponse:
        switch_mode(self._host(session_id).session, mode_id)
        return SetSessionModeResponse()

    # -- prompts ----------------------------------------------------------------------------

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        host = self._host(session_id)
        task = _accepted_task(host, prompt)
        session = host.session
        updates = Updates(self.conn, session_id, session)
        for notice in host.notices:
            updates.message(f"zen: warning: {notice}\n\n")
        host.notices.clear()
        first = not session.history
        approver = EditorApprover(self.conn, session_id, session, updates)
        host.cancelled = False
        host.running = run = asyncio.ensure_future(session.run(task, updates, approver))
        stop = "end_turn"
        try:
            if first:
                _title_session(session, task)
            result = await run
            stop = STOP.get(result.stop, "end_turn")
        except asyncio.CancelledError:
            if not host.cancelled:
                run.cancel()
                raise
            stop = "cancelled"
        except (LLMError, ConfigError, RunLimit) as e:
            raise await _run_failed(updates, str(e)) from None
        except Exception as e:  # a bug in zen: one line for the editor, the log has the rest
            log.exception("zen acp: the run failed")
            raise await _run_failed(updates, f"internal error: {type(e).__name__}: {e}") from None
        finally:
            host.running = None
        updates.close_open_calls("cancelled" if stop == "cancelled" else "not run")
        await updates.drain()
        return PromptResponse(stop_reason=stop)  # type: ignore[arg-type]

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        host = self.hosts.get(session_id)
        if host is not None and host.running is not None and not host.running.done():
            host.cancelled = True
            host.running.cancel()

    async def close_all(self) -> None:
        hosts, self.hosts = list(self.hosts.values()), {}
        for host in hosts:
            if host.running is not None:
                host.cancelled = True
            await host.close()

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(f"_{method}")

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def _accepted_task(host: Host, prompt: list[Any]) -> str:
    """The prompt as the task's text; refused while a run is going or when empty or too big."""
    if host.running is not None:
        raise RequestError.invalid_request(
            {"message": "a prompt is already running in this session; cancel it first"}
        )
    task = prompt_text(prompt)
    if not task.strip():
        raise bad_params("the prompt is empty")
    if len(task) > MAX_PROMPT_CHARS:
        raise bad_params(f"the prompt is larger than {MAX_PROMPT_CHARS:,} characters")
    return task


def _title_session(session: Session, task: str) -> None:
    """A saved session is titled after its first prompt; failing to is no reason to stop."""
    try:
        session.title(task)
    except Exception as e:
        log.warning("zen acp: could not title the session: %s", e)


async def _run_failed(updates: Updates, message: str) -> RequestError:
    """The editor's open tool calls closed, and the error the prompt request ends with."""
    updates.close_open_calls("not finished: the run failed")
    await updates.drain()
    return failure(message)

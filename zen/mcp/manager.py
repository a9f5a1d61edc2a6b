"""Start every configured MCP server at once, hand their tools to zen, stop them cleanly.

Servers start concurrently, each under its own deadline; one that fails is recorded with a
one-line reason and the others carry on. While a manager runs, server stderr and the SDK's
loggers go to a log file, never to the terminal.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import anyio
import anyio.to_thread

from zen.base.redaction import remember
from zen.mcp.connection import Connection
from zen.mcp.failures import one_line, sdk_problem
from zen.mcp.log_route import LogRoute, default_log_path
from zen.mcp.servers import collect_servers, mcp_enabled
from zen.mcp.status import ServerStatus, format_status
from zen.mcp.stderr import clean_line
from zen.mcp.tool import McpTool, mcp_level, tool_name
from zen.settings.schema import Config, McpServer, PermissionLevel
from zen.tools.base import Tool

log = logging.getLogger("zen.mcp")
__all__ = ["McpManager", "ServerStatus", "default_log_path", "format_status", "mcp_list"]


class McpManager:
    def __init__(
        self,
        servers: Mapping[str, McpServer],
        workspace: Path,
        log_path: Path,
        permissions: Mapping[str, PermissionLevel] | None = None,
    ) -> None:
        self._connections = {
            name: Connection(name, spec, workspace) for name, spec in servers.items()
        }
        for spec in servers.values():  # never logged: a server printing its env is scrubbed
            remember(*spec.env.values(), *spec.headers.values())
        self._log_path = log_path
        self._permissions = dict(permissions or {})
        self._tools: list[McpTool] = []
        self._logs: LogRoute | None = None
        self._starting: asyncio.Task[None] | None = None

    async def start(self, timeout: float | None = None) -> None:
        """Start every server concurrently. A server's own `start_timeout`, when its config
        sets one, beats `timeout`; without either, the McpServer default applies."""
        if self._logs is None:
            self._logs = LogRoute(self._log_path)
        # The SDK costs ~0.8 s to import: in a thread, so a prompt drawn meanwhile stays live.
        began = time.monotonic()
        await anyio.to_thread.run_sync(sdk_problem)  # each server's check says it, if any
        log.info("MCP SDK ready after %.2fs", time.monotonic() - began)
        await asyncio.gather(
            *(conn.start(_limit(conn.spec, timeout)) for conn in self._connections.values())
        )
        self._tools = self._build_tools()

    def begin(
        self, timeout: float | None = None, done: Callable[[McpManager], None] | None = None
    ) -> None:
        """Start every server in the background (`ready` waits for it); `done` runs once
        they all have started or failed. Start-up is off the critical path: the shell's
        prompt and everything before the first model request go on meanwhile."""
        self._starting = asyncio.create_task(self._start_then(timeout, done), name="mcp start")

    async def _start_then(
        self, timeout: float | None, done: Callable[[McpManager], None] | None
    ) -> None:
        try:
            await self.start(timeout)
        except Exception as exc:  # a bug must not leave servers "starting" without a word
            log.error("MCP start-up failed", exc_info=exc)
            for conn in self._connections.values():
                if conn.state in ("stopped", "starting"):
                    conn.state, conn.error = "failed", f"start-up failed: {one_line(exc)}"
        if done is not None:
            done(self)

    def starting(self) -> list[str]:
        """The servers still starting (for the live line and `/mcp`)."""
        if self._starting is None or self._starting.done():
            return []
        return [c.name for c in self._connections.values() if c.state in ("starting", "stopped")]

    async def ready(self, waiting: Callable[[str, float, float], None] | None = None) -> None:
        """Return once background start-up is over; meanwhile `waiting(what, elapsed, limit)`
        about once a second. Cancelling the waiter never cancels the start-up."""
        task = self._starting
        if task is None:
            return
        loop = asyncio.get_running_loop()
        began = loop.time()
        limit = max((c._limit for c in self._connections.values()), default=0.0)
        while not task.done():
            await asyncio.wait({task}, timeout=1.0)
            names = self.starting()
            if names and waiting is not None:
                what = f"MCP server{'s' if len(names) > 1 else ''} {', '.join(names)} to start"
                waiting(what, loop.time() - began, limit)
        if not task.cancelled() and task.exception() is not None:
            log.error("MCP start-up failed", exc_info=task.exception())

    async def stop(self) -> None:
        """Shut every server down (stdio processes included) and release the log file."""
        try:
            if self._starting is not None and not self._starting.done():
                self._starting.cancel()  # a server started after this would outlive zen
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await self._starting
            await asyncio.gather(*(conn.stop() for conn in self._connections.values()))
        finally:
            if self._logs is not None:
                self._logs.close()
                self._logs = None

    @property
    def log_path(self) -> Path:
        return self._log_path

    def log_tail(self, count: int = 30) -> list[str]:
        """The last lines of the MCP log (server stderr and log notifications), made safe
        for a terminal: `/mcp log`."""
        try:
            with self._log_path.open("rb") as file:
                file.seek(0, 2)
                size = file.tell()
                file.seek(max(0, size - _TAIL_BYTES))
                data = file.read()
        except OSError:
            return []
        lines = data.splitlines()[-count:] if count > 0 else []
        return [clean_line(line) for line in lines]

    def tools(self) -> list[Tool]:
        """The tools of the servers that were running after `start`, in config order."""
        return list(self._tools)

    def status(self) -> list[ServerStatus]:
        return [
            ServerStatus(
                name=conn.name,
                kind=conn.kind,
                state=conn.state,
                error=conn.error,
                tools=[t.name for t in self._tools if t.server == conn.name]
                if conn.state == "running"
                else [],
                restarts=conn.restarts,
                notes=_notes(conn),
            )
            for conn in self._connections.values()
        ]

    def warnings(self) -> list[str]:
        """One line per problem worth a user's attention after `start`: listings cut short,
        and MCP tools that make every request large (with the figures)."""
        lines = [
            f"MCP server {status.name}: {note}"
            for status in self.status()
            for note in status.notes
            if not note.endswith(MCP_TASKS_NOTE)
        ]
        sizes = {
            conn.name: sum(_schema_chars(t) for t in self._tools if t.server == conn.name)
            for conn in self._connections.values()
        }
        total = sum(sizes.values())
        if len(self._tools) > WARN_TOOLS or total > WARN_SCHEMA_CHARS:
            biggest = sorted(sizes.items(), key=lambda item: -item[1])[:3]
            parts = ", ".join(
                f"{name} {sum(t.server == name for t in self._tools)} tools / {chars:,} chars"
                for name, chars in biggest
                if chars
            )
            lines.append(
                f"MCP tools add {len(self._tools)} tools and {total:,} characters of schemas "
                f"(~{total // 4:,} tokens) to every request ({parts}); remove servers you do "
                "not need"
            )
        return lines

    async def restart(self, name: str | None = None) -> list[str]:
        """`/mcp restart [name]`: restart one server (or all); returns what changed. The tools
        offered to the model stay those of the first start until a new session."""
        targets = [c for c in self._connections.values() if name in (None, c.name)]
        if not targets:
            return [f"no MCP server named {name!r}"]
        before = {c.name: [t.name for t in c.tools] for c in targets}
        await asyncio.gather(*(c.restart() for c in targets))
        self._tools = self._build_tools()
        lines = []
        for conn in targets:
            line = f"{conn.name}: {conn.state}" + (f": {conn.error}" if conn.error else "")
            if conn.state == "running" and [t.name for t in conn.tools] != before[conn.name]:
                line += " (its tools changed: the new list comes with the next conversation)"
            lines.append(line)
        return lines

    def _build_tools(self) -> list[McpTool]:
        taken: set[str] = set()
        tools: list[McpTool] = []
        for conn in self._connections.values():
            if conn.state != "running":
                continue
            for remote in conn.tools:
                name = tool_name(conn.name, remote.name, taken)
                approved = remote.name in conn.spec.auto_approve
                level = mcp_level(self._permissions, conn.name, name, approved)
                tools.append(McpTool(name, remote, conn, level))
        return tools


_TAIL_BYTES = 256 * 1024
WARN_TOOLS = 100
WARN_SCHEMA_CHARS = 60_000
"""Above either, zen warns: every request repeats every tool's schema."""
MCP_TASKS_NOTE = "need MCP Tasks, which zen does not support; hidden"


def _notes(conn: Connection) -> list[str]:
    hidden = [f"{conn.hidden} tool(s) {MCP_TASKS_NOTE}"] if conn.hidden else []
    return [*conn.notes, *hidden]


def _schema_chars(tool: McpTool) -> int:
    return len(json.dumps(tool.schema(), ensure_ascii=False))


def _limit(spec: McpServer, timeout: float | None) -> float:
    if timeout is None or "start_timeout" in spec.model_fields_set:
        return spec.start_timeout
    return timeout


async def mcp_list(
    config: Config, workspace: Path, log_path: Path | None = None, ignored: Sequence[str] = ()
) -> tuple[str, bool]:
    """Start the configured servers, describe them, stop them: `zen mcp list`. Also says
    whether every server started (the exit status). `ignored`: the folder's own settings
    files left out because it is not trusted (so "none configured" is not said of them)."""
    if not mcp_enabled(config):
        return "MCP is off (features.mcp: off).", True
    warnings: list[str] = []
    servers = collect_servers(config, workspace, warn=warnings.append)
    notes = [f"warning: {text}" for text in warnings]
    if not servers:
        text = "No MCP servers configured (config mcp_servers, or .mcp.json)."
        if ignored:
            text = (
                f"No MCP servers in use: this folder's own settings ({', '.join(ignored)}) are "
                "ignored until you trust it (`zen trust`, or --trust for this run)."
            )
        return "\n".join([*notes, text]), True
    log_path = log_path or default_log_path()
    manager = McpManager(servers, workspace, log_path, config.permissions)
    try:
        await manager.start()
        text = format_status(manager.status())
        notes += [f"warning: {line}" for line in manager.warnings()]
    finally:
        await manager.stop()
    failed = any(status.state == "failed" for status in manager.status())
    tail = [f"Server logs: {log_path}"] if failed else []
    return "\n".join([*notes, text, *tail]), not failed

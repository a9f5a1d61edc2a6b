"""One MCP server: a supervisor task holds its SDK session open; tool calls go through it.

The SDK's context managers must be entered and exited by the same task, so each start of a
server is one long-lived supervisor task: it connects, lists the tools, publishes the client
and waits for a stop signal. Calls come from the agents' tasks and use the published client.
A call that finds the server dead restarts it once and retries once; if that fails too the
server is down for the rest of the session. `mcp` is imported only in here, inside functions.
"""

from __future__ import annotations

import asyncio
import logging
import math
import os
import threading
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import anyio
import anyio.to_thread

from zen.config import McpServer
from zen.mcp.servers import server_kind
from zen.mcp.tool import RemoteTool, render_result
from zen.tools.base import ToolResult

State = Literal["stopped", "starting", "running", "failed"]

log = logging.getLogger("zen.mcp")

CALL_TIMEOUT = 600.0
"""Seconds one tool call may take before zen gives up on it (the server stays up)."""
HTTP_TIMEOUT = 30.0
HTTP_READ_TIMEOUT = 300.0
_LIST_PAGES = 100


@dataclass(eq=False)
class _Run:
    """One start of the server: its supervisor task and the signals between them."""

    limit: float
    deadline: float
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    halting: bool = False
    """Set by an intended shutdown, whose teardown errors mean nothing."""
    task: asyncio.Task[None] | None = None
    scope: anyio.CancelScope | None = None
    stderr: _StderrPump | None = None
    http_status: str | None = None
    """The last HTTP error status, which the SDK's own error message leaves out."""


class Connection:
    """The lifecycle of one configured server, and the `Caller` its tools call through."""

    def __init__(
        self, name: str, spec: McpServer, workspace: Path, call_timeout: float = CALL_TIMEOUT
    ) -> None:
        self.name = name
        self.spec = spec
        self.kind = server_kind(spec)
        self.workspace = workspace
        self.call_timeout = call_timeout
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[RemoteTool] = []
        self.restarts = 0
        self._client: Any = None
        self._run: _Run | None = None
        self._limit = spec.timeout
        self._generation = 0
        self._down = False
        self._stopped = True
        self._restart_lock = asyncio.Lock()

    async def start(self, limit: float) -> None:
        """Connect and list the tools within `limit` seconds; never raises: a failure is
        recorded in `state` and `error`. Returns at the deadline even while a hung server
        is still being torn down in the background. Starting a started server restarts it."""
        await self._halt()
        self._limit, self._stopped = limit, False
        problem = self._check()
        if problem:
            self.state, self.error = "failed", problem
            return
        run = _Run(limit=limit, deadline=anyio.current_time() + limit)
        self._run, self.state, self.error = run, "starting", None
        run.task = asyncio.create_task(self._supervise(run), name=f"mcp server {self.name}")
        with anyio.CancelScope(deadline=run.deadline):
            await run.ready.wait()
        if not run.ready.is_set():
            self._fail(run, f"no answer within {limit:g}s")
            run.halting = True
            run.stop.set()
            if run.scope is not None:
                run.scope.cancel()

    async def stop(self) -> None:
        self._stopped = True
        await self._halt()
        if self.state != "failed":
            self.state = "stopped"

    async def call(self, tool: str, args: dict[str, Any]) -> ToolResult:
        if self._stopped:  # a late call must not resurrect a server after `stop()`
            return ToolResult.error(f"MCP server {self.name!r} is stopped")
        if self._down:
            return self._down_result()
        generation = self._generation
        result = await self._attempt(tool, args)
        if result is not None:
            return result
        async with self._restart_lock:
            if generation == self._generation:  # no other call restarted it meanwhile
                log.info("server %s: connection lost; restarting it", self.name)
                await self._restart()
        if self.state == "running":
            result = await self._attempt(tool, args)
            if result is not None:
                return result
            self.state, self.error = "failed", "connection lost again right after a restart"
        self._down = True
        return self._down_result()

    async def _attempt(self, tool: str, args: dict[str, Any]) -> ToolResult | None:
        """The call's result, or None when the connection is gone."""
        client = self._client
        if client is None or self.state != "running":
            return None
        try:
            with anyio.fail_after(self.call_timeout):
                result = await client.call_tool(tool, args)
        except TimeoutError:
            return ToolResult.error(
                f"MCP server {self.name!r} did not answer {tool} within {self.call_timeout:g}s"
            )
        except Exception as exc:
            if _is_lost(exc):
                log.info("server %s: %s failed: connection lost", self.name, tool, exc_info=exc)
                return None
            from mcp.shared.exceptions import MCPError

            leaf = _leaf(exc)
            if isinstance(leaf, MCPError):
                return ToolResult.error(leaf.message)
            log.warning("server %s: %s failed", self.name, tool, exc_info=exc)
            return ToolResult.error(f"MCP call failed: {_one_line(leaf)}")
        return render_result(result)

    async def _restart(self) -> None:
        self.restarts += 1
        self._generation += 1
        await self.start(self._limit)

    async def _halt(self) -> None:
        run = self._run
        if run is None or run.task is None:
            return
        run.halting = True
        run.stop.set()
        if not run.ready.is_set() and run.scope is not None:
            run.scope.cancel()  # still connecting: nothing to close gracefully
        await run.task

    def _down_result(self) -> ToolResult:
        return ToolResult.error(
            f"MCP server {self.name!r} is down ({self.error}); its tools cannot be used now"
        )

    def _fail(self, run: _Run, reason: str) -> None:
        if self._run is run and not run.halting:
            self.state, self.error, self._client = "failed", reason, None

    async def _supervise(self, run: _Run) -> None:
        published = False
        try:
            with anyio.CancelScope(deadline=run.deadline) as scope:
                run.scope = scope
                async with AsyncExitStack() as stack:
                    client = await self._connect(stack, run)
                    tools = await _list_tools(client)
                    scope.deadline = math.inf
                    if run.stop.is_set():
                        return
                    self._client, self.tools = client, tools
                    self.state, self.error, published = "running", None, True
                    run.ready.set()
                    await run.stop.wait()
            if scope.cancelled_caught:
                self._fail(run, f"no answer within {run.limit:g}s")
        except Exception as exc:
            if run.stderr is not None:
                await run.stderr.close()  # all of stderr read: its last line explains the exit
            reason = self._describe(exc, run)
            log.warning("server %s: %s", self.name, reason, exc_info=None if _known(exc) else exc)
            self._fail(run, f"connection lost: {reason}" if published else reason)
        finally:
            if self._run is run:
                self._client = None
            if run.stderr is not None:
                await run.stderr.close()
            run.ready.set()

    async def _connect(self, stack: AsyncExitStack, run: _Run) -> Any:
        from mcp import Client
        from mcp.types import Implementation

        from zen import __version__

        if self.kind == "http":
            transport = await self._http_transport(stack, run)
        else:
            from mcp import StdioServerParameters
            from mcp.client.stdio import stdio_client

            run.stderr = _StderrPump(self.name)
            params = StdioServerParameters(
                command=self.spec.command or "",
                args=self.spec.args,
                env=self.spec.env or None,
                cwd=self._cwd(),
            )
            transport = stdio_client(params, errlog=run.stderr.file)
        client = Client(transport, client_info=Implementation(name="zen", version=__version__))
        return await stack.enter_async_context(client)

    async def _http_transport(self, stack: AsyncExitStack, run: _Run) -> Any:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async def note_status(response: httpx2.Response) -> None:
            if response.status_code >= 400:
                run.http_status = f"HTTP {response.status_code} {response.reason_phrase}".strip()

        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=self.spec.headers,
                timeout=httpx2.Timeout(HTTP_TIMEOUT, read=HTTP_READ_TIMEOUT),
                event_hooks={"response": [note_status]},
            )
        )
        return streamable_http_client(self.spec.url or "", http_client=http)

    def _check(self) -> str | None:
        """What makes this entry unstartable, before spending a process on it."""
        spec = self.spec
        if bool(spec.command) == bool(spec.url):
            return 'needs exactly one of "command" (stdio) or "url" (HTTP)'
        if spec.url and not spec.url.startswith(("http://", "https://")):
            return f"url must start with http:// or https://: {spec.url}"
        if spec.command and not self._cwd().is_dir():
            return f"working directory not found: {self._cwd()}"
        return None

    def _cwd(self) -> Path:
        cwd = self.spec.cwd
        return self.workspace / Path(cwd).expanduser() if cwd else self.workspace

    def _describe(self, exc: BaseException, run: _Run) -> str:
        """One line saying why the server failed, from the innermost useful exception."""
        leaf = _leaf(exc)
        if isinstance(leaf, FileNotFoundError):
            return f"command not found: {self.spec.command}"
        if isinstance(leaf, PermissionError):
            return f"cannot run {self.spec.command}: permission denied"
        if self.kind == "stdio" and _is_lost(leaf):
            last = run.stderr.last if run.stderr else ""
            return f"server exited: {last}" if last else "server exited without saying why"
        if run.http_status:
            return f"{run.http_status} from {self.spec.url}"
        if self.kind == "http" and _is_lost(leaf):
            return f"cannot reach {self.spec.url}: {_one_line(leaf)}"
        return _one_line(leaf)


class _StderrPump:
    """Copies a server's stderr into the MCP log line by line, keeping the last one.

    The child needs a real file descriptor for stderr; a pipe drained by a daemon thread
    keeps every byte of it off zen's terminal and lets a failure quote the server's last words.
    """

    def __init__(self, server: str) -> None:
        read_fd, write_fd = os.pipe()
        self.file = os.fdopen(write_fd, "w")
        self.last = ""
        self._server = server
        self._thread = threading.Thread(
            target=self._pump, args=(read_fd,), name=f"mcp stderr {server}", daemon=True
        )
        self._thread.start()

    def _pump(self, read_fd: int) -> None:
        with os.fdopen(read_fd, "rb") as pipe:
            for raw in pipe:
                line = raw.decode("utf-8", errors="replace").rstrip()
                if line.strip():
                    self.last = line.strip()
                    log.info("server %s stderr: %s", self._server, line)

    async def close(self) -> None:
        """Close zen's end; the pump ends once the server's copy is closed too (it has exited)."""
        if not self.file.closed:
            self.file.close()
        await anyio.to_thread.run_sync(self._thread.join, 1.0)


async def _list_tools(client: Any) -> list[RemoteTool]:
    tools: list[RemoteTool] = []
    cursor: str | None = None
    for _ in range(_LIST_PAGES):
        page = await client.list_tools(cursor=cursor)
        for tool in page.tools:
            annotations = tool.annotations
            tools.append(
                RemoteTool(
                    name=tool.name,
                    description=tool.description or "",
                    input_schema=dict(tool.input_schema or {}),
                    read_only=bool(annotations and annotations.read_only_hint),
                )
            )
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools


def _leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, without needing Python 3.11."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, (list, tuple)) and all(isinstance(e, BaseException) for e in inner):
        for item in inner:
            yield from _leaves(item)
    else:
        yield exc


def _leaf(exc: BaseException) -> BaseException:
    """The first leaf that is not a cancellation: the cause, not its echoes."""
    leaves = list(_leaves(exc))
    for leaf in leaves:
        if not isinstance(leaf, (asyncio.CancelledError, anyio.get_cancelled_exc_class())):
            return leaf
    return leaves[0]


def _is_lost(exc: BaseException) -> bool:
    """Whether the connection itself failed (as opposed to the server refusing a request)."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    lost = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
    for leaf in _leaves(exc):
        if isinstance(leaf, MCPError):
            if leaf.code == CONNECTION_CLOSED:
                return True
        elif isinstance(leaf, (*lost, httpx2.TransportError)):
            return True
    return False


def _known(exc: BaseException) -> bool:
    """Failures whose one-line reason says it all: no traceback needed in the log."""
    from mcp.shared.exceptions import MCPError

    return isinstance(_leaf(exc), (OSError, MCPError)) or _is_lost(exc)


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__

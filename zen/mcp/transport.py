"""Opening one server's connection: the stdio or HTTP transport and the SDK client over it.

`Run` is one start of a server, shared by the connection's supervisor task and what this
module opens. The transport's read side is watched: when it ends, the server is gone, so
`Run.closed` is set and the supervisor woken; the next call then restarts the server before
sending anything (at most once, see `connection.py`). A stdio server's stderr goes to a
`StderrPump`, an HTTP server's error answers to `HttpProblems`; its log notifications go to
zen's log, and output that is not JSON-RPC is kept (`Run.garbled`) to explain a silence.
`mcp` and `httpx2` are imported inside the functions: importing `zen.mcp` stays cheap.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from zen.mcp.failures import one_line
from zen.mcp.http_errors import HttpProblems
from zen.mcp.servers import server_kind
from zen.mcp.stderr import StderrPump, clean_line
from zen.settings.schema import McpServer
from zen.tools.process import MARK, new_mark

log = logging.getLogger("zen.mcp")

HTTP_TIMEOUT = 30.0
"""Connect, write and pool timeouts of an HTTP server's client; reads wait for the call."""
_MAX_LOG_DATA = 2000


@dataclass(eq=False)
class Run:
    """One start of the server: its supervisor task and the signals between them."""

    limit: float
    deadline: float
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    halting: bool = False
    """Set by an intended shutdown, whose teardown errors mean nothing."""
    closed: bool = False
    """The transport's read side ended: the server is gone, nothing more will arrive."""
    task: asyncio.Task[None] | None = None
    scope: anyio.CancelScope | None = None
    stderr: StderrPump | None = None
    http: HttpProblems = field(default_factory=HttpProblems)
    mark: str | None = None
    """A stdio server's process mark: what it leaves running is found by it and killed."""
    garbled: str | None = None
    """The last output of the server that was not valid JSON-RPC."""
    failure: BaseException | None = None
    """What ended the supervisor, when something did."""


async def open_client(
    stack: AsyncExitStack, run: Run, name: str, spec: McpServer, cwd: Path | None
) -> Any:
    """Start server `name` (a process in `cwd`, or an HTTP session) and enter an SDK client
    on it into `stack`: the client is initialized when this returns."""
    from mcp import Client
    from mcp.types import Implementation

    from zen import __version__

    if server_kind(spec) == "http":
        transport = await _http_transport(stack, run, spec)
    else:
        transport = _stdio_transport(run, name, spec, cwd)

    async def on_log(params: Any) -> None:
        data = params.data if isinstance(params.data, str) else _compact(params.data)
        data = clean_line(data[:_MAX_LOG_DATA].encode())
        source = f" {clean_line(str(params.logger)[:80].encode())}" if params.logger else ""
        log.info("server %s log %s%s: %s", name, params.level, source, data)

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            run.garbled = one_line(message)[:200]

    client = Client(
        _watched(transport, run),
        client_info=Implementation(name="zen", version=__version__),
        logging_callback=on_log,
        log_level="info",
        message_handler=on_message,
        cache=None,
    )
    return await stack.enter_async_context(client)


def _stdio_transport(run: Run, name: str, spec: McpServer, cwd: Path | None) -> Any:
    from mcp import StdioServerParameters
    from mcp.client.stdio import stdio_client

    run.stderr = StderrPump(name)
    run.mark = new_mark()
    params = StdioServerParameters(
        command=spec.command or "",
        args=spec.args,
        env={**(spec.env or {}), MARK: run.mark},
        cwd=cwd,
    )
    return stdio_client(params, errlog=run.stderr.file)


async def _http_transport(stack: AsyncExitStack, run: Run, spec: McpServer) -> Any:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = await stack.enter_async_context(
        httpx2.AsyncClient(
            headers=spec.headers,
            timeout=httpx2.Timeout(HTTP_TIMEOUT, read=max(spec.timeout, HTTP_TIMEOUT) + 5),
            event_hooks={"response": [run.http.hook]},
        )
    )
    return streamable_http_client(spec.url or "", http_client=http)


@asynccontextmanager
async def _watched(transport: Any, run: Run) -> AsyncIterator[tuple[Any, Any]]:
    """The transport, with its read side marking `run.closed` (and waking the supervisor)
    when it ends: the server went away, so the next call must restart it before sending."""
    async with transport as (read, write):
        yield _ReadWatch(read, run), write


class _ReadWatch:
    """A read stream that notices its end; everything else goes to the wrapped stream."""

    def __init__(self, inner: Any, run: Run) -> None:
        self._inner = inner
        self._run = run

    def __getattr__(self, name: str) -> Any:  # `last_context` and the like
        return getattr(self._inner, name)

    def _ended(self) -> None:
        self._run.closed = True
        self._run.stop.set()

    async def receive(self) -> Any:
        try:
            return await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._ended()
            raise

    def __aiter__(self) -> _ReadWatch:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _ReadWatch:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> bool | None:
        return await self._inner.__aexit__(*exc)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)

"""One MCP server: a supervisor task holds its SDK session open; tool calls go through it.

The SDK's context managers must be entered and exited by the same task, so each start of a
server is one long-lived supervisor task: it connects, lists the tools, publishes the client
and waits for a stop signal or the server going away. Calls come from the agents' tasks and
use the published client.

At most once: a call is sent again only when the server provably ran nothing of it (the
server was already gone before the call was sent, the connection was refused, or an HTTP
server did not know the session). A server that stops while a call runs costs that call
("it may have partly run"); the server is restarted for the next call. A restart that fails
leaves the server down until `/mcp restart`. Opening the transport is `transport.py`'s job,
reading a failure `failures.py`'s; `mcp` is imported only inside functions.
"""

from __future__ import annotations

import asyncio
import logging
import math
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import anyio

from zen.base.paths import expand_user
from zen.mcp.failures import cause, is_lost, is_refusal, known, one_line, sdk_problem
from zen.mcp.listing import Listing, list_tools
from zen.mcp.servers import server_kind
from zen.mcp.tool import RemoteTool, render_result
from zen.mcp.transport import Run, open_client
from zen.settings.schema import McpServer
from zen.tools.base import ToolResult
from zen.tools.process import kill_marked

State = Literal["stopped", "starting", "running", "exited", "failed"]

log = logging.getLogger("zen.mcp")

_GRACE = 5.0
"""Beyond a call's own timeout, the most zen waits for the SDK to give up on it."""


@dataclass(frozen=True)
class _Lost:
    """The connection failed during an attempt; `unsent` when the server provably ran none
    of the call (it may be sent again)."""

    unsent: bool


class Connection:
    """The lifecycle of one configured server, and the `Caller` its tools call through."""

    def __init__(self, name: str, spec: McpServer, workspace: Path) -> None:
        self.name = name
        self.spec = spec
        self.kind = server_kind(spec)
        self.workspace = workspace
        self.timeout = spec.timeout
        self.state: State = "stopped"
        self.error: str | None = None
        self.tools: list[RemoteTool] = []
        self.notes: list[str] = []
        """What listing the tools stopped or dropped (see `listing.py`)."""
        self.hidden = 0
        self.restarts = 0
        self._client: Any = None
        self._run: Run | None = None
        self._limit = spec.start_timeout
        self._generation = 0
        self._down = False
        self._stopped = True
        self._restart_lock = asyncio.Lock()

    async def start(self, limit: float) -> None:
        """Connect and list the tools within `limit` seconds; never raises: a failure is
        recorded in `state` and `error`. Returns at the deadline even while a hung server
        is still being torn down in the background. Starting a started server restarts it."""
        await self._halt()
        self._limit, self._stopped, self._down = limit, False, False
        problem = self._check()
        if problem:
            self.state, self.error = "failed", problem
            return
        run = Run(limit=limit, deadline=anyio.current_time() + limit)
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

    async def restart(self) -> None:
        """`/mcp restart`: a fresh start, also for a server that is down."""
        self.restarts += 1
        self._generation += 1
        await self.start(self._limit)

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
        if not self._usable():  # gone before this call was sent: nothing of it ran
            await self._restart_from(self._generation, "it had stopped")
            if not self._usable():
                self._down = True
                return self._down_result()
        generation = self._generation
        outcome = await self._attempt(tool, args)
        if isinstance(outcome, _Lost) and outcome.unsent:
            await self._restart_from(generation, f"{tool} was refused before it ran")
            if not self._usable():
                self._down = True
                return self._down_result()
            outcome = await self._attempt(tool, args)
            if isinstance(outcome, _Lost) and outcome.unsent:
                self._down = True
                self.state, self.error = "failed", "refused the call again right after a restart"
                return self._down_result()
        if isinstance(outcome, _Lost):
            log.info("server %s: stopped while running %s", self.name, tool)
            return ToolResult.error(
                f"MCP server {self.name!r}, tool {tool}: the server stopped while running "
                "this call; it may have partly run. Check before repeating it; the server "
                "restarts for the next call."
            )
        return outcome

    def _usable(self) -> bool:
        run = self._run
        return (
            self.state == "running"
            and self._client is not None
            and run is not None
            and not run.closed
            and not run.stop.is_set()
        )

    async def _restart_from(self, generation: int, why: str) -> None:
        async with self._restart_lock:
            if generation == self._generation:  # no other call restarted it meanwhile
                log.info("server %s: %s; restarting it", self.name, why)
                await self.restart()

    async def _attempt(self, tool: str, args: dict[str, Any]) -> ToolResult | _Lost:
        """The call's result, or `_Lost` when the connection failed under it."""
        client, run = self._client, self._run
        if client is None or run is None:
            return _Lost(unsent=True)
        try:
            with anyio.fail_after(self.timeout + _GRACE):
                result = await client.call_tool(tool, args, read_timeout_seconds=self.timeout)
        except TimeoutError:
            return ToolResult.error(self._no_answer(tool, run))
        except Exception as exc:
            from mcp.shared.exceptions import MCPError
            from mcp.types import REQUEST_TIMEOUT

            problem = run.http.take(tool)
            if problem is not None and problem.session_gone:
                log.info("server %s: %s: the session is gone", self.name, problem.text)
                return _Lost(unsent=True)
            if is_lost(exc):
                log.info("server %s: %s failed: connection lost", self.name, tool, exc_info=exc)
                return _Lost(unsent=await self._refused(run))
            leaf = cause(exc)
            if isinstance(leaf, MCPError) and leaf.code == REQUEST_TIMEOUT:
                return ToolResult.error(self._no_answer(tool, run))
            if problem is not None:
                return ToolResult.error(f"MCP server {self.name!r}: {problem.text}")
            if isinstance(leaf, MCPError):
                return ToolResult.error(leaf.message)
            log.warning("server %s: %s failed", self.name, tool, exc_info=exc)
            return ToolResult.error(f"MCP call failed: {one_line(leaf)}")
        return render_result(result)

    async def _refused(self, run: Run) -> bool:
        """Whether a lost HTTP connection never reached the server (connect refused or timed
        out), which the supervisor learns when the transport fails. Stdio: never provable."""
        if self.kind != "http" or run.task is None:
            return False
        await asyncio.wait({run.task}, timeout=2.0)
        return run.failure is not None and is_refusal(run.failure)

    def _no_answer(self, tool: str, run: Run) -> str:
        text = f"MCP server {self.name!r} did not answer {tool} within {self.timeout:g}s"
        if run.garbled:
            text += f"; it sent output that is not valid MCP ({run.garbled})"
        return text + " (the server's `timeout` setting)"

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

    def _fail(self, run: Run, reason: str, state: State = "failed") -> None:
        if self._run is run and not run.halting:
            self.state, self.error, self._client = state, reason, None

    async def _supervise(self, run: Run) -> None:
        published = False
        try:
            with anyio.CancelScope(deadline=run.deadline) as scope:
                run.scope = scope
                async with AsyncExitStack() as stack:
                    cwd = self._cwd() if self.kind == "stdio" else None
                    client = await open_client(stack, run, self.name, self.spec, cwd)
                    listing = await list_tools(client)
                    scope.deadline = math.inf
                    if run.stop.is_set():
                        return
                    self._publish(client, listing)
                    if run.stderr is not None:
                        run.stderr.mark()
                    published = True
                    run.ready.set()
                    await run.stop.wait()
            if scope.cancelled_caught:
                self._fail(run, f"no answer within {run.limit:g}s")
            elif run.closed and not run.halting:
                await self._close_stderr(run)
                self._fail(run, self._gone_reason(run), "exited")
        except Exception as exc:
            run.failure = exc
            await self._close_stderr(run)  # all of stderr read: it explains the exit
            reason = self._describe(exc, run)
            log.warning("server %s: %s", self.name, reason, exc_info=None if known(exc) else exc)
            if published:
                self._fail(run, f"connection lost: {reason}", "exited")
            else:
                self._fail(run, reason)
        finally:
            if self._run is run:
                self._client = None
            if run.mark:  # the SDK ended its process group; this ends what left the group
                kill_marked(run.mark)
            await self._close_stderr(run)
            run.ready.set()

    def _publish(self, client: Any, listing: Listing) -> None:
        self._client, self.tools = client, listing.tools
        self.notes, self.hidden = listing.notes, listing.hidden
        for note in listing.notes:
            log.warning("server %s: %s", self.name, note)
        if listing.hidden:
            log.info("server %s: %d tool(s) need MCP Tasks; hidden", self.name, listing.hidden)
        self.state, self.error = "running", None

    @staticmethod
    async def _close_stderr(run: Run) -> None:
        if run.stderr is not None:
            await run.stderr.close()

    def _gone_reason(self, run: Run) -> str:
        said = run.stderr.reason if run.stderr else ""
        return f"server exited: {said}" if said else "server exited without saying why"

    def _check(self) -> str | None:
        """What makes this entry unstartable, before spending a process on it."""
        spec = self.spec
        missing = sdk_problem()
        if missing:
            return missing
        if bool(spec.command) == bool(spec.url):
            return 'needs exactly one of "command" (stdio) or "url" (HTTP)'
        if spec.url and not spec.url.startswith(("http://", "https://")):
            return f"url must start with http:// or https://: {spec.url}"
        if spec.command and not self._cwd().is_dir():
            return f"working directory not found: {self._cwd()}"
        return None

    def _cwd(self) -> Path:
        cwd = self.spec.cwd
        return self.workspace / expand_user(cwd) if cwd else self.workspace

    def _describe(self, exc: BaseException, run: Run) -> str:
        """One line saying why the server failed, from the innermost useful exception."""
        leaf = cause(exc)
        if isinstance(leaf, FileNotFoundError):
            return f"command not found: {self.spec.command}"
        if isinstance(leaf, PermissionError):
            return f"cannot run {self.spec.command}: permission denied"
        if self.kind == "stdio" and is_lost(leaf):
            return self._gone_reason(run)
        if run.http.last is not None:
            return f"{run.http.last.text} from {self.spec.url}"
        if self.kind == "http" and is_lost(leaf):
            return f"cannot reach {self.spec.url}: {one_line(leaf)}"
        return one_line(leaf)

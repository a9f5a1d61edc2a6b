"""Real MCP servers for the MCP client tests, built with the SDK's own `MCPServer`.

Run as a script:
- `python mcp_servers.py stdio [--once FILE]`: a stdio server. With `--once`, it refuses to
  start a second time (it exits at once if FILE exists, and creates FILE otherwise), so a
  crash followed by a restart can be made to fail.
- `python mcp_servers.py http --port N --token T`: a streamable-HTTP server on 127.0.0.1 that
  answers 401 to any request without `Authorization: Bearer T`.

Both print a marker line to stderr at startup, so tests can check where server stderr goes.
"""

from __future__ import annotations

import argparse
import base64
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp.types import (
    METHOD_NOT_FOUND,
    CallToolResult,
    DiscoverResult,
    ImageContent,
    ListToolsResult,
    RequestParams,
    TextContent,
    ToolExecution,
)
from mcp.types import Tool as MCPTool

HERE = Path(__file__).resolve()
STDERR_MARKER = "fake-mcp-server: starting"
SCHEMA_URL = "http://json-schema.org/draft-07/schema#"
# The smallest valid PNG: 1x1, 67 bytes.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


class FakeServer(MCPServer):
    """MCPServer with a listing the tests can make awkward: every schema says `$schema`, one
    tool needs MCP Tasks, and `tools` = "loop" (a cursor that never ends), "repeat" (the same
    page under new cursors) or "many" (300 tools with big schemas) for hostile pagination."""

    listing = "plain"

    async def list_tools(self) -> list[Any]:
        tools = await super().list_tools()
        for tool in tools:
            tool.input_schema = {"$schema": SCHEMA_URL, **tool.input_schema}
            if tool.name == "background_job":
                tool.execution = ToolExecution(task_support="required")
        return tools

    async def _handle_list_tools(self, ctx: Any, params: Any) -> ListToolsResult:
        tools = await self.list_tools()
        cursor = getattr(params, "cursor", None) if params else None
        if self.listing == "loop":
            return ListToolsResult(tools=tools, next_cursor="again")
        if self.listing == "repeat":
            return ListToolsResult(tools=tools, next_cursor=str(int(cursor or 0) + 1))
        if self.listing == "many":
            if cursor is None:
                return ListToolsResult(tools=tools, next_cursor="1")
            page = int(cursor)
            big = {
                "type": "object",
                "properties": {
                    f"field_{i}": {"type": "string", "description": "x" * 40} for i in range(20)
                },
            }
            extra = [
                MCPTool(name=f"bulk_{page}_{i}", description="A bulk tool.", input_schema=big)
                for i in range(100)
            ]
            return ListToolsResult(tools=extra, next_cursor=str(page + 1) if page < 3 else None)
        return ListToolsResult(tools=tools)


def build(name: str, listing: str = "plain", legacy: bool = False) -> MCPServer:
    """The tools every fake server offers; each exercises one way a result can look.

    `legacy`: the server advertises only the 2025-11-25 protocol, so clients use the
    `initialize` handshake and, over HTTP, a session id, as the TypeScript servers do."""
    server = FakeServer(name, log_level="WARNING")
    server.listing = listing
    if legacy:

        async def discover(ctx: Any, params: Any) -> DiscoverResult:
            raise MCPError(code=METHOD_NOT_FOUND, message="Method not found")

        server._lowlevel_server.add_request_handler("server/discover", RequestParams, discover)

    @server.tool(description="Echo the text back.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="The server's process id.")
    def pid() -> str:
        return str(os.getpid())

    @server.tool(description="Always fails with the given message.")
    def fail(message: str) -> str:
        raise ToolError(message)

    @server.tool(description="Structured data.")
    def stats(word: str) -> dict[str, Any]:
        return {"word": word, "length": len(word), "upper": word.upper()}

    @server.tool(description="A tiny PNG image.")
    def picture() -> Image:
        return Image(data=PNG, format="png")

    @server.tool(description="Exit the server process shortly after answering.")
    def exit_soon() -> str:
        threading.Timer(0.1, os._exit, args=(3,)).start()
        return "bye"

    @server.tool(description="Write a line that is not JSON-RPC to stdout, then answer.")
    def noise() -> str:
        os.write(1, b"this is not json\n")
        return "noisy"

    @server.tool(description="The value of a request header.")
    def header(name: str, ctx: Context) -> str:
        return (ctx.headers or {}).get(name.lower(), "")

    @server.tool(name="odd.name/with spaces", description="A tool whose name needs sanitising.")
    def odd() -> str:
        return "odd"

    @server.tool(description="Append a line to a file (one per execution), then sleep.")
    async def count(path: str, seconds: float = 0.0) -> str:
        with open(path, "a") as file:
            file.write(f"{os.getpid()}\n")
        await anyio.sleep(seconds)
        return str(len(Path(path).read_text().splitlines()))

    @server.tool(description="Write a reply that is not JSON-RPC, then never answer.")
    async def garble() -> str:
        from mcp.server import stdio  # the SDK moves the wire off fd 1 (stray prints go to stderr)

        claim = stdio._claims.get(1)
        wire = claim.private_fd if claim and claim.private_fd is not None else 1
        os.write(wire, b'{"jsonrpc": "2.0", "id": \n')
        await anyio.sleep(3600)
        return "never"

    @server.tool(description="A file's text, structured as server-filesystem does it.")
    def fs_read(text: str) -> CallToolResult:
        return CallToolResult(
            content=[TextContent(type="text", text=text)], structured_content={"content": text}
        )

    @server.tool(description="Numbers: the SDK wraps a non-object value as {'result': ...}.")
    def numbers(n: int) -> list[int]:
        return list(range(n))

    @server.tool(description="An image, and its base64 again in structured content.")
    def media() -> CallToolResult:
        data = base64.b64encode(PNG * 200).decode()
        return CallToolResult(
            content=[ImageContent(type="image", data=data, mime_type="image/png")],
            structured_content={
                "content": [{"type": "image", "data": data, "mimeType": "image/png"}],
                "name": "big.png",
            },
        )

    @server.tool(description="Needs MCP Tasks (marked so in the listing).")
    def background_job() -> str:
        return "ran without a task"

    @server.tool(description="Send a log notification, then answer.")
    async def shout(message: str, ctx: Context) -> str:
        await ctx.warning(message)
        return "shouted"

    return server


def _bearer_only(app: Any, token: str, outage: Path | None = None) -> Any:
    """ASGI wrapper: 401 unless the request carries the bearer token; 503 with the text of
    the file `outage` while that file exists."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
            if outage is not None and outage.exists():
                plain = [(b"content-type", b"text/plain")]
                await send({"type": "http.response.start", "status": 503, "headers": plain})
                await send({"type": "http.response.body", "body": outage.read_bytes()})
                return
        await app(scope, receive, send)

    return guarded


def _serve_http(port: int, token: str, legacy: bool = False, outage: Path | None = None) -> None:
    import uvicorn

    app = build("fake-http", legacy=legacy).streamable_http_app(host="127.0.0.1")
    guarded = _bearer_only(app, token, outage)
    uvicorn.run(guarded, host="127.0.0.1", port=port, log_level="warning")


def _serve_stdio(once: Path | None, listing: str = "plain", legacy: bool = False) -> None:
    if once is not None:
        if once.exists():
            print("fake-mcp-server: refusing to start twice", file=sys.stderr, flush=True)
            sys.exit(5)
        once.touch()
    build("fake-stdio", listing, legacy).run("stdio")


def stdio_command(*extra: str) -> tuple[str, list[str]]:
    """`command` and `args` that start the fake stdio server."""
    return sys.executable, [str(HERE), "stdio", *extra]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """The fake HTTP server in a subprocess on a free loopback port."""

    def __init__(
        self,
        token: str,
        log: Path,
        port: int | None = None,
        legacy: bool = False,
        outage: Path | None = None,
    ) -> None:
        self.token = token
        self.legacy = legacy
        self.outage = outage
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._log = log
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> HttpServer:
        with self._log.open("ab") as log:
            command = [sys.executable, str(HERE), "http", "--port", str(self.port)]
            self._proc = subprocess.Popen(
                [
                    *command,
                    *("--token", self.token),
                    *(["--legacy"] if self.legacy else []),
                    *(["--outage", str(self.outage)] if self.outage else []),
                ],
                stdout=log,
                stderr=log,
            )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise RuntimeError(f"fake HTTP server exited: see {self._log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("fake HTTP server did not start listening")

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            self._proc.terminate()
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("transport", choices=["stdio", "http"])
    parser.add_argument("--once", type=Path)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--token", default="")
    parser.add_argument("--tools", default="plain", choices=["plain", "loop", "repeat", "many"])
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--outage", type=Path)
    args = parser.parse_args()
    print(STDERR_MARKER, file=sys.stderr, flush=True)
    if args.transport == "http":
        _serve_http(args.port, args.token, args.legacy, args.outage)
    else:
        _serve_stdio(args.once, args.tools, args.legacy)


if __name__ == "__main__":
    main()

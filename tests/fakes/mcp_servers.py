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

HERE = Path(__file__).resolve()
STDERR_MARKER = "fake-mcp-server: starting"
# The smallest valid PNG: 1x1, 67 bytes.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


def build(name: str) -> MCPServer:
    """The tools every fake server offers; each exercises one way a result can look."""
    server: MCPServer = MCPServer(name, log_level="WARNING")

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

    @server.tool(description="Send a log notification, then answer.")
    async def shout(message: str, ctx: Context) -> str:
        await ctx.warning(message)
        return "shouted"

    return server


def _bearer_only(app: Any, token: str) -> Any:
    """ASGI wrapper: 401 unless the request carries the bearer token."""

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            if headers.get(b"authorization") != f"Bearer {token}".encode():
                await send({"type": "http.response.start", "status": 401, "headers": []})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await app(scope, receive, send)

    return guarded


def _serve_http(port: int, token: str) -> None:
    import uvicorn

    app = build("fake-http").streamable_http_app(host="127.0.0.1")
    uvicorn.run(_bearer_only(app, token), host="127.0.0.1", port=port, log_level="warning")


def _serve_stdio(once: Path | None) -> None:
    if once is not None:
        if once.exists():
            print("fake-mcp-server: refusing to start twice", file=sys.stderr, flush=True)
            sys.exit(5)
        once.touch()
    build("fake-stdio").run("stdio")


def stdio_command(*extra: str) -> tuple[str, list[str]]:
    """`command` and `args` that start the fake stdio server."""
    return sys.executable, [str(HERE), "stdio", *extra]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class HttpServer:
    """The fake HTTP server in a subprocess on a free loopback port."""

    def __init__(self, token: str, log: Path, port: int | None = None) -> None:
        self.token = token
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self._log = log
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> HttpServer:
        with self._log.open("ab") as log:
            command = [sys.executable, str(HERE), "http", "--port", str(self.port)]
            self._proc = subprocess.Popen(
                [*command, "--token", self.token],
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
    args = parser.parse_args()
    print(STDERR_MARKER, file=sys.stderr, flush=True)
    if args.transport == "http":
        _serve_http(args.port, args.token)
    else:
        _serve_stdio(args.once)


if __name__ == "__main__":
    main()

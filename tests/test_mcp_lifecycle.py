"""MCP servers that restart, fail, misbehave or say too much, as real processes
(tests/fakes/mcp_servers.py): sessions re-initialised, HTTP errors explained, hostile tool
listings bounded, results shown once, binaries never dumped, logs kept."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.mcp_servers import HttpServer, stdio_command
from tests.test_mcp import TOKEN, call, find
from zen.mcp import McpManager, format_status
from zen.mcp.manager import WARN_SCHEMA_CHARS
from zen.settings.schema import McpServer

pytestmark = pytest.mark.e2e

HEADERS = {"Authorization": f"Bearer {TOKEN}"}


async def started(tmp_path: Path, **servers: McpServer) -> McpManager:
    manager = McpManager(servers, tmp_path, tmp_path / "mcp.log")
    await manager.start(timeout=30)
    return manager


async def test_http_session_is_reinitialised_after_a_server_restart_and_runs_once(
    tmp_path: Path,
) -> None:
    counter = tmp_path / "runs.txt"
    first = HttpServer(TOKEN, tmp_path / "first.log", legacy=True)
    manager = McpManager(
        {"web": McpServer(url=first.url, headers=HEADERS)}, tmp_path, tmp_path / "mcp.log"
    )
    try:
        with first:
            await manager.start(timeout=30)
            before = await call(manager, "mcp__web__pid", tmp_path)
            assert before.ok
        # A new server on the same port knows nothing of zen's session: 404 for its id.
        with HttpServer(TOKEN, tmp_path / "second.log", port=first.port, legacy=True):
            result = await call(manager, "mcp__web__count", tmp_path, path=str(counter))
            assert (result.ok, result.output) == (True, "1"), result.output
            assert len(counter.read_text().splitlines()) == 1  # sent again, run once
            after = await call(manager, "mcp__web__pid", tmp_path)
            assert after.ok and after.output != before.output
            [status] = manager.status()
            assert (status.state, status.restarts) == ("running", 1)
        log = (tmp_path / "mcp.log").read_text()
        assert "HTTP 404 Not Found" in log and "the session is gone" in log
    finally:
        await manager.stop()


async def test_tools_that_need_mcp_tasks_are_hidden(tmp_path: Path) -> None:
    with HttpServer(TOKEN, tmp_path / "server.log", legacy=True) as server:
        manager = await started(tmp_path, web=McpServer(url=server.url, headers=HEADERS))
        try:
            names = {tool.name for tool in manager.tools()}
            assert "mcp__web__echo" in names
            assert "mcp__web__background_job" not in names
            [status] = manager.status()
            assert status.notes == ["1 tool(s) need MCP Tasks, which zen does not support; hidden"]
            assert manager.warnings() == []  # hidden on purpose: no warning each start
        finally:
            await manager.stop()


async def test_http_errors_carry_status_and_the_servers_words(tmp_path: Path) -> None:
    outage = tmp_path / "outage"
    with HttpServer(TOKEN, tmp_path / "server.log", outage=outage) as server:
        manager = await started(
            tmp_path,
            web=McpServer(url=server.url, headers=HEADERS),
            locked=McpServer(url=server.url),
        )
        try:
            locked = next(s for s in manager.status() if s.name == "locked")
            assert locked.error == f"HTTP 401 Unauthorized: unauthorized from {server.url}"
            outage.write_text("maintenance until 10:00\nsecond line")
            failed = await call(manager, "mcp__web__echo", tmp_path, text="x")
            assert not failed.ok
            assert "HTTP 503 Service Unavailable: maintenance until 10:00" in failed.output
            outage.unlink()
            again = await call(manager, "mcp__web__echo", tmp_path, text="back")
            assert (again.ok, again.output) == (True, "back")
        finally:
            await manager.stop()


@pytest.mark.parametrize("listing", ["loop", "repeat"])
async def test_endless_pagination_is_stopped_with_one_copy_of_each_tool(
    tmp_path: Path, listing: str
) -> None:
    command, args = stdio_command("--tools", listing)
    manager = await started(tmp_path, fake=McpServer(command=command, args=args))
    try:
        names = [tool.name for tool in manager.tools()]
        assert len(names) == len(set(names)) == 16
        [warning] = manager.warnings()
        assert warning.startswith("MCP server fake: tools/list pagination loops (page ")
        text = format_status(manager.status())
        assert "note: tools/list pagination loops" in text
    finally:
        await manager.stop()


async def test_many_tools_warn_with_the_figures(tmp_path: Path) -> None:
    command, args = stdio_command("--tools", "many")
    manager = await started(tmp_path, fake=McpServer(command=command, args=args))
    try:
        assert len(manager.tools()) == 316
        [warning] = manager.warnings()
        total = sum(len(json.dumps(t.schema(), ensure_ascii=False)) for t in manager.tools())
        assert total > WARN_SCHEMA_CHARS
        assert f"MCP tools add 316 tools and {total:,} characters of schemas" in warning
        assert f"fake 316 tools / {total:,} chars" in warning
    finally:
        await manager.stop()


async def test_results_show_text_once_and_never_binary(tmp_path: Path) -> None:
    command, args = stdio_command()
    manager = await started(tmp_path, fake=McpServer(command=command, args=args))
    try:
        text = "line one\nline two"
        fs = await call(manager, "mcp__fake__fs_read", tmp_path, text=text)
        assert (fs.ok, fs.output) == (True, text)  # not again as {"content": ...}
        numbers = await call(manager, "mcp__fake__numbers", tmp_path, n=3)
        assert numbers.output.count("0") == 1 and "result" not in numbers.output
        media = await call(manager, "mcp__fake__media", tmp_path)
        assert media.output.startswith("[image: image/png, 13400 bytes]")
        assert len(media.output) < 300, media.output  # no base64 anywhere
        assert "big.png" in media.output and "[binary data, 13400 bytes]" in media.output
        stats = await call(manager, "mcp__fake__stats", tmp_path, word="zen")
        assert stats.output == '{"word": "zen", "length": 3, "upper": "ZEN"}'
        schema = json.dumps([tool.schema() for tool in manager.tools()])
        assert "$schema" not in schema  # the fake sends it in every tool's schema
        remote = find(manager, "mcp__fake__echo").remote.input_schema
        assert "$schema" in remote
    finally:
        await manager.stop()


async def test_log_notifications_reach_the_mcp_log(tmp_path: Path) -> None:
    command, args = stdio_command()
    manager = await started(tmp_path, fake=McpServer(command=command, args=args))
    try:
        result = await call(manager, "mcp__fake__shout", tmp_path, message="disk almost full")
        assert result.ok
    finally:
        await manager.stop()
    log = (tmp_path / "mcp.log").read_text()
    assert "server fake log warning" in log and "disk almost full" in log


async def test_failing_server_is_explained_by_its_error_line_not_a_footer(
    tmp_path: Path,
) -> None:
    node_like = "\n".join(
        [
            "node:internal/modules/cjs/loader:1228",
            "  throw err;",
            "  ^",
            "",
            "Error: Cannot find module '/srv/index.js'",
            "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15)",
            "    at node:internal/main/run_main_module:28:49 {",
            "  code: 'MODULE_NOT_FOUND',",
            "  requireStack: []",
            "}",
            "",
            "Node.js v20.11.0",
        ]
    )
    code = f"import sys; sys.stderr.write({node_like!r} + '\\n'); sys.exit(1)"
    manager = await started(
        tmp_path,
        node=McpServer(command=sys.executable, args=["-c", code], env={"SECRET_TOKEN": "hunter2"}),
    )
    try:
        [status] = manager.status()
        assert status.state == "failed"
        assert status.error == "server exited: Error: Cannot find module '/srv/index.js'"
    finally:
        await manager.stop()
    assert "hunter2" not in (tmp_path / "mcp.log").read_text()  # env values are never logged


def _restart_args() -> dict[str, Any]:
    command, args = stdio_command()
    return {"command": command, "args": args}


async def test_restart_command_restarts_one_server_or_all(tmp_path: Path) -> None:
    manager = await started(
        tmp_path, a=McpServer(**_restart_args()), b=McpServer(**_restart_args())
    )
    try:
        pid_a = (await call(manager, "mcp__a__pid", tmp_path)).output
        pid_b = (await call(manager, "mcp__b__pid", tmp_path)).output
        assert await manager.restart("a") == ["a: running"]
        assert (await call(manager, "mcp__a__pid", tmp_path)).output != pid_a
        assert (await call(manager, "mcp__b__pid", tmp_path)).output == pid_b
        assert await manager.restart("nope") == ["no MCP server named 'nope'"]
        assert await manager.restart() == ["a: running", "b: running"]
        assert (await call(manager, "mcp__b__pid", tmp_path)).output != pid_b
    finally:
        await manager.stop()


@pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")
async def test_a_daemon_a_server_started_does_not_outlive_it(tmp_path: Path) -> None:
    """The SDK ends the server's process group; what left it is found by zen's mark."""
    import os
    import shlex
    import time

    command, args = stdio_command()
    pid_file = tmp_path / "daemon"
    script = (
        f"setsid sh -c 'echo $$ > {pid_file}; exec sleep 300' & exec {shlex.join([command, *args])}"
    )
    manager = await started(tmp_path, d=McpServer(command="/bin/sh", args=["-c", script]))
    try:
        [status] = manager.status()
        assert status.state == "running", status.error
        pid = int(pid_file.read_text())
        assert f"ZEN_RUN={os.getpid()}-".encode() in Path(f"/proc/{pid}/environ").read_bytes()
    finally:
        await manager.stop()
    deadline = time.monotonic() + 3
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{pid}").exists()

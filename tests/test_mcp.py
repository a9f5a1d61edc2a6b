"""zen's MCP client against real servers: PyPI's mcp-server-time over stdio, and the SDK's
MCPServer over stdio and streamable HTTP (tests/fakes/mcp_servers.py)."""

from __future__ import annotations

import base64
import json
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
import pytest_asyncio
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
)

from tests.fakes.mcp_servers import PNG, STDERR_MARKER, HttpServer, stdio_command
from zen.mcp import (
    McpManager,
    McpTool,
    collect_servers,
    format_status,
    mcp_level,
    mcp_list,
    read_mcp_json,
)
from zen.mcp.tool import McpParams, RemoteTool, render_result, tool_name
from zen.settings.loading import load_config
from zen.settings.schema import Config, Features, McpServer
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import ToolContext, ToolResult
from zen.tools.workspace import Workspace

TIME_SERVER = Path(sys.executable).parent / "mcp-server-time"
TOKEN = "s3cret-token"
ROOT = Path(__file__).resolve().parent.parent
module_loop = pytest.mark.asyncio(loop_scope="module")


def context(root: Path) -> ToolContext:
    return ToolContext(
        workspace=Workspace(root),
        agent="main",
        read_tracker=ReadTracker(),
        memo=MemoStore(),
        todo=TodoStore(),
    )


def find(manager: McpManager, name: str) -> McpTool:
    tools = {tool.name: tool for tool in manager.tools()}
    assert name in tools, sorted(tools)
    tool = tools[name]
    assert isinstance(tool, McpTool)
    return tool


async def call(manager: McpManager, tool_name: str, root: Path, /, **args: Any) -> ToolResult:
    """As the registry does it: validate the JSON arguments with Params, then execute."""
    tool = find(manager, tool_name)
    return await tool.execute(tool.Params.model_validate(args), context(root))


async def wait_gone(pid: int, within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        await anyio.sleep(0.05)
    return False


async def wait_state(manager: McpManager, name: str, state: str, within: float = 10.0) -> None:
    """Until zen has noticed what happened to the server (its pipes closed)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if next(s for s in manager.status() if s.name == name).state == state:
            return
        await anyio.sleep(0.02)
    raise AssertionError(f"{name} never became {state}: {manager.status()}")


def hang_server(*prelude: str, **spec: Any) -> McpServer:
    """A 'server' that never answers: it reads its stdin until zen closes it."""
    code = "; ".join(["import sys", *prelude, "sys.stdin.read()"])
    return McpServer(command=sys.executable, args=["-c", code], **spec)


# ---------------------------------------------------------------- no processes needed


@pytest.mark.e2e
def test_importing_zen_mcp_does_not_import_the_sdk() -> None:
    code = "import sys, zen.mcp; print(sorted(m for m in ('mcp', 'httpx2') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


def test_tool_names_are_sanitised_unique_and_bounded() -> None:
    taken: set[str] = set()
    assert tool_name("time", "get_current_time", taken) == "mcp__time__get_current_time"
    assert tool_name("my server", "odd.name/x", taken) == "mcp__my_server__odd_name_x"
    clash = tool_name("my server", "odd name/x", taken)  # sanitises to the same name
    assert clash != "mcp__my_server__odd_name_x" and clash.startswith("mcp__my_server__odd")
    long = tool_name("s" * 40, "t" * 40, taken)
    again = tool_name("s" * 40, "t" * 40 + "u", taken)
    for name in (clash, long, again):
        assert len(name) <= 64
        assert all(c.isalnum() or c in "_-" for c in name)
    assert long != again
    assert tool_name("s" * 40, "t" * 40, set()) == long  # stable from run to run


def test_permission_levels_full_name_then_server_then_all() -> None:
    perms: dict[str, Any] = {
        "mcp__git": "auto",
        "mcp__git__git_push": "deny",
        "mcp__web_srv__*": "auto",
        "mcp__*": "deny",
    }
    assert mcp_level(perms, "git", "mcp__git__git_status") == "auto"
    assert mcp_level(perms, "git", "mcp__git__git_push") == "deny"
    assert mcp_level(perms, "web srv", "mcp__web_srv__fetch") == "auto"
    assert mcp_level(perms, "other", "mcp__other__x") == "deny"
    assert mcp_level({}, "other", "mcp__other__x") == "confirm"


def test_params_accept_any_json_object_unchanged() -> None:
    args = {"timezone": "UTC", "nested": {"list": [1, 2]}, "schema": None, "copy": 3}
    assert McpParams.model_validate(args).model_dump() == args


def test_mcp_json_merges_under_zen_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZEN_TEST_MCP_HOST", "example.test")
    monkeypatch.delenv("ZEN_TEST_MCP_UNSET", raising=False)
    (tmp_path / ".mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "shared": {"command": "from-mcp-json"},
                    "remote": {
                        "type": "http",
                        "url": "https://${ZEN_TEST_MCP_HOST}/mcp",
                        "headers": {"X-D": "${ZEN_TEST_MCP_UNSET:-d}"},
                    },
                    "needs-token": {
                        "type": "http",
                        "url": "https://${ZEN_TEST_MCP_HOST}/mcp",
                        "headers": {"Authorization": "Bearer ${ZEN_TEST_MCP_UNSET}"},
                    },
                    "local": {
                        "type": "stdio",
                        "command": "srv",
                        "args": ["--root", "$ZEN_TEST_MCP_HOST"],
                    },
                    "legacy": {"type": "sse", "url": "https://old.test/sse"},
                    "typo": {"command": "x", "argz": []},
                    "empty": {"type": "http"},
                }
            }
        )
    )
    config = Config(
        mcp_servers={"shared": McpServer(command="from-zen"), "mine": McpServer(url="http://a")}
    )
    assert list(collect_servers(config, tmp_path)) == ["shared", "mine"], "untrusted: ignored"
    config._project_trusted = True
    warnings: list[str] = []
    servers = collect_servers(config, tmp_path, warn=warnings.append)

    assert list(servers) == ["shared", "mine", "remote", "local", "typo"]
    assert servers["shared"].command == "from-zen"
    assert servers["remote"].url == "https://example.test/mcp"
    assert servers["remote"].headers == {"X-D": "d"}
    assert servers["local"].args == ["--root", "example.test"]
    text = "\n".join(warnings)
    assert "'legacy'" in text and "legacy SSE transport not supported" in text
    assert "'typo'" in text and "unknown key(s) ignored: argz" in text
    assert "'empty'" in text and '"url"' in text
    [unset] = [w for w in warnings if "ZEN_TEST_MCP_UNSET" in w]  # one warning, naming both
    assert "'needs-token'" in unset and "skipped" in unset
    assert "ZEN_TEST_MCP_UNSET" not in "".join(str(s.headers) for s in servers.values())


def test_mcp_json_of_other_clients_is_understood(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZEN_TEST_MCP_UNSET", raising=False)
    (tmp_path / "secrets.env").write_text(
        "# comment\nexport API_KEY='from-file'\nREGION=eu\nnot a line\n"
    )
    entries = {
        "off": {"command": "x", "disabled": True},
        "cline": {
            "command": "srv",
            "envFile": "secrets.env",
            "env": {"REGION": "us"},
            "autoApprove": ["read_thing"],
            "alwaysAllow": ["x"],
            "disabled": False,
            "timeout": 45,
            "description": "anything",
        },
        "streamable": {"type": "streamable-http", "url": "https://a.test/mcp"},
        "cline-http": {"transportType": "streamableHttp", "url": "https://b.test/mcp"},
        "escape": {"command": "srv", "envFile": "../../etc/passwd"},
        "broken": {"command": "srv", "env": {"TOKEN": "${ZEN_TEST_MCP_UNSET}"}},
    }
    # A byte-order mark, as editors on Windows write it.
    (tmp_path / ".mcp.json").write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"mcpServers": entries}).encode()
    )
    warnings: list[str] = []
    trusted = Config()
    trusted._project_trusted = True
    servers = collect_servers(trusted, tmp_path, warn=warnings.append)
    assert list(servers) == ["cline", "streamable", "cline-http"]
    cline = servers["cline"]
    assert cline.env == {"API_KEY": "from-file", "REGION": "us"}
    assert (cline.auto_approve, cline.timeout) == (["read_thing"], 45)
    assert servers["streamable"].url == "https://a.test/mcp"
    assert len(warnings) == 2, warnings
    assert "'escape'" in warnings[0] and "outside the project" in warnings[0]
    assert "'broken'" in warnings[1] and "${ZEN_TEST_MCP_UNSET} not set" in warnings[1]
    perms: dict[str, Any] = {"mcp__cline__write_thing": "deny"}
    assert mcp_level(perms, "cline", "mcp__cline__read_thing", approved=True) == "auto"
    assert mcp_level({"mcp__*": "deny"}, "cline", "mcp__cline__read_thing", True) == "deny"


def test_unset_variable_in_zen_config_skips_only_that_server(tmp_path: Path, home: Path) -> None:
    (tmp_path / ".zen").mkdir()
    (tmp_path / ".zen" / "config.yaml").write_text(
        "mcp_servers:\n"
        "  docs: {url: 'https://d.test/mcp', headers: {Authorization: 'Bearer ${DOCS_TOKEN}'}}\n"
        "  time: {command: mcp-server-time}\n"
    )
    config = load_config(tmp_path, env={"HOME": str(home), "USERPROFILE": str(home)}, trusted=True)
    assert list(config.mcp_servers) == ["time"]
    warnings: list[str] = []
    assert list(collect_servers(config, tmp_path, warn=warnings.append)) == ["time"]
    [warning] = warnings
    assert "'docs' skipped" in warning and "DOCS_TOKEN is not set" in warning
    assert "config.yaml" in warning


@pytest.mark.parametrize(
    ("content", "problem"),
    [("{not json", "not valid JSON"), ('{"servers": {}}', "mcpServers"), ("[1]", "mcpServers")],
)
def test_broken_mcp_json_is_a_warning_not_a_crash(
    tmp_path: Path, content: str, problem: str
) -> None:
    (tmp_path / ".mcp.json").write_text(content)
    warnings: list[str] = []
    assert read_mcp_json(tmp_path / ".mcp.json", warnings.append) == {}
    assert len(warnings) == 1 and problem in warnings[0] and ".mcp.json" in warnings[0]
    config = Config(mcp_servers={"mine": McpServer(command="x")})
    assert list(collect_servers(config, tmp_path, warn=lambda _: None)) == ["mine"]


def test_results_render_text_json_and_binaries() -> None:
    wav = b"RIFF" + bytes(96)
    result = CallToolResult(
        content=[
            TextContent(type="text", text="first"),
            ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"),
            AudioContent(type="audio", data=base64.b64encode(wav).decode(), mime_type="audio/wav"),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(
                    uri="file:///a.bin", blob=base64.b64encode(b"123").decode(), mime_type="x/y"
                ),
            ),
            ResourceLink(type="resource_link", name="log", uri="file:///log.txt"),
        ]
    )
    rendered = render_result(result)
    assert rendered.ok
    assert rendered.output.splitlines() == [
        "first",
        "[image: image/png, 67 bytes]",
        "[audio: audio/wav, 100 bytes]",
        "[resource file:///a.bin: x/y, 3 bytes]",
        "[resource link: log file:///log.txt]",
    ]
    only_data = render_result(CallToolResult(content=[], structured_content={"n": 1}))
    assert only_data.output == '{"n": 1}'
    failed = render_result(
        CallToolResult(content=[TextContent(type="text", text="nope")], is_error=True)
    )
    assert not failed.ok and "nope" in failed.output


# ---------------------------------------------------------------- one shared set of servers


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with HttpServer(TOKEN, tmp_path_factory.mktemp("http") / "server.log") as server:
        yield server


@dataclass
class Live:
    manager: McpManager
    root: Path
    log: Path
    started_in: float


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def live(
    tmp_path_factory: pytest.TempPathFactory, http_server: HttpServer
) -> AsyncIterator[Live]:
    root = tmp_path_factory.mktemp("workspace")
    command, args = stdio_command()
    _, once = stdio_command("--once", str(root / "flaky-started"))
    servers = {
        "time": McpServer(command=str(TIME_SERVER)),
        "fake": McpServer(command=command, args=args),
        "flaky": McpServer(command=command, args=once),
        "web": McpServer(
            url=http_server.url, headers={"Authorization": f"Bearer {TOKEN}", "X-Zen-Test": "yes"}
        ),
        "locked": McpServer(url=http_server.url),
        "broken": McpServer(command="zen-no-such-command"),
    }
    permissions: dict[str, Any] = {"mcp__fake": "auto", "mcp__fake__fail": "deny"}
    manager = McpManager(servers, root, root / "logs" / "mcp.log", permissions)
    began = time.monotonic()
    await manager.start(timeout=30)
    yield Live(manager, root, root / "logs" / "mcp.log", time.monotonic() - began)
    await manager.stop()


@pytest.mark.e2e
@module_loop
async def test_servers_start_together_and_failures_say_why(live: Live) -> None:
    status = {s.name: s for s in live.manager.status()}
    assert {name: s.state for name, s in status.items()} == {
        "time": "running",
        "fake": "running",
        "flaky": "running",
        "web": "running",
        "locked": "failed",
        "broken": "failed",
    }
    assert status["broken"].error == "command not found: zen-no-such-command"
    assert status["locked"].error is not None and "401" in status["locked"].error
    assert status["time"].kind == "stdio" and status["web"].kind == "http"
    assert status["time"].tools == ["mcp__time__get_current_time", "mcp__time__convert_time"]
    assert "mcp__fake__odd_name_with_spaces" in status["fake"].tools
    text = format_status(live.manager.status())
    assert "broken (stdio): failed: command not found: zen-no-such-command" in text
    assert "time (stdio): running, 2 tools" in text
    assert live.started_in < 25  # concurrently: far below five sequential starts under load


@module_loop
async def test_time_server_tool_is_described_and_called(live: Live) -> None:
    tool = find(live.manager, "mcp__time__get_current_time")
    schema = tool.schema()["function"]
    assert schema["name"] == "mcp__time__get_current_time"
    assert schema["description"] == "Get current time in a specific timezone"
    assert schema["parameters"]["required"] == ["timezone"]
    assert schema["parameters"]["properties"]["timezone"]["type"] == "string"
    assert "title" not in schema["parameters"]
    assert tool.level == "confirm" and tool.read_only
    result = await call(
        live.manager, "mcp__time__get_current_time", live.root, timezone="Asia/Tokyo"
    )
    assert result.ok, result.output
    data = json.loads(result.output)
    assert data["timezone"] == "Asia/Tokyo" and data["datetime"].endswith("+09:00")
    wrong = await call(live.manager, "mcp__time__get_current_time", live.root)
    assert not wrong.ok and "timezone" in wrong.output


@module_loop
async def test_permission_overrides_apply_per_server_and_per_tool(live: Live) -> None:
    assert find(live.manager, "mcp__fake__echo").level == "auto"
    assert find(live.manager, "mcp__fake__fail").level == "deny"
    assert find(live.manager, "mcp__web__echo").level == "confirm"


@module_loop
async def test_http_server_gets_the_configured_headers(live: Live) -> None:
    result = await call(live.manager, "mcp__web__header", live.root, name="X-Zen-Test")
    assert (result.ok, result.output) == (True, "yes")
    stats = await call(live.manager, "mcp__web__stats", live.root, word="zen")
    assert json.loads(stats.output) == {"word": "zen", "length": 3, "upper": "ZEN"}


@module_loop
async def test_tool_errors_are_failed_results(live: Live) -> None:
    failed = await call(live.manager, "mcp__fake__fail", live.root, message="disk on fire")
    assert not failed.ok and "disk on fire" in failed.output
    echo = find(live.manager, "mcp__fake__echo")
    ghost = McpTool("mcp__fake__ghost", RemoteTool("ghost"), echo.caller, "auto")
    unknown = await ghost.execute(McpParams(), context(live.root))
    assert not unknown.ok and "Unknown tool: ghost" in unknown.output


@module_loop
async def test_images_are_described_not_dumped(live: Live) -> None:
    result = await call(live.manager, "mcp__fake__picture", live.root)
    assert (result.ok, result.output) == (True, "[image: image/png, 67 bytes]")


@pytest.mark.e2e
@module_loop
async def test_crashed_server_is_restarted_once_and_the_call_succeeds(live: Live) -> None:
    first = await call(live.manager, "mcp__fake__pid", live.root)
    pid = int(first.output)
    assert (await call(live.manager, "mcp__fake__exit_soon", live.root)).ok
    assert await wait_gone(pid)
    await wait_state(live.manager, "fake", "exited")
    exited = next(s for s in live.manager.status() if s.name == "fake")
    # The server's start-up warnings reach zen's stderr reader on a thread of their own: on a
    # loaded machine they may be read after the start was marked, and then count as its reason.
    assert exited.error is not None and exited.error.startswith("server exited")
    assert exited.tools == []
    again = await call(live.manager, "mcp__fake__echo", live.root, text="still here")
    assert (again.ok, again.output) == (True, "still here")
    new_pid = int((await call(live.manager, "mcp__fake__pid", live.root)).output)
    assert new_pid != pid
    fake = next(s for s in live.manager.status() if s.name == "fake")
    assert (fake.state, fake.restarts) == ("running", 1)
    assert "fake (stdio): running, 16 tools (restarted 1x)" in format_status(live.manager.status())
    assert "server fake: it had stopped; restarting it" in live.log.read_text()


@pytest.mark.e2e
@module_loop
async def test_failed_restart_reports_the_server_down(live: Live) -> None:
    pid = int((await call(live.manager, "mcp__flaky__pid", live.root)).output)
    await call(live.manager, "mcp__flaky__exit_soon", live.root)
    assert await wait_gone(pid)
    await wait_state(live.manager, "flaky", "exited")
    down = await call(live.manager, "mcp__flaky__echo", live.root, text="hi")
    assert not down.ok
    assert "MCP server 'flaky' is down" in down.output
    assert "refusing to start twice" in down.output
    began = time.monotonic()
    still = await call(live.manager, "mcp__flaky__echo", live.root, text="hi")
    assert not still.ok and "is down" in still.output
    assert time.monotonic() - began < 0.5  # no second restart
    flaky = next(s for s in live.manager.status() if s.name == "flaky")
    assert flaky.state == "failed" and flaky.tools == []


# ---------------------------------------------------------------- servers of their own


@pytest.mark.e2e
async def test_http_server_that_went_away_is_reconnected_on_the_next_call(tmp_path: Path) -> None:
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with HttpServer(TOKEN, tmp_path / "first.log") as first:
        manager = McpManager(
            {"web": McpServer(url=first.url, headers=headers)}, tmp_path, tmp_path / "mcp.log"
        )
        await manager.start(timeout=20)
        before = await call(manager, "mcp__web__pid", tmp_path)
    try:
        with HttpServer(TOKEN, tmp_path / "second.log", port=first.port):
            after = await call(manager, "mcp__web__pid", tmp_path)
            assert after.ok and after.output != before.output
        gone = await call(manager, "mcp__web__echo", tmp_path, text="x")
        assert not gone.ok and "MCP server 'web' is down (cannot reach" in gone.output
    finally:
        await manager.stop()


@pytest.mark.e2e
async def test_server_that_never_answers_times_out_on_time(tmp_path: Path) -> None:
    manager = McpManager({"mute": hang_server()}, tmp_path, tmp_path / "mcp.log")
    began = time.monotonic()
    await manager.start(timeout=1.0)
    waited = time.monotonic() - began
    try:
        [status] = manager.status()
        assert (status.state, status.error) == ("failed", "no answer within 1s")
        assert 0.9 < waited < 2.0
        assert manager.tools() == []
    finally:
        await manager.stop()


@pytest.mark.e2e
async def test_stop_leaves_no_processes_and_nothing_reaches_the_terminal(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    command, args = stdio_command()
    log = tmp_path / "logs" / "mcp.log"
    servers = {
        "fake": McpServer(command=command, args=args),
        "garbled": hang_server("print('this is not json-rpc', flush=True)", start_timeout=1.0),
    }
    manager = McpManager(servers, tmp_path, log)
    await manager.start(timeout=20)
    pid = int((await call(manager, "mcp__fake__pid", tmp_path)).output)
    assert (await call(manager, "mcp__fake__noise", tmp_path)).ok
    garbled = next(s for s in manager.status() if s.name == "garbled")
    assert garbled.state == "failed"
    began = time.monotonic()
    await manager.stop()
    assert time.monotonic() - began < 5
    assert await wait_gone(pid, within=1.0)
    assert {s.state for s in manager.status()} == {"stopped", "failed"}
    late = await call(manager, "mcp__fake__pid", tmp_path)
    assert (late.ok, late.output) == (False, "Error: MCP server 'fake' is stopped")

    captured = capfd.readouterr()
    assert (captured.out, captured.err) == ("", "")
    text = log.read_text()
    assert f"server fake stderr: {STDERR_MARKER}" in text
    assert "this is not json" in text  # the fake's stray stdout, which its SDK sends to stderr
    assert "Failed to parse JSONRPC message from server" in text  # the `mcp` logger
    routed = [h for h in logging.getLogger("mcp").handlers if isinstance(h, logging.FileHandler)]
    assert all(Path(h.baseFilename) != log for h in routed)  # this manager's routing is undone


async def test_mcp_list_starts_lists_and_stops(
    tmp_path: Path, http_server: HttpServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZEN_TEST_MCP_TOKEN", TOKEN)
    entry = {
        "type": "http",
        "url": http_server.url,
        "headers": {"Authorization": "Bearer ${ZEN_TEST_MCP_TOKEN}"},
    }
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"web": entry}}))
    config = Config(mcp_servers={"broken": McpServer(command="zen-no-such-command")})
    config._project_trusted = True
    text, all_started = await mcp_list(config, tmp_path, tmp_path / "mcp.log")
    assert not all_started
    assert "broken (stdio): failed: command not found: zen-no-such-command" in text
    assert "web (http): running, 16 tools" in text
    assert "    mcp__web__echo" in text
    assert f"Server logs: {tmp_path / 'mcp.log'}" in text

    off = Config(features=Features(mcp="off"), mcp_servers=config.mcp_servers)
    assert await mcp_list(off, tmp_path, tmp_path / "mcp.log") == (
        "MCP is off (features.mcp: off).",
        True,
    )
    (tmp_path / ".mcp.json").write_text("{broken")
    trusted = Config()
    trusted._project_trusted = True
    none, ok = await mcp_list(trusted, tmp_path, tmp_path / "mcp.log")
    assert ok
    assert none.startswith("warning: ") and "No MCP servers configured" in none


# ---------------------------------------------------------------- at most once, deadlines


@pytest.mark.e2e
async def test_server_killed_mid_call_runs_it_once_and_restarts_for_the_next(
    tmp_path: Path,
) -> None:
    command, args = stdio_command()
    manager = McpManager(
        {"fake": McpServer(command=command, args=args)}, tmp_path, tmp_path / "mcp.log"
    )
    await manager.start(timeout=20)
    counter = tmp_path / "runs.txt"
    try:
        pid = int((await call(manager, "mcp__fake__pid", tmp_path)).output)
        async with anyio.create_task_group() as tg:
            results: list[ToolResult] = []

            async def slow_call() -> None:
                results.append(
                    await call(manager, "mcp__fake__count", tmp_path, path=str(counter), seconds=30)
                )

            tg.start_soon(slow_call)
            with anyio.fail_after(10):
                while not counter.exists():
                    await anyio.sleep(0.02)
            os.kill(pid, signal.SIGKILL)
        [result] = results
        assert not result.ok
        assert "the server stopped while running this call; it may have partly run" in (
            result.output
        )
        assert counter.read_text().splitlines() == [str(pid)]  # exactly one execution
        again = await call(manager, "mcp__fake__pid", tmp_path)
        assert again.ok and int(again.output) != pid  # restarted for the next call
        assert counter.read_text().splitlines() == [str(pid)]  # and not run again
        [status] = manager.status()
        assert (status.state, status.restarts) == ("running", 1)
    finally:
        await manager.stop()


@pytest.mark.e2e
async def test_hung_call_and_unparseable_reply_end_at_the_servers_timeout(
    tmp_path: Path,
) -> None:
    command, args = stdio_command()
    manager = McpManager(
        {"fake": McpServer(command=command, args=args, timeout=1.5)},
        tmp_path,
        tmp_path / "mcp.log",
    )
    await manager.start(timeout=20)
    try:
        began = time.monotonic()
        hung = await call(
            manager, "mcp__fake__count", tmp_path, path=str(tmp_path / "c"), seconds=60
        )
        assert 1.4 < time.monotonic() - began < 4
        assert not hung.ok
        assert "did not answer count within 1.5s" in hung.output and "timeout" in hung.output
        began = time.monotonic()
        garbled = await call(manager, "mcp__fake__garble", tmp_path)
        assert time.monotonic() - began < 4
        assert not garbled.ok and "did not answer garble within 1.5s" in garbled.output
        assert "not valid MCP" in garbled.output
        still = await call(manager, "mcp__fake__echo", tmp_path, text="alive")
        assert (still.ok, still.output) == (True, "alive")  # a slow call costs only itself
    finally:
        await manager.stop()


def test_default_call_timeout_is_well_under_ten_minutes() -> None:
    spec = McpServer(command="x")
    assert spec.timeout <= 120 and spec.start_timeout <= 30

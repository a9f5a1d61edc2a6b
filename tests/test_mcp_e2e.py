"""MCP through the front door: `zen -p` and `zen mcp list` with servers from the config,
a real stdio server from PyPI, the SDK's HTTP server, and one that cannot start."""

from __future__ import annotations

import json
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.mcp_servers import HttpServer
from tests.fakes.server import call, text, tool_calls

pytestmark = pytest.mark.e2e

# The console script beside this Python's (bin/ on POSIX, Scripts\*.exe on Windows).
TIME_SERVER = Path(sysconfig.get_path("scripts")) / (
    "mcp-server-time.exe" if sys.platform == "win32" else "mcp-server-time"
)
TOKEN = "e2e-token"


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    with HttpServer(TOKEN, tmp_path_factory.mktemp("mcp-http") / "server.log") as server:
        yield server


def configure(project: Path, http_server: HttpServer, extra: str = "") -> None:
    (project / ".zen").mkdir(exist_ok=True)
    (project / ".zen" / "config.yaml").write_text(
        "mcp_servers:\n"
        f"  time: {{command: '{TIME_SERVER}', args: ['--local-timezone', 'UTC']}}\n"
        f"  docs: {{url: '{http_server.url}',"
        " headers: {Authorization: 'Bearer ${DOCS_TOKEN}'}}\n"
        "  broken: {command: zen-no-such-server}\n" + extra
    )


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_mcp_tools_called_end_to_end(fake_llm, run_zen, project: Path, http_server) -> None:
    configure(project, http_server)
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("mcp__time__get_current_time", {"timezone": "UTC"}),
                    call("mcp__docs__echo", {"text": "hello docs"}),
                ]
            ),
            text("It is time."),
        ]
    )
    done = run_zen(
        "-p",
        "what time is it",
        "--yes",
        "--trust",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        env={"DOCS_TOKEN": TOKEN},
    )
    assert done.code == 0, done.err
    assert done.out.strip() == "It is time."
    offered = tool_names(fake.requests[0])
    assert {"mcp__time__get_current_time", "mcp__docs__echo"} <= offered
    assert not any(name.startswith("mcp__broken") for name in offered)
    assert "broken" in done.err and "zen-no-such-server" in done.err
    clock, echo = tool_results(fake.requests[1])
    assert '"timezone":"UTC"' in clock.replace(" ", "") and "datetime" in clock
    assert "hello docs" in echo


def test_mcp_tools_need_confirmation_by_default(
    fake_llm, run_zen, project: Path, http_server
) -> None:
    configure(project, http_server, "permissions: {mcp__docs: auto}\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("mcp__time__get_current_time", {"timezone": "UTC"}),
                    call("mcp__docs__echo", {"text": "free"}),
                ]
            ),
            text("ok"),
        ]
    )
    done = run_zen(
        "-p",
        "time",
        "--trust",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        env={"DOCS_TOKEN": TOKEN},
    )
    assert done.code == 7, done.err  # the run went on; the refusal is reported at the end
    clock, echo = tool_results(fake.requests[1])
    assert "needs confirmation" in clock
    assert "free" in echo


def test_mcp_feature_off_starts_nothing(fake_llm, run_zen, project: Path, http_server) -> None:
    configure(project, http_server, "features: {mcp: off}\n")
    fake = fake_llm([text("ok")])
    done = run_zen(
        "-p",
        "hi",
        "--trust",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        env={"DOCS_TOKEN": TOKEN},
    )
    assert done.code == 0, done.err
    assert not any(name.startswith("mcp__") for name in tool_names(fake.requests[0]))
    assert "broken" not in done.err


def test_mcp_json_of_another_agent_works(fake_llm, run_zen, project: Path) -> None:
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"clock": {"command": str(TIME_SERVER)}}})
    )
    fake = fake_llm([text("ok"), text("ok")])
    done = run_zen("-p", "hi", "--base-url", fake.base_url, "--api-key", "k")
    assert done.code == 0 and "ignored .mcp.json" in done.err
    assert "tools" not in fake.requests[0] or not any(
        name.startswith("mcp__") for name in tool_names(fake.requests[0])
    )
    assert run_zen("trust").code == 0
    assert run_zen("-p", "hi", "--base-url", fake.base_url, "--api-key", "k").code == 0
    assert "mcp__clock__get_current_time" in tool_names(fake.requests[1])


def test_zen_mcp_list(run_zen, project: Path, http_server) -> None:
    configure(project, http_server)
    done = run_zen("mcp", "list", "--trust", env={"DOCS_TOKEN": TOKEN})
    assert done.code == 9, done.err  # a server failed: exits.MCP_FAILED
    assert "time (stdio): running, 2 tools" in done.out
    assert "docs (http): running" in done.out
    assert "broken (stdio): failed: command not found: zen-no-such-server" in done.out

"""MCP when its SDK cannot be imported (a broken install: `mcp` is a dependency), through the
front doors: each server is named with the reason and the install command, never a traceback;
`-p` warns on stderr and still answers; the shell's `/mcp` and `/mcp restart` say why."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.fakes.server import text
from tests.test_shell_pty import shell  # noqa: F401  (the pty fixture)

INSTALL = "pip install 'mcp>=2.3,<3'"


@pytest.fixture
def no_mcp(tmp_path: Path, project: Path) -> dict[str, str]:
    """An environment where `import mcp` fails as on an install without it, and a folder
    whose .mcp.json configures one server."""
    shim = tmp_path / "shim" / "mcp"
    shim.mkdir(parents=True)
    (shim / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'mcp'\", name='mcp')\n"
    )
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"demo": {"command": sys.executable}}})
    )
    return {"PYTHONPATH": os.pathsep.join([str(shim.parent), str(ROOT)])}


def test_mcp_list_names_the_server_and_the_install_command(run_zen: Any, no_mcp: Any) -> None:
    done = run_zen("mcp", "list", "--trust", env=no_mcp)
    assert done.code == 9, done.err  # exits.MCP_FAILED
    assert "Traceback" not in done.err + done.out
    assert "demo (stdio): failed: the MCP SDK cannot be imported" in done.out
    assert INSTALL in done.out


def test_print_mode_warns_and_still_answers(fake_llm: Any, run_zen: Any, no_mcp: Any) -> None:
    fake = fake_llm([text("answered")])
    done = run_zen("-p", "hi", "--trust", "--base-url", fake.base_url, "--api-key", "k", env=no_mcp)
    assert done.code == 0, done.err
    assert done.out.strip() == "answered"
    assert "MCP server demo is not available: the MCP SDK cannot be imported" in done.err
    assert INSTALL in done.err and "Traceback" not in done.err


@pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty")
def test_the_shell_says_why_and_restart_does_not_hang(shell: Any, no_mcp: Any) -> None:  # noqa: F811
    zen, _ = shell([], "--trust", env=no_mcp)
    zen.expect("warning: MCP server demo is not available: the MCP SDK cannot be imported")
    shown = zen.task("/mcp")
    assert "demo (stdio): failed: the MCP SDK cannot be imported" in shown
    restarted = zen.task("/mcp restart")  # answered within the pty's deadline, not `starting`
    assert "demo: failed: the MCP SDK cannot be imported" in restarted
    assert "Traceback" not in "\n".join(zen.lines())
    assert zen.exit() == 0


def test_mcp_help_exits_zero(run_zen: Any) -> None:
    done = run_zen("mcp", "--help")
    assert done.code == 0 and "list" in done.out
    assert run_zen("mcp").code == 2  # an action is required

"""Private by default (issue 19): what zen keeps under ~/.zen is the user's alone, and no
secret (API key, MCP env or header value) is written there or printed."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.mcp_servers import stdio_command
from tests.fakes.server import status, text
from zen.base.redaction import redact, remember, scrub

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")

API_KEY = "sk-live-0123456789abcdefSECRET"
MCP_SECRET = "mcp-env-value-4242-SECRET"


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def modes(home: Path) -> dict[str, int]:
    """Every path under ~/.zen with its permission bits."""
    root = home / ".zen"
    found = {".zen": stat.S_IMODE(os.lstat(root).st_mode)}
    for path in root.rglob("*"):
        found[str(path.relative_to(home))] = stat.S_IMODE(os.lstat(path).st_mode)
    return found


def assert_private(home: Path) -> None:
    for name, mode in modes(home).items():
        path = home / name
        wanted = {0o700} if path.is_dir() else {0o600}
        if "/snapshots/" in name and not path.is_dir():
            wanted.add(0o400)  # git's own objects and packs are read-only: still private
        assert mode in wanted, f"{name}: {oct(mode)}"


def everything_under(home: Path) -> str:
    return "\n".join(
        p.read_text(errors="replace") for p in (home / ".zen").rglob("*") if p.is_file()
    )


def printing_server() -> dict[str, Any]:
    """The fake stdio MCP server, started through a wrapper that prints its env to stderr."""
    command, args = stdio_command()
    wrapper = (
        "import os, sys; sys.stderr.write('env: ' + repr(dict(os.environ)) + '\\n'); "
        "sys.stderr.flush(); os.execv(sys.argv[1], sys.argv[1:])"
    )
    return {
        "command": command,
        "args": ["-c", wrapper, command, *args],
        "env": {"SERVICE_TOKEN": MCP_SECRET},
    }


def test_a_run_a_shell_and_an_mcp_start_leave_everything_private(
    umask_022: None, fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"p": printing_server()}}))
    fake = fake_llm([text("ok")])
    done = run_zen("-p", "hi", "--trust", "--base-url", fake.base_url, "--api-key", API_KEY)
    assert done.code == 0, done.err
    assert (home / ".zen" / "logs" / "mcp.log").is_file()
    assert_private(home)
    log = (home / ".zen" / "logs" / "mcp.log").read_text()
    assert "env: " in log, "the server's stderr reached the log"
    assert MCP_SECRET not in log and API_KEY not in log
    assert MCP_SECRET not in done.err

    from tests.test_shell_pty import Zen

    zen = Zen(fake_llm([text("hello")]), project, home, "--trust")
    try:
        zen.task("say hi")
        assert zen.exit() == 0
    finally:
        zen.close()
    (history,) = (home / ".zen" / "history").iterdir()  # one file per workspace
    assert "say hi" in history.read_text()
    assert run_zen("trust").code == 0
    assert (home / ".zen" / "trusted.yaml").is_file()
    assert_private(home)
    assert MCP_SECRET not in everything_under(home)


def test_wider_existing_state_is_tightened_once_with_a_notice(
    umask_022: None, fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    (home / ".zen" / "logs").mkdir(parents=True)
    os.chmod(home / ".zen", 0o755)
    os.chmod(home / ".zen" / "logs", 0o755)
    (home / ".zen" / "logs" / "mcp.log").write_text("old\n")
    os.chmod(home / ".zen" / "logs" / "mcp.log", 0o644)
    command, args = stdio_command()
    (project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"s": {"command": command, "args": args}}})
    )
    fake = fake_llm([text("ok"), text("ok")])
    done = run_zen("-p", "hi", "--trust", "--base-url", fake.base_url, "--api-key", "k")
    assert done.code == 0, done.err
    assert_private(home)
    notes = [line for line in done.err.splitlines() if line.startswith("zen: note:")]
    assert len(notes) == 3 and all("now private to you" in line for line in notes)
    done = run_zen("-p", "hi", "--trust", "--base-url", fake.base_url, "--api-key", "k")
    assert "zen: note:" not in done.err  # once


def test_a_401_echoing_the_key_shows_it_nowhere(
    fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"p": printing_server()}}))
    fake = fake_llm([status(401, message=f"Incorrect API key provided: {API_KEY}")])
    done = run_zen("-p", "hi", "--trust", "--base-url", fake.base_url, env={"ZEN_API_KEY": API_KEY})
    assert done.code == 1
    assert "authentication failed" in done.err and redact(API_KEY) in done.err
    assert API_KEY not in done.err and API_KEY not in done.out
    assert API_KEY not in everything_under(home) and MCP_SECRET not in everything_under(home)


def test_scrub_replaces_remembered_secrets_and_bearer_tokens() -> None:
    remember("Bearer tok-abcdefgh12345678", "short", None)
    assert scrub("sent tok-abcdefgh12345678 and short") == "sent tok…5678 and short"
    assert redact("sk-0123456789abcdefXYZW") == "sk-…XYZW"
    assert redact("tiny") == "…" and redact(None) == "none"


@pytest.mark.e2e
def test_model_command_names_the_key_for_each_host_redacted(
    fake_llm: Any, project: Path, home: Path
) -> None:
    from tests.test_shell_pty import Zen

    zen = Zen(fake_llm([]), project, home, env={})
    try:
        out = zen.task("/model")
        assert "main: fake-model at http" in out and "key … (--api-key)" in out
        assert "test-key" not in out
        zen.exit()
    finally:
        zen.close()


def test_a_key_printed_by_a_tool_is_not_saved_under_zen_home(
    fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    from tests.fakes.server import call, tool_calls

    fake = fake_llm(
        [tool_calls([call("bash", {"command": "echo key=$DEEPSEEK_API_KEY"})]), text("done")]
    )
    (home / ".zen").mkdir(mode=0o700)
    (home / ".zen" / "config.yaml").write_text("bash_inherits_keys: true\n")  # off by default
    done = run_zen(
        "-p",
        "show it",
        "--yes",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        env={"DEEPSEEK_API_KEY": API_KEY},
    )
    assert done.code == 0, done.err
    assert API_KEY in json.dumps(fake.requests[1])  # the model did see the tool's output
    saved = "\n".join(
        p.read_bytes().decode("utf-8", "replace") for p in (home / ".zen").rglob("*") if p.is_file()
    )
    assert API_KEY not in saved and API_KEY not in done.err
    assert f"key={redact(API_KEY)}" in saved  # the session was saved, with the key redacted


def test_a_user_config_holding_a_key_is_made_private_with_a_notice(
    umask_022: None, fake_llm: Any, run_zen: Any, home: Path
) -> None:
    """A `~/.zen/config.yaml` written by hand (0644) with `api_key: sk-…` in it stayed
    readable by others."""
    config = home / ".zen" / "config.yaml"
    config.parent.mkdir(mode=0o700)
    fake = fake_llm([text("ok"), text("ok")])
    config.write_text(f"api_key: sk-literal-key-0123456789\nbase_url: {fake.base_url}\n")
    os.chmod(config, 0o644)
    done = run_zen("-p", "hi")
    assert done.code == 0, done.err
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert f"zen: note: {config} was readable by others; it is now private to you" in done.err
    assert "zen: note:" not in run_zen("-p", "hi").err  # once

"""The bash sandbox end to end: `zen -p` against the fake server, commands in a real bwrap.

Each test scripts one bash call, runs zen as a subprocess and reads what the model was told
(the tool result in the next request) and what is on disk. Skipped, with the reason, where
bubblewrap cannot create a sandbox.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from zen.tools.sandbox.run import UNSANDBOXED
from zen.tools.sandbox.runner import probe_now

_found = probe_now()
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
]
needs_bwrap = pytest.mark.skipif(
    _found.program is None, reason=f"no working sandbox here: {_found.problem}"
)


def bash(fake_llm: Any, run_zen: Any, command: str, *flags: str, **kw: Any) -> tuple[Any, str]:
    """Run one bash call through `zen -p`; (the run, what the model was told)."""
    args = {"command": command, **kw.pop("params", {})}
    fake = fake_llm([tool_calls([call("bash", args)]), text("done")])
    done = run_zen(
        "-p", "go", "--output-format", "json", "--base-url", fake.base_url,
        "--model", "fake-model", *flags, **kw,
    )  # fmt: skip
    assert "Traceback" not in done.err, done.err
    last = fake.requests[-1]["messages"] if fake.requests else []
    told = [m["content"] for m in last if m["role"] == "tool"]
    return done, told[0] if told else ""


def env(**extra: str) -> dict[str, str]:
    return {"ZEN_API_KEY": "sk-zen-secret-key", **extra}


def config(home: Path, body: str) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(body)


@needs_bwrap
def test_writes_only_inside_the_workspace_and_checkpoints_see_them(
    fake_llm, run_zen, project: Path, tmp_path: Path, var_tmp: Path
) -> None:
    outside = tmp_path / "outside.txt"  # /tmp is the command's own: written there, not here
    var = var_tmp
    cmd = (
        f"echo in > made.txt; echo out > {outside}; echo out > {var}; "
        "echo tmp > $TMPDIR/t && cat $TMPDIR/t"
    )
    done, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert (project / "made.txt").read_text() == "in\n"
    assert not outside.exists() and not var.exists()
    assert "Read-only file system" in told and "tmp" in told
    assert json.loads(done.out)["files_changed"] == ["made.txt"]


@needs_bwrap
def test_escapes_fail(fake_llm, run_zen, project: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    cmd = (
        f"ln -s {out} link; echo a > link/a; echo b > /proc/self/root{out}/b; "
        "echo c > ../out/c; mount -t tmpfs none link && echo MOUNTED; "
        "grep -E 'NoNewPrivs|CapEff' /proc/self/status; su -c 'echo ROOTED' root </dev/null"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert list(out.iterdir()) == []
    assert "MOUNTED" not in told and "ROOTED" not in told
    assert "NoNewPrivs:\t1" in told and "CapEff:\t0000000000000000" in told


@needs_bwrap
def test_workspace_configuration_stays_as_it_was(fake_llm, run_zen, project: Path) -> None:
    hooks = project / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\n")
    (hooks / "pre-commit").chmod(0o755)
    (project / ".git" / "config").write_text("[core]\n")
    cmd = (
        "echo evil > .git/hooks/pre-commit; echo '[alias]' >> .git/config; "
        "mkdir -p .zen && echo 'sandbox: off' > .zen/config.yaml; echo evil > .envrc; "
        "echo '{}' > .mcp.json; mv .git .git-old && mkdir -p .git/hooks && "
        "echo evil > .git/hooks/post-checkout; echo kept > notes.txt"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert sorted(p.name for p in hooks.iterdir()) == ["pre-commit"]
    assert (hooks / "pre-commit").stat().st_mode & 0o777 == 0o755
    assert (project / ".git" / "config").read_text() == "[core]\n"
    for planted in (".zen", ".envrc", ".mcp.json"):
        assert not (project / planted).exists(), planted
    assert (project / "notes.txt").read_text() == "kept\n"
    assert "the sandbox undid changes to" in told


@needs_bwrap
def test_secrets_are_hidden(fake_llm, run_zen, home: Path) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")
    (home / ".netrc").write_text("machine x password hunter2\n")
    secrets = env(GITHUB_TOKEN="ghp_tok", AWS_SECRET_ACCESS_KEY="aws_sec", MY_SERVICE_KEY="svc_k")
    secrets.update(SSH_AUTH_SOCK="/tmp/agent.sock", PLAIN_SETTING="visible", LANG="C.UTF-8")
    cmd = (
        "cat ~/.ssh/id_rsa ~/.netrc; env; "
        "cat /proc/*/environ /proc/*/cmdline 2>/dev/null | tr '\\0' '\\n'"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=secrets)
    for secret in ("PRIVATE KEY", "hunter2", "ghp_tok", "aws_sec", "svc_k", "agent.sock"):
        assert secret not in told, secret
    assert "sk-zen-secret-key" not in told
    assert "PLAIN_SETTING" not in told and "LANG=C.UTF-8" in told  # an allow-list


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP server on the host's loopback that answers `hello`."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(20)

    def serve() -> None:
        try:
            conn, _ = server.accept()
            conn.sendall(b"hello\n")
            conn.close()
        except OSError:
            pass

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1]
    server.close()


@needs_bwrap
@pytest.mark.parametrize("network", ["off", "on"])
def test_network_only_when_allowed(
    fake_llm, run_zen, home: Path, listener: int, network: str
) -> None:
    config(home, f"sandbox_options: {{network: {network}}}\n")
    cmd = f"{sys.executable} -c \"import socket; print(socket.create_connection(('127.0.0.1', {listener}), 3).recv(9))\""  # noqa: E501
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert ("b'hello\\n'" in told) == (network == "on"), told


def _marked(tag: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and tag in (entry / "cmdline").read_text():
                found.append(int(entry.name))
        except OSError:
            pass
    return found


@needs_bwrap
def test_deadline_kills_the_command_and_its_children(fake_llm, run_zen) -> None:
    cmd = "(setsid sleep 301.25 &); sleep 301.5"
    started = time.monotonic()
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env(), params={"timeout": 2})
    assert time.monotonic() - started < 30
    assert "timed out after 2 s" in told
    assert _marked("301.25") == [] and _marked("301.5") == []


def test_on_without_bwrap_runs_nothing(fake_llm, run_zen, home: Path, project: Path) -> None:
    config(home, "sandbox_options: {program: /nonexistent/bwrap}\n")
    done, told = bash(fake_llm, run_zen, "echo > made", "--yes", "--sandbox", "on", env=env())
    assert not (project / "made").exists()
    assert "sandbox is on, so nothing ran: sandbox_options.program: /nonexistent/bwrap" in told
    script = [tool_calls([call("bash", {"command": f"echo > made{n}"})]) for n in range(2)]
    fake = fake_llm([*script, text("done")])
    done = run_zen("-p", "go", "--yes", "--base-url", fake.base_url, "--model", "m", env=env())
    told = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert (project / "made0").exists() and (project / "made1").exists()
    assert told[0].startswith(UNSANDBOXED) and "sandbox_options" not in told[0]  # the user's
    assert not told[1].startswith("[sandbox")
    # the user is told too, once, on stderr (a typed event the front-end renders)
    assert done.err.count("sandbox unavailable, so commands run unsandboxed") == 1, done.err


@needs_bwrap
def test_leaving_the_sandbox_needs_a_person(fake_llm, run_zen, project: Path) -> None:
    params = {"unsandboxed": "needs the network"}
    done, told = bash(fake_llm, run_zen, "touch made", "--yes", env=env(), params=params)
    assert not (project / "made").exists()
    assert "needs a person's yes, and nobody is here" in told
    _, told = bash(fake_llm, run_zen, "touch made", "--sandbox", "on", env=env(), params=params)
    assert "sandbox is on: nothing runs outside it" in told and not (project / "made").exists()


@needs_bwrap
@pytest.mark.parametrize("flags", [["--yes"], []])
def test_a_refused_unsandboxed_request_exits_7_saying_so(
    fake_llm, run_zen, project: Path, flags: list[str]
) -> None:
    """Issue 40 (5): with `--yes` it exited 0 with no summary line, unlike any other refusal."""
    params = {"unsandboxed": "needs the network"}
    done, told = bash(fake_llm, run_zen, "touch made", *flags, env=env(), params=params)
    assert done.code == 7, done.err
    assert not (project / "made").exists()
    denied = json.loads(done.out)["permission_denials"]
    assert denied == [
        {"tool": "bash", "agent": "main", "args": {"command": "touch made", **params}}
    ]
    line = "zen: 1 request to run outside the sandbox refused; only a person may approve"
    assert line in done.err, done.err
    assert "rerun with --yes" not in done.err  # --yes never allows it


@needs_bwrap
def test_a_failed_sandboxed_command_says_the_rules_and_the_settings(
    fake_llm, run_zen, var_tmp: Path
) -> None:
    """Issue 40 (7): a write the sandbox refused showed only the tool's own error. Said for
    every failure (zen does not guess the cause from the output), never for a success."""
    done, told = bash(fake_llm, run_zen, f"echo x > {var_tmp}", "--yes", env=env())
    rules = "[ran sandboxed: writes only in the workspace, its own /tmp, home hidden, no network;"
    assert told.endswith(
        f"{rules} if that is why it failed: `sandbox_options.network: on`, "
        "`sandbox_options.writable`, or `unsandboxed` with a reason (a person approves)]"
    ), told
    fake = fake_llm([tool_calls([call("bash", {"command": "false"})]), text("done")])
    done = run_zen("-p", "go", "--yes", "--sandbox", "on", "--base-url", fake.base_url, env=env())
    assert "✗ bash false — exit 1 (sandboxed)" in done.err, done.err  # the user's line
    (told,) = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert told.endswith("`sandbox_options.writable`]"), told  # `on`: no way out to offer
    _, told = bash(fake_llm, run_zen, "true", "--yes", env=env())
    assert "ran sandboxed" not in told


@needs_bwrap
def test_sandboxed_permission_approves_only_sandboxed_commands(
    fake_llm, run_zen, home: Path, project: Path
) -> None:
    config(home, "permissions: {bash: sandboxed}\n")
    done, _ = bash(fake_llm, run_zen, "touch made", env=env())
    assert done.code == 0 and (project / "made").exists()
    config(home, "permissions: {bash: sandboxed}\nsandbox_options: {program: /nonexistent/bwrap}\n")
    done, told = bash(fake_llm, run_zen, "echo > other", env=env())
    assert done.code == 7 and not (project / "other").exists(), told


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("relative/dir", "is relative"),
        ("/tmp/../etc", "contains '..'"),
        ("~/.ssh", "would expose the secret"),
        ("~", "would expose the secret"),
    ],
)
def test_hostile_allow_list_entries_are_config_errors(
    fake_llm, run_zen, home: Path, entry: str, says: str
) -> None:
    config(home, f"sandbox_options: {{writable: ['{entry}']}}\n")
    done, _ = bash(fake_llm, run_zen, "true", "--yes", env=env())
    assert done.code == 2 and says in done.err, done.err


@needs_bwrap
@pytest.mark.parametrize("mode", ["auto", "on"])
def test_a_missing_writable_folder_is_left_out_never_the_sandbox(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path, mode: str, var_tmp: Path
) -> None:
    """Break 10: a command renamed the parent of a `writable` folder; `auto` then ran every
    later command unsandboxed. Now the command runs sandboxed without it, with a note."""
    parent = tmp_path / "cache-parent"
    (parent / "cache").mkdir(parents=True)
    config(home, f"sandbox_options: {{writable: ['{parent / 'cache'}']}}\n")
    parent.rename(tmp_path / "moved")
    var = var_tmp
    cmd = f"touch made; echo x > {var}; echo done"
    _, told = bash(fake_llm, run_zen, cmd, "--yes", "--sandbox", mode, env=env())
    assert f"writable: {parent / 'cache'} does not exist, so this ran sandboxed" in told
    assert (project / "made").exists() and not var.exists(), told
    assert "Read-only file system" in told


@needs_bwrap
def test_doctor_has_a_sandbox_line(run_zen) -> None:
    done = run_zen("doctor", env=env())
    assert "sandbox: auto: bwrap, writes only in the workspace" in done.out + done.err

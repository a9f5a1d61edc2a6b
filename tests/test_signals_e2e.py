"""SIGTERM and SIGHUP during a bash call end `zen -p` like Ctrl-C, leaving nothing running.

On 0.1.0 `timeout 3 zen -p ...` (SIGTERM) or a closed terminal (SIGHUP) killed zen on the spot
and the command, its `setsid` children and the MCP servers ran on under PID 1.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import reap, zen_env
from tests.fakes.server import call, text, tool_calls

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform != "linux", reason="POSIX signals; reads /proc"),
]
MCP_SERVER = Path(__file__).resolve().parent / "fakes" / "mcp_servers.py"
COMMAND = (
    "echo $$ > shell.pid; "
    "setsid sleep 300 & echo $! > escaped.pid; "
    "(setsid sh -c 'sleep 302 & echo $! > daemon.pid; wait' &); "
    "sleep 301 & echo $! > child.pid; "
    "wait"
)
PID_FILES = ("shell.pid", "escaped.pid", "daemon.pid", "child.pid")


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def tagged(tag: str) -> list[int]:
    """Live processes whose environment carries ZEN_TEST_TAG=tag: everything zen started."""
    needle = f"ZEN_TEST_TAG={tag}".encode()
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                env = Path(f"/proc/{name}/environ").read_bytes().split(b"\0")
            except OSError:
                continue
            if needle in env and running(int(name)):
                found.append(int(name))
    return found


def in_sessions(sids: set[int]) -> list[str]:
    """`ps` lines of live processes in the given sessions."""
    out = subprocess.run(
        ["ps", "-e", "-o", "pid=,sid=,stat=,args="], capture_output=True, text=True, check=True
    ).stdout
    return [
        line
        for line in out.splitlines()
        if int(line.split()[1]) in sids and not line.split()[2].startswith("Z")
    ]


def wait_for(predicate, within: float) -> bool:  # noqa: ANN001
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# By name: Windows has no SIGHUP, and the module must still be collected there (then skipped).
@pytest.mark.parametrize(("signame", "code"), [("SIGTERM", 143), ("SIGHUP", 129)])
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_signal_during_bash_leaves_nothing_running(
    fake_llm, home: Path, project: Path, signame: str, code: int, output_format: str
) -> None:
    signum = getattr(signal, signame)
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(
        f"mcp_servers:\n  fake: {{command: '{sys.executable}', args: ['{MCP_SERVER}', 'stdio']}}\n"
    )
    fake = fake_llm([tool_calls([call("bash", {"command": COMMAND})]), text("never")])
    tag = uuid.uuid4().hex
    env = {**zen_env(home), "ZEN_TEST_TAG": tag}
    zen = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "zen",
            "-p",
            "run it",
            "--yes",
            "--sandbox",  # the shell writes its pids: in a sandbox, its own namespace's
            "off",
            "--output-format",
            output_format,
            "--base-url",
            fake.base_url,
            "--api-key",
            "k",
            "--model",
            "m",
        ],
        cwd=project,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready = wait_for(
            lambda: all(
                (project / f).exists() and (project / f).read_text().strip() for f in PID_FILES
            ),
            30,
        )
        assert ready, zen.stderr.read() if zen.poll() is not None else "bash did not start"
        pids = {f: int((project / f).read_text()) for f in PID_FILES}
        assert all(running(p) for p in pids.values())
        started = tagged(tag)
        assert len(started) >= 5  # zen, the MCP server, the shell, its three sleeps
        zen.send_signal(signum)
        out, err = zen.communicate(timeout=15)
    finally:
        reap(zen)
    assert zen.returncode == code, err
    assert "Traceback" not in err
    assert wait_for(lambda: not tagged(tag), 3), tagged(tag)
    assert not any(running(p) for p in pids.values())
    assert in_sessions({pids["shell.pid"], pids["escaped.pid"]}) == []
    name = signal.Signals(signum).name
    if output_format == "json":
        result = json.loads(out.strip().splitlines()[-1])
        assert result["is_error"] is True and name in result["result"]
        # the stopped run's session is still reported: a script can resume it (issue 29)
        assert result["turns"] == 1 and result["usage"]["main"]["requests"] == 1
        assert result["session_id"], result
    else:
        assert f"stopped by {name}" in err
    assert len(fake.requests) == 1

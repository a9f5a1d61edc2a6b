"""Time to a visible shell prompt in a pty, with no MCP server, with 7, and with 7 plus one
that never answers. MCP servers start in the background, so the prompt should not wait.

Each run spawns `python -m zen` on a pty (as tests/test_shell_pty.py does) in a trusted
project whose `.zen/config.yaml` lists the servers (the SDK's fake stdio server from
tests/fakes/mcp_servers.py, 7 times), waits for the prompt, then exits. Also measured: the
time until every server is up (`/mcp` shows 7 running), which is what the first model request
waits for.

Run: `python dev/bench/mcp_startup.py [--repeat N]` from the repository root; median of N.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.mcp_servers import stdio_command  # noqa: E402

POLL = 0.2
PROMPT = re.compile(rb"zen single(?:\x1b\[[0-9;]*m)* \xe2\x80\xba")


def servers(count: int, hung: bool) -> dict[str, object]:
    command, args = stdio_command()
    entries: dict[str, object] = {f"s{i}": {"command": command, "args": args} for i in range(count)}
    if hung:
        never = ["-c", "import sys; sys.stdin.read()"]
        entries["mute"] = {"command": sys.executable, "args": never, "start_timeout": 10}
    return entries


def one_run(
    project: Path, home: Path, count: int, hung: bool, zen_root: Path = ROOT
) -> tuple[float, float]:
    (project / ".zen").mkdir(exist_ok=True)
    (project / ".zen" / "config.yaml").write_text(json.dumps({"mcp_servers": servers(count, hung)}))
    env = {
        "HOME": str(home),
        "PATH": "/usr/bin:/bin",
        "TERM": "xterm-256color",
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "PYTHONPATH": str(zen_root),
    }
    began = time.monotonic()
    child = pexpect.spawn(
        sys.executable,
        [
            "-m",
            "zen",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--api-key",
            "k",
            "--model",
            "m",
            "-C",
            str(project),
            "--trust",
        ],
        env=env,
        cwd=str(project),
        dimensions=(30, 100),
        timeout=60,
    )
    child.expect(PROMPT)
    prompt = time.monotonic() - began
    ready = prompt
    if count:
        while True:
            child.send("/mcp\r")
            child.expect(PROMPT)
            if child.before.count(b": running") >= count:
                ready = time.monotonic() - began
                break
            time.sleep(POLL)
    child.send("/exit\r")
    child.expect(pexpect.EOF)
    child.close()
    return prompt, ready


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--zen-root", type=Path, default=ROOT, help="the checkout to run (compare an older one)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        home.mkdir()
        project.mkdir()
        rows = []
        for label, count, hung in [
            ("no MCP server", 0, False),
            ("7 servers", 7, False),
            ("7 servers + 1 hung", 7, True),
        ]:
            runs = [one_run(project, home, count, hung, args.zen_root) for _ in range(args.repeat)]
            prompt = statistics.median(r[0] for r in runs)
            ready = statistics.median(r[1] for r in runs)
            rows.append((label, prompt, ready))
        base = rows[0][1]
        print("| configuration | prompt visible | vs none | all servers running |")
        print("|---|---|---|---|")
        for label, prompt, ready in rows:
            up = f"{ready:.2f} s" if label != "no MCP server" else "-"
            print(f"| {label} | {prompt:.2f} s | {prompt / base:.2f}x | {up} |")


if __name__ == "__main__":
    main()

"""How much of a zen run's first request a llama.cpp server reuses from the run before it.

llama-server keeps the last prompt of a slot and reuses the longest prefix the next one shares:
what it does not reuse it must read, at ~85 tokens/s on a small CPU. Two real `zen -p` runs, on
different tasks in different folders (git repositories, the second with an AGENTS.md), send
their first request to the fake server (which records it); each is then sent as it was to the
real server (`max_tokens: 1`), and its `timings` say how many prompt tokens were reused
(`cache_n`) and how many read (`prompt_n`). A later request of a run repeats its first one and
adds to the end, so the first request is where a run's reuse is decided.

Run: python dev/bench/prefix_reuse.py http://127.0.0.1:PORT [--zen CHECKOUT] [--dual]
(`--zen`: the checkout whose zen to measure, e.g. an older one, default this one).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.server import FakeLLM, text  # noqa: E402

RUNS = (
    ("one", "rename greet() to welcome() everywhere", ""),
    ("two", "explain the parser", "Run the tests with `make check`.\n"),
)


def first_requests(zen: Path, extra: list[str]) -> list[dict[str, Any]]:
    """The first request of each run, as zen sent it."""
    base = Path(tempfile.mkdtemp())
    env = {**os.environ, "HOME": str(base), "USERPROFILE": str(base), "PYTHONPATH": str(zen)}
    env = {k: v for k, v in env.items() if not k.startswith(("ZEN_", "OPENAI_"))}
    bodies = []
    with FakeLLM([text("ok")] * len(RUNS)) as fake:
        for name, task, instructions in RUNS:
            folder = base / name
            folder.mkdir()
            subprocess.run(["git", "init", "-q", "-b", "main", str(folder)], check=True)
            (folder / "greet.py").write_text("def greet(name):\n    return f'Hi {name}'\n")
            if instructions:
                (folder / "AGENTS.md").write_text(instructions)
            args = ["-p", task, "--base-url", fake.base_url, "--api-key", "x", "--model", "m"]
            subprocess.run(
                [sys.executable, "-m", "zen", *args, *extra],
                cwd=folder,
                env=env,
                check=True,
                capture_output=True,
                timeout=120,
            )
            bodies.append(fake.requests[-1])
    return bodies


def replay(server: str, body: dict[str, Any]) -> dict[str, int]:
    """Send `body` to the real server for one token; its prompt timings."""
    body = {**body, "stream": False, "max_tokens": 1}
    body.pop("stream_options", None)
    request = urllib.request.Request(
        server.rstrip("/") + "/v1/chat/completions",
        json.dumps(body).encode(),
        {"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=600) as response:
        timings = json.load(response)["timings"]
    return {"read": timings["prompt_n"], "reused": timings.get("cache_n", 0)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("server", help="llama-server's base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument("--zen", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--dual", action="store_true", help="dual mode (the Orchestrator)")
    args = parser.parse_args()
    bodies = first_requests(args.zen.resolve(), ["--dual"] if args.dual else [])
    replay(server=args.server, body={"messages": [{"role": "user", "content": "hi"}]})
    print(f"{'run':<6}{'prompt':>8}{'reused':>8}{'read':>7}")
    for (name, _, _), body in zip(RUNS, bodies, strict=True):
        t = replay(args.server, body)
        print(f"{name:<6}{t['read'] + t['reused']:>8}{t['reused']:>8}{t['read']:>7}")


if __name__ == "__main__":
    main()

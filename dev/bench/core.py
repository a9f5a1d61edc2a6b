"""Core figures (issue 2): startup, one-shot round trip, agent overhead per turn.

  (a) `zen --version` / `zen --help` wall time against `python -c pass`
  (b) `zen -p` one-turn wall time and peak memory against the fake server
  (c) agent overhead per turn over a 200-turn scripted run (the server answers at once):
      the run's wall time minus the time spent inside the model client, per turn.

Run: python dev/bench/core.py   (the interpreter's installed `zen` if it has one, else the checkout)
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.server import FakeLLM, call, text, tool_calls  # noqa: E402

SCRIPT = Path(sys.executable).parent / "zen"
"""The installed `zen` script when this interpreter has one: what users run."""
ZEN = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "zen"]
ENV = {**os.environ, "NO_COLOR": "1"}
if not SCRIPT.exists():
    ENV["PYTHONPATH"] = str(ROOT)  # run the checkout


def timed(cmd: list[str], runs: int = 10) -> tuple[float, int]:
    """Median wall seconds and peak RSS (KiB) of `cmd` over `runs` runs (after one warm-up)."""
    walls, peaks = [], []
    for n in range(runs + 1):
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd=tempfile.gettempdir(),
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd} exited {proc.returncode}")
        if n:
            walls.append(time.perf_counter() - start)
            peaks.append(usage.ru_maxrss)
    return statistics.median(walls), max(peaks)


def startup() -> None:
    base, _ = timed([sys.executable, "-c", "pass"], runs=20)
    print(f"(a) startup of {' '.join(ZEN)}, median of 20")
    print(f"    python -c pass      {base * 1000:7.1f} ms")
    for flag in ("--version", "--help"):
        wall, _ = timed([*ZEN, flag], runs=20)
        print(f"    zen {flag:<15} {wall * 1000:7.1f} ms  ({wall / base:.2f}x)")


def oneshot() -> None:
    with FakeLLM(lambda body: text("ok")) as fake:
        wall, peak = timed(
            [*ZEN, "-p", "say ok", "--base-url", fake.base_url, "--api-key", "x"], runs=5
        )
    print("(b) zen -p one turn against the fake server, median of 5")
    print(f"    wall {wall * 1000:.0f} ms, peak memory {peak / 1024:.1f} MiB")


class Timed:
    """Wraps the real client and adds up the time spent inside it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.echo_reasoning = inner.echo_reasoning
        self.inside = 0.0

    async def stream(self, *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return await self.inner.stream(*args, **kwargs)
        finally:
            self.inside += time.perf_counter() - start


async def turns(n: int = 200) -> None:
    from zen.agent.session import Session
    from zen.app import make_workspace
    from zen.base.events import EventLog
    from zen.settings.loading import load_config

    root = Path(tempfile.mkdtemp())
    (root / "a.txt").write_text("hello\n")
    replies = [tool_calls([call("memo", {"action": "list", "key": str(i)})]) for i in range(n - 1)]
    with FakeLLM([*replies, text("done")]) as fake:
        config = load_config(
            root, {"base_url": fake.base_url, "api_key": "x", "max_turns": n}, env={}
        )
        session = Session(config, make_workspace(config, root))
        agent = session.conversation.agent()
        client = Timed(agent.client)
        agent.client = client
        start = time.perf_counter()
        result = await session.run("go", EventLog())
        wall = time.perf_counter() - start
    assert result.turns == n, result
    overhead = (wall - client.inside) / n
    print(f"(c) {n}-turn scripted run: {wall:.2f} s wall, {client.inside:.2f} s in the client")
    print(f"    agent overhead per turn {overhead * 1000:.2f} ms")


if __name__ == "__main__":
    startup()
    oneshot()
    asyncio.run(turns())

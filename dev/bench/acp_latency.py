"""`zen acp` latency: from `initialize` to the first `session/update` of a first prompt.

Each run spawns `python -m zen acp` against the in-process fake model server (one short
answer) and drives it with the ACP SDK's client over a real stdio pipe, as an editor does:
spawn → initialize → session/new → session/prompt, timing each answer and the first update
(the first streamed chunk of the answer). What the editor waits for after pressing enter is
`prompt → first update`; `initialize → first update` adds the handshake and session opening.

Run: `python dev/bench/acp_latency.py [--repeat N]` from the repository root; medians of N.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from acp import spawn_agent_process, text_block  # noqa: E402

from tests.fakes.server import FakeLLM, text  # noqa: E402


class FirstUpdate:
    """A client that notes when the first update arrives and allows every call."""

    def __init__(self) -> None:
        self.first: float | None = None
        self.seen = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if self.first is None:
            self.first = time.perf_counter()
            self.seen.set()

    async def request_permission(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("not used")

    def on_connect(self, conn: Any) -> None:
        pass


async def one_run(base_url: str, home: Path, project: Path) -> dict[str, float]:
    client = FirstUpdate()
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)}
    args = ["--base-url", base_url, "--api-key", "k", "--model", "fake-model"]
    spawned = time.perf_counter()
    async with spawn_agent_process(
        client,
        sys.executable,
        "-m",
        "zen",
        "acp",
        *args,
        env=env,
        cwd=project,
        transport_kwargs={"stderr": None},
    ) as (conn, _process):
        began = time.perf_counter()
        await conn.initialize(protocol_version=1)
        initialized = time.perf_counter()
        new = await conn.new_session(cwd=str(project), mcp_servers=[])
        opened = time.perf_counter()
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=new.session_id, prompt=[text_block("hi")])
        )
        await asyncio.wait_for(client.seen.wait(), 60)
        await prompt
    assert client.first is not None
    return {
        "spawn → initialize answered": initialized - spawned,
        "initialize → session opened": opened - began,
        "prompt → first update": client.first - opened,
        "initialize → first update": client.first - began,
    }


async def main(repeat: int) -> None:
    with FakeLLM(lambda body: text("ok", usage="estimate")) as fake:
        runs = []
        for _ in range(repeat):
            with tempfile.TemporaryDirectory() as tmp:
                home, project = Path(tmp, "home"), Path(tmp, "project")
                home.mkdir()
                project.mkdir()
                runs.append(await one_run(fake.base_url, home, project))
    for key in runs[0]:
        values = [r[key] for r in runs]
        print(
            f"{key:30} median {statistics.median(values) * 1000:7.0f} ms  "
            f"(min {min(values) * 1000:.0f}, max {max(values) * 1000:.0f})"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    asyncio.run(main(parser.parse_args().repeat))

"""Wall time of N explorers run by one spawn-agents call, against a slow fake model server.

Each explorer makes one tool turn (read-file) and one final answer, and every sub-agent turn
takes `--turn` seconds at the fake server, so one explorer costs about 2 x turn; run one after
another, N of them would cost N times the measured time of one (the `N x one` column).
Run from the repository root:

    python -m dev.bench.parallel [--turn 0.3] [--limits 4,8]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.fakes.server import FakeLLM, Reply, call, text, tool_calls
from zen.agent.session import Session
from zen.base import events as ev
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace

COUNTS = (1, 2, 4, 8)


def model(turn: float, n: int) -> Any:
    """The main agent spawns `n` explorers and then answers; each explorer reads then answers."""

    def reply(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        done = any(m["role"] == "tool" for m in messages)
        if "sub-agent" not in messages[0]["content"].split("\n", 1)[0]:
            if done:
                return text("done")
            tasks = [{"description": f"explore {i}", "prompt": f"task {i}"} for i in range(n)]
            return tool_calls([call("spawn-agents", {"tasks": tasks})])
        if done:
            return text("notes.txt has one line", delay=turn)
        return tool_calls([call("read-file", {"path": "notes.txt"})], delay=turn)

    return reply


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


async def spawn_seconds(root: Path, turn: float, n: int, limit: int) -> float:
    """Seconds from the spawn-agents call starting to its result."""
    marks: dict[str, float] = {}

    def emit(event: ev.Event) -> None:
        if isinstance(event, (ev.ToolCallRunning, ev.ToolCallFinished)) and (
            event.name == "spawn-agents"
        ):
            marks[type(event).__name__] = time.monotonic()

    with FakeLLM(model(turn, n)) as fake:
        config = Config(
            model="fake-model", base_url=fake.base_url, api_key="bench", parallel_agents_max=limit
        )
        await Session(config, Workspace(root)).run("explore", emit, yes)
    return marks["ToolCallFinished"] - marks["ToolCallRunning"]


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turn", type=float, default=0.3, help="seconds per sub-agent turn")
    parser.add_argument(
        "--limits",
        default=f"{Config().parallel_agents_max},8",
        help="parallel_agents_max values to try (comma-separated)",
    )
    args = parser.parse_args()
    limits = [int(x) for x in args.limits.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "notes.txt").write_text("one line\n")
        print(f"{'explorers':>9}  {'limit':>5}  {'wall s':>7}  {'N x one':>7}  {'speedup':>7}")
        for limit in limits:
            one = 0.0
            for n in COUNTS:
                wall = await spawn_seconds(root, args.turn, n, limit)
                one = one or wall
                print(f"{n:>9}  {limit:>5}  {wall:>7.2f}  {n * one:>7.2f}  {n * one / wall:>6.1f}x")


if __name__ == "__main__":
    asyncio.run(main())

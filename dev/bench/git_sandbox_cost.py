"""What the sandbox costs a git call that is not a reading call: the `git` tool's whole path
(reading the repository's configuration, the run, the undo check) for `git rev-parse HEAD` in
a fresh one-commit repository, with the sandbox off and on, alternating, median of N runs.

    python dev/bench/git_sandbox_cost.py [runs]

docs/sandbox.md has the figures. Such calls ask a person first (confirm level), so this is
what a `--yes` run or an `always` answer pays per call.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from dev.bench.sandbox_cost import medians, settled  # noqa: E402
from zen.settings.sandbox_options import SandboxMode, SandboxOptions  # noqa: E402
from zen.stores.memo import MemoStore  # noqa: E402
from zen.stores.read_tracker import ReadTracker  # noqa: E402
from zen.stores.todo import TodoStore  # noqa: E402
from zen.tools.base import ToolContext  # noqa: E402
from zen.tools.git import Git, GitParams  # noqa: E402
from zen.tools.sandbox.runner import Sandbox  # noqa: E402
from zen.tools.workspace import Workspace  # noqa: E402

ARGS = "rev-parse HEAD"


def context(root: Path, mode: SandboxMode) -> ToolContext:
    box = Sandbox(mode, SandboxOptions())
    stores = ReadTracker(), MemoStore(), TodoStore()
    return ToolContext(Workspace(root), "main", *stores, sandbox=box)


async def once(ctx: ToolContext) -> float:
    started = time.perf_counter()
    result = await Git().execute(GitParams(args=ARGS), ctx)
    if not result.ok:
        sys.exit(f"git {ARGS} failed: {result.output}")
    return time.perf_counter() - started


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        identity = ["-c", "user.name=bench", "-c", "user.email=bench@example.com"]
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        subprocess.run(["git", *identity, "commit", "-q", "--allow-empty", "-m", "x"], cwd=root)
        outside, inside = context(root, "off"), context(root, "on")
        assert inside.sandbox is not None
        await settled(inside.sandbox)
        plain, boxed = [], []
        for _ in range(runs):
            plain.append(await once(outside))
            boxed.append(await once(inside))
    print(f"git {ARGS}, {runs} runs each, medians: {medians(plain, boxed)}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))

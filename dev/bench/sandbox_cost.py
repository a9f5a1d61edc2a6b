"""The sandbox's start cost per command: a ~100 ms command, sandboxed (bwrap) and not,
alternating, median of N runs each, measured two ways:
- process: start to exit status (asyncio's own wait), what the sandbox itself costs;
- bash tool: through `run_sandboxed` (preparation, `run_child`, undo), what a call costs.
  `run_child` polls for the exit status with a backoff capped at 50 ms, so this figure moves
  in steps: a few ms more may cost one poll step more.

    python dev/bench/sandbox_cost.py [runs]

Goal: sandboxed / unsandboxed <= 1.2 for a 100 ms command (docs/sandbox.md has the figures).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zen.settings.sandbox_options import SandboxOptions  # noqa: E402
from zen.tools.child import run_child  # noqa: E402
from zen.tools.sandbox.run import run_sandboxed  # noqa: E402
from zen.tools.sandbox.runner import Sandbox  # noqa: E402

COMMAND = ["/bin/sh", "-c", "sleep 0.1"]


async def process(box: Sandbox | None, root: Path) -> float:
    started = time.perf_counter()
    argv, env = COMMAND, dict(os.environ)
    ready = box.prepare(root, COMMAND, env) if box else None
    if ready is not None:
        argv, env = ready.argv, ready.env
    fds = ready.fds if ready else ()
    proc = await asyncio.create_subprocess_exec(*argv, cwd=root, env=env, pass_fds=fds)
    for fd in fds:
        os.close(fd)
    await proc.wait()
    if ready is not None:
        ready.started()
        ready.finish()
    return time.perf_counter() - started


async def tool(box: Sandbox | None, root: Path) -> float:
    started = time.perf_counter()
    env = dict(os.environ)
    options = {"cwd": root, "timeout": 30, "limit": 10_000, "merge": True}
    if box is None:
        await run_child(COMMAND, env=env, **options)
    else:
        await run_sandboxed(box, root, COMMAND, env, **options)
    return time.perf_counter() - started


async def settled(box: Sandbox) -> None:
    """Wait for the probe; exit unless the sandbox works here (a figure without it is none)."""
    found = await box.settle(30)
    if found is None or found.program is None:
        sys.exit(f"no sandbox here: {found and found.problem}")


def medians(plain: list[float], boxed: list[float]) -> str:
    """The two medians and what the sandbox adds."""
    p, b = statistics.median(plain), statistics.median(boxed)
    return (
        f"unsandboxed {p * 1000:6.1f} ms  sandboxed {b * 1000:6.1f} ms  "
        f"(+{(b - p) * 1000:.1f} ms, {b / p:.2f}x)"
    )


async def main(runs: int) -> None:
    box = Sandbox("on", SandboxOptions())
    await settled(box)
    print(f"command: {' '.join(COMMAND)}; {runs} runs each, medians")
    with tempfile.TemporaryDirectory() as folder:
        for name, measure in (("process", process), ("bash tool", tool)):
            plain, boxed = [], []
            for _ in range(runs):
                plain.append(await measure(None, Path(folder)))
                boxed.append(await measure(box, Path(folder)))
            print(f"{name:9}  {medians(plain, boxed)}")


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))

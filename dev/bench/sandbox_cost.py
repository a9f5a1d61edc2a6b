"""The sandbox's start cost per command: a ~100 ms command, sandboxed (bwrap) and not,
alternating, median of N runs each, measured two ways:
- process: start to exit status (asyncio's own wait), what the sandbox itself costs;
- bash tool: through `run_child` with the sandbox's preparation and undo, what a call costs.
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
    if box is None:
        await run_child(COMMAND, cwd=root, env=env, timeout=30, limit=10_000, merge=True)
    else:
        ready = box.prepare(root, COMMAND, env)
        try:
            await run_child(
                ready.argv, cwd=root, env=ready.env, timeout=30, limit=10_000, pass_fds=ready.fds
            )
        finally:
            ready.finish()
        ready.started()
    return time.perf_counter() - started


async def main(runs: int) -> None:
    box = Sandbox("on", SandboxOptions())
    found = await box.settle(30)
    if found is None or found.program is None:
        sys.exit(f"no sandbox here: {found and found.problem}")
    print(f"command: {' '.join(COMMAND)}; {runs} runs each, medians")
    with tempfile.TemporaryDirectory() as folder:
        for name, measure in (("process", process), ("bash tool", tool)):
            plain, boxed = [], []
            for _ in range(runs):
                plain.append(await measure(None, Path(folder)))
                boxed.append(await measure(box, Path(folder)))
            p, b = statistics.median(plain), statistics.median(boxed)
            print(
                f"{name:9}  unsandboxed {p * 1000:6.1f} ms  sandboxed {b * 1000:6.1f} ms  "
                f"(+{(b - p) * 1000:.1f} ms, {b / p:.2f}x)"
            )


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 30))

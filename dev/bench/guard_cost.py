"""The sandbox guard's time per command on a large workspace: a git repository with 50,000
files in 2,550 folders and 20 submodules (each with git's sample hooks), in a temporary folder.

Measured without bwrap (the guard alone: `begin` before a command, `finish` after it), median
of N runs each, wall time and CPU time (the steadier figure on a loaded machine):
- first command: the whole workspace walked for repositories, every guarded file read;
- a command that changes nothing guarded (it writes one file at the top, so the top folder is
  listed again);
- a command that makes 100 folders of 10 files (each new folder is listed);
- a command that plants a hook and a new repository (the undo included).
Then through the bash tool's path with a real bwrap (`prepare`, a 100 ms command, `finish`)
on the same workspace, against the same command unsandboxed.

    python dev/bench/guard_cost.py [runs]

Figures go in docs/sandbox.md ("Cost").
"""

from __future__ import annotations

import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from zen.settings.sandbox_options import SandboxOptions  # noqa: E402
from zen.tools.child import run_child  # noqa: E402
from zen.tools.sandbox.guard import Guard  # noqa: E402
from zen.tools.sandbox.runner import Sandbox  # noqa: E402

GIT = ["git", "-c", "init.defaultBranch=main", "-c", "user.name=b", "-c", "user.email=b@b"]
GIT += ["-c", "protocol.file.allow=always"]


def build(root: Path) -> None:
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    for a in range(50):
        for b in range(50):
            folder = root / f"pkg{a}" / f"mod{b}"
            folder.mkdir(parents=True)
            for c in range(20):
                (folder / f"f{c}.py").write_text("x = 1\n")
    lib = root.parent / "lib"
    subprocess.run([*GIT, "init", "-q", str(lib)], check=True)
    subprocess.run([*GIT, "-C", str(lib), "commit", "-q", "--allow-empty", "-m", "l"], check=True)
    for n in range(20):
        subprocess.run(
            [*GIT, "-C", str(root), "submodule", "add", "-q", str(lib), f"vendor/lib{n}"],
            check=True,
        )
    subprocess.run([*GIT, "-C", str(root), "commit", "-qm", "subs"], check=True)


def timed(guard: Guard, root: Path, command: Callable[[], None]) -> tuple[float, float, float]:
    """(begin's wall time, finish's wall time, their CPU time together): on a loaded machine
    the CPU time is the steadier figure."""
    cpu, started = time.process_time(), time.perf_counter()
    watch = guard.begin(root, [])
    began, cpu = time.perf_counter(), time.process_time() - cpu
    command()
    ended, cpu_end = time.perf_counter(), time.process_time()
    watch.finish()
    cpu += time.process_time() - cpu_end
    return began - started, time.perf_counter() - ended, cpu


def main(runs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "ws"
        build(root)
        files = sum(len(f) for _, _, f in os.walk(root))
        print(f"workspace: {files} files, 20 submodules; {runs} runs each, medians (ms)")
        cold = timed(Guard(), root, lambda: None)
        print(
            f"first command     begin {cold[0] * 1000:7.1f}  finish {cold[1] * 1000:7.1f}  "
            f"CPU {cold[2] * 1000:7.1f}"
        )
        guard = Guard()
        timed(guard, root, lambda: None)
        counter = iter(range(10**9))

        def top() -> None:
            (root / f"out{next(counter)}.txt").write_text("x")

        def many() -> None:
            base = root / f"new{next(counter)}"
            for d in range(100):
                (base / str(d)).mkdir(parents=True)
                for f in range(10):
                    (base / str(d) / f"{f}.txt").write_text("x")

        def attack() -> None:
            (root / ".git" / "hooks" / "pre-commit").write_text("evil")
            subprocess.run([*GIT, "init", "-q", str(root / f"deep{next(counter)}" / "x")])

        for name, command in (("nothing guarded", top), ("100 new folders", many),
                              ("plant + undo", attack)):  # fmt: skip
            got = [timed(guard, root, command) for _ in range(runs)]
            begin, finish, cpu = (statistics.median(g[i] for g in got) * 1000 for i in range(3))
            print(f"{name:17} begin {begin:7.1f}  finish {finish:7.1f}  CPU {cpu:7.1f}")
        asyncio.run(tool_path(root, runs))


async def tool_path(root: Path, runs: int) -> None:
    box = Sandbox("on", SandboxOptions())
    if box.problem():
        print(f"no sandbox here ({box.problem()}): bash tool path not measured")
        return
    command = ["/bin/sh", "-c", "sleep 0.1"]
    plain, boxed = [], []
    for _ in range(runs):
        started = time.perf_counter()
        await run_child(command, cwd=root, env=dict(os.environ), timeout=30, limit=10_000)
        plain.append(time.perf_counter() - started)
        started = time.perf_counter()
        ready = box.prepare(root, command, dict(os.environ))
        try:
            await run_child(ready.argv, cwd=root, env=ready.env, timeout=30, limit=10_000)
        finally:
            ready.finish()
        boxed.append(time.perf_counter() - started)
    p, b = statistics.median(plain) * 1000, statistics.median(boxed) * 1000
    print(f"bash tool, sleep 0.1: unsandboxed {p:6.1f} ms, sandboxed {b:6.1f} ms ({b / p:.2f}x)")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)

"""Checkpoints: time and disk for snapshots of a 10,000-file workspace, and the cost per turn.

A temporary workspace of N files (default 10,000 source-like files of 0.5–4 KB in 500
folders, a git repository of its own) is snapshotted through zen's CheckpointStore into a
temporary home: the first snapshot (every file hashed and stored), a second with nothing
changed, and one after 20 files changed. "Per turn" is what a turn that may change files
pays: a checkpoint before and one after (two snapshots, refs and records), measured on the
unchanged workspace. Disk is the shadow repository's size, before and after `git gc`.

    python -m dev.bench.snapshots [--files 10000] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from zen.checkpoints.store import CheckpointStore

WORDS = [
    "def",
    "class",
    "return",
    "import",
    "self",
    "value",
    "data",
    "result",
    "path",
    "file",
    "index",
    "item",
    "name",
]


def make_workspace(root: Path, files: int) -> None:
    rng = random.Random(7)
    for i in range(files):
        folder = root / f"pkg{i % 500:03d}"
        folder.mkdir(exist_ok=True)
        size = rng.randint(500, 4000)
        words = " ".join(rng.choice(WORDS) for _ in range(size // 5))
        (folder / f"mod{i}.py").write_text(f"# module {i}\n{words}\n")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)


async def timed(store: CheckpointStore, kind: str) -> float:
    start = time.perf_counter()
    await store.record(kind)
    return time.perf_counter() - start


async def measure(files: int, repeat: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        root = base / "ws"
        root.mkdir()
        make_workspace(root, files)
        size = sum(p.stat().st_size for p in root.rglob("*.py"))
        store = CheckpointStore(root.resolve(), folder=base / "home" / "snap")
        first = await timed(store, "before")
        disk_first = store.repo.disk_usage()
        unchanged = [await timed(store, "after") for _ in range(repeat)]
        changed = []
        for r in range(repeat):
            for i in range(20):
                path = root / f"pkg{i % 500:03d}" / f"mod{i}.py"
                path.write_text(path.read_text() + f"# edit {r}\n")
            changed.append(await timed(store, "after"))
        turns = []
        for _ in range(repeat):
            start = time.perf_counter()
            await store.record("before")
            await store.record("after")
            turns.append(time.perf_counter() - start)
        disk_before_gc = store.repo.disk_usage()
        await store.repo.gc()
        disk_after_gc = store.repo.disk_usage()
        store.close()
        return {
            "files": files,
            "workspace_mb": round(size / 1e6, 1),
            "first_snapshot_s": round(first, 2),
            "unchanged_snapshot_ms": round(statistics.median(unchanged) * 1000),
            "20_files_changed_ms": round(statistics.median(changed) * 1000),
            "per_turn_ms": round(statistics.median(turns) * 1000),
            "disk_after_first_mb": round(disk_first / 1e6, 1),
            "disk_before_gc_mb": round(disk_before_gc / 1e6, 1),
            "disk_after_gc_mb": round(disk_after_gc / 1e6, 1),
            "cpus": os.cpu_count(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = [asyncio.run(measure(n, args.repeat)) for n in sorted({100, args.files})]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for r in results:
        print(
            f"{r['files']:,} files ({r['workspace_mb']} MB): first snapshot "
            f"{r['first_snapshot_s']} s, unchanged {r['unchanged_snapshot_ms']} ms, "
            f"20 files changed {r['20_files_changed_ms']} ms, per turn (before + after) "
            f"{r['per_turn_ms']} ms; shadow repo {r['disk_after_first_mb']} MB after the "
            f"first snapshot, {r['disk_before_gc_mb']} MB before gc, "
            f"{r['disk_after_gc_mb']} MB after"
        )


if __name__ == "__main__":
    main()

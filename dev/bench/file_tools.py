"""File-tool costs on big files (issue 9): time and peak memory of read-file and edit-file.

For 1, 10 and 50 MB text files (80-character lines), each measured in a fresh process so the
peak RSS is that call's own: read-file of the first page; edit-file of one line in the middle
(preview + write, as a confirmed call runs); and edit-file at the 10 MB default limit, where
a 50 MB file is refused before it is read. "peak" is the process's max RSS minus its RSS after
imports.

Run: python dev/bench/file_tools.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SIZES_MB = (1, 10, 50)

CHILD = r"""
import asyncio, json, resource, sys, time
from pathlib import Path
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import ToolContext
from zen.tools.edit_file import EditFile
from zen.tools.read_file import ReadFile
from zen.tools.workspace import Workspace

root, op, limit = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])

def rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

async def main():
    ctx = ToolContext(Workspace(root), "main", ReadTracker(), MemoStore(), TodoStore(),
                      max_edit_bytes=limit)
    ctx.read_tracker.mark_read((root / "big.txt").resolve())
    base = rss_mb()
    started = time.perf_counter()
    if op == "read":
        tool = ReadFile()
        params = tool.Params.model_validate({"path": "big.txt"})
        result = await tool.execute(params, ctx)
    else:
        tool = EditFile()
        params = tool.Params.model_validate(
            {"path": "big.txt", "old_string": "line 000500000 marker",
             "new_string": "line 000500000 edited"})
        preview = await tool.preview(params, ctx)
        result = await tool.execute(params, ctx)
    spent = time.perf_counter() - started
    print(json.dumps({"ok": result.ok, "seconds": spent, "peak_mb": rss_mb() - base,
                      "summary": result.summary[:70]}))

asyncio.run(main())
"""


def make(path: Path, mb: int) -> None:
    line_count = mb * 1_000_000 // 80
    with open(path, "w") as f:
        for i in range(line_count):
            mark = "marker" if i == min(500_000, line_count // 2) else "filler"
            number = 500_000 if mark == "marker" else i
            f.write(f"line {number:09d} {mark} ".ljust(79, "x") + "\n")


def measure(folder: Path, op: str, limit: int) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(folder), op, str(limit)],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT)},
    ).stdout
    return json.loads(out)


def main() -> None:
    rows = []
    for mb in SIZES_MB:
        cells = []
        for op, limit in (("read", 10_000_000), ("edit", 10_000_000), ("edit", 100_000_000)):
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                make(folder / "big.txt", mb)  # fresh: an edit changes the file
                cells.append(measure(folder, op, limit))
        rows.append((mb, *cells))
    print("| file | read-file (first page) | edit-file, 10 MB limit | edit-file, limit raised |")
    print("|---|---|---|---|")
    for mb, *cells in rows:
        shown = [
            f"{c['seconds']:.2f} s, {c['peak_mb']:.0f} MB" + ("" if c["ok"] else " (refused)")
            for c in cells
        ]
        print(f"| {mb} MB | " + " | ".join(shown) + " |")


if __name__ == "__main__":
    main()

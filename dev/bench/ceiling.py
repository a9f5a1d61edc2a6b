"""What a model reached on zen's bench over every stored run: the ceiling a harness works under.

Reads `zen bench` result files (and the aider reference's, same rows) and prints, task by task,
how many of its runs solved it; then each file's count, the tasks any run solved (the union),
and the tasks no run solved. A task solved in none of many runs, by every configuration and
by aider, is past what the model does on its own; a harness can show it more, not think for it.

    python dev/bench/ceiling.py [RESULTS...]   (default: dev/bench/results/qwen2.5-coder-1.5b-*)
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

from zen.base.terminal_safe import terminal_safe

RESULTS = Path(__file__).parent / "results"
RARE = 0.15
"""A task solved in at most this share of its runs is one the model rarely gets right."""


def runs(path: Path) -> dict[str, list[bool]]:
    """Task → solved, one entry per run of it (a `--repeat` file holds several); names made
    safe for the terminal (a task is a folder anyone may write)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = data.get("rows", []) if isinstance(data, dict) else data
    by_task: dict[str, list[bool]] = defaultdict(list)
    for row in rows:
        if isinstance(row, dict) and "task" in row:
            by_task[terminal_safe(str(row["task"]))].append(bool(row.get("solved")))
    return dict(by_task)


def main(paths: list[Path]) -> None:
    files = {terminal_safe(p.name): runs(p) for p in paths}
    files = {name: tasks for name, tasks in files.items() if tasks}
    tasks = sorted({t for by_task in files.values() for t in by_task})
    solved = {t: sum(sum(f.get(t, [])) for f in files.values()) for t in tasks}
    tried = {t: sum(len(f.get(t, [])) for f in files.values()) for t in tasks}
    for name, by_task in files.items():
        rows = sum(len(v) for v in by_task.values())
        print(
            f"{name}: {len(by_task)} tasks, {rows} runs, {sum(sum(v) for v in by_task.values())}"
            f" solved, {sum(any(v) for v in by_task.values())} tasks solved at least once"
        )
    print()
    for t in tasks:
        print(f"{t:28} solved in {solved[t]:3} of {tried[t]:3} runs")
    union = [t for t in tasks if solved[t]]
    print(f"\nsolved by any run: {len(union)} of {len(tasks)} tasks")
    print("solved by none:", ", ".join(t for t in tasks if not solved[t]) or "-")
    rare = [t for t in tasks if solved[t] <= RARE * tried[t]]
    print(f"solved in at most {RARE:.0%} of their runs: {len(rare)} tasks")
    expected = sum(solved[t] / tried[t] for t in tasks)
    print(f"expected per run (each task's share of runs solved, summed): {expected:.1f}")


if __name__ == "__main__":
    given = [Path(a) for a in sys.argv[1:]]
    main(given or sorted(RESULTS.glob("qwen2.5-coder-1.5b-*.json")))

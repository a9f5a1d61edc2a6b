"""aider on `zen bench`'s tasks, the reference README's table compares zen with.

Each task runs as `zen bench` runs it: a fresh temporary copy of its `repo/`, a deadline, then
`tests/check.py WORKSPACE ANSWER_FILE` (the answer file holds what aider printed). aider runs
with whole-file edits and every small text file of the task's repository added to its chat, as
a user of a small local model would run it, against a llama.cpp server started with
`--metrics`: the server's own counters give the prompt tokens it had to read (uncached), the
ones it reused from its cache, and the tokens it wrote, for aider and zen alike.

    python dev/bench/aider_reference.py --aider /path/to/aider --base-url http://127.0.0.1:8080/v1 \
        [--tasks DIR] [-k NAME] > dev/bench/results/aider.json

aider is not a dependency of zen: install it in a venv of its own (`pip install aider-chat`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ADDED_MAX = 8_000
"""Bytes: files larger than this stay out of aider's chat (a data file of 1,200 rows)."""


def metrics(base_url: str) -> dict[str, float]:
    """llama-server's counters (`--metrics`): prompt tokens read and reused, tokens written."""
    root = base_url.rstrip("/").removesuffix("/v1")
    with urllib.request.urlopen(f"{root}/metrics", timeout=10) as r:
        text = r.read().decode()
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith("llamacpp:") and " " in line:
            name, value = line.split(" ", 1)
            found[name.removeprefix("llamacpp:")] = float(value)
    return found


def run_task(task: Path, aider: str, base_url: str, model: str, deadline: float) -> dict[str, Any]:
    instruction = (task / "instruction.md").read_text(encoding="utf-8").strip()
    with tempfile.TemporaryDirectory(prefix="aider-bench-") as tmp:
        work = Path(tmp) / "work"
        shutil.copytree(task / "repo", work)
        added = sorted(
            str(p.relative_to(work))
            for p in work.rglob("*")
            if p.is_file() and p.stat().st_size <= ADDED_MAX
        )
        before = metrics(base_url)
        started = time.monotonic()
        command = [aider, "--model", f"openai/{model}", "--openai-api-base", base_url]
        command += ["--openai-api-key", "none", "--edit-format", "whole", "--yes-always"]
        command += ["--no-git", "--no-auto-commits", "--no-show-model-warnings", "--no-pretty"]
        command += ["--no-stream", "--no-check-update", "--no-analytics", "--map-tokens", "0"]
        command += ["--message", instruction, *added]
        env = {**os.environ, "HOME": tmp, "AIDER_CHECK_UPDATE": "false"}
        ended = "answer"
        try:
            done = subprocess.run(
                command,
                cwd=work,
                env=env,
                capture_output=True,
                text=True,
                timeout=deadline,
                stdin=subprocess.DEVNULL,
            )
            answer = done.stdout
        except subprocess.TimeoutExpired as exc:
            ended = "deadline"
            answer = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        seconds = time.monotonic() - started
        after = metrics(base_url)
        answer_file = Path(tmp) / "answer.txt"
        answer_file.write_text(answer, encoding="utf-8")
        check = subprocess.run(
            [sys.executable, str(task / "tests" / "check.py"), str(work), str(answer_file)],
            cwd=work,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def spent(name: str) -> int:
        return int(after.get(name, 0) - before.get(name, 0))

    return {
        "task": task.name,
        "mode": "aider",
        "solved": check.returncode == 0,
        "why": (check.stdout + check.stderr).strip()[-300:],
        "ended": ended,
        "seconds": round(seconds, 1),
        "server_prompt_tokens": spent("prompt_tokens_total"),
        "server_cached_tokens": spent("prompt_tokens_cached_total"),
        "server_output_tokens": spent("tokens_predicted_total"),
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--aider", required=True, help="the aider executable")
    p.add_argument("--base-url", default="http://127.0.0.1:8080/v1")
    p.add_argument("--model", default="local-model")
    p.add_argument("--tasks", type=Path, default=ROOT / "bench-tasks")
    p.add_argument("-k", dest="only", action="append", default=[], help="task name substring")
    p.add_argument("--timeout", type=float, default=600)
    args = p.parse_args()
    tasks = sorted(t.resolve() for t in args.tasks.iterdir() if (t / "instruction.md").is_file())
    if args.only:
        tasks = [t for t in tasks if any(k in t.name for k in args.only)]
    rows = []
    for task in tasks:
        print(f"aider: {task.name}…", file=sys.stderr, flush=True)
        row = run_task(task, args.aider, args.base_url, args.model, args.timeout)
        print(f"  solved={row['solved']} {row['seconds']}s", file=sys.stderr, flush=True)
        rows.append(row)
    solved = sum(r["solved"] for r in rows)
    read = sum(r["server_prompt_tokens"] for r in rows)
    summary = {
        "solved": solved,
        "tasks": len(rows),
        "server_prompt_tokens": read,
        "per_solved": round(read / solved) if solved else None,
    }
    print(json.dumps({"system": "aider", "summary": summary, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()

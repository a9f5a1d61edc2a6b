"""A long session in a small window: how compaction behaves, counted at the server.

Twenty tasks run through zen's real session against the loopback fake server, which reports a
32k-token window (as vLLM does). Each task reads two ~3k-token files and answers (briefly in
the "reads" scenario, at ~1.5k tokens in "talk", where old tool outputs are not the bulk); the first
message plants a constraint sentence. The scripted model's summary copies the user's messages
into task:constraints only for the first half of the session, then paraphrases, so both paths
of the check (represented, or kept whole) run. Reported: compactions of each kind, the largest
request against the window, prompt tokens sent and the share a prefix cache could serve, the
constraint's presence in the last request, and the time per compaction (the fake model
answers at once, so this is zen's own cost plus one loopback summary request).

    python -m dev.bench.compaction [--window 32000] [--tasks 20] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.fakes.server import FakeLLM, Reply, call, text, tool_calls
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base import events as ev
from zen.settings.loading import load_config

CONSTRAINT = "Never change the signature of parse(); other modules call it."
ASK = "The conversation is about to be compacted"


def size(body: dict[str, Any]) -> int:
    return len(json.dumps(body["messages"]) + json.dumps(body.get("tools", []))) // 4


def shared_prefix(a: dict[str, Any], b: dict[str, Any]) -> int:
    """Tokens of `b` that repeat `a` message for message from the start."""
    same = 0
    for x, y in zip(a["messages"], b["messages"], strict=False):
        if x != y:
            break
        same += len(json.dumps(y)) // 4
    return same + (len(json.dumps(b.get("tools", []))) // 4 if same else 0)


def script(tasks: int, answer_chars: int) -> Any:
    state = {"n": 0}

    def reply(body: dict[str, Any]) -> Reply:
        messages = body["messages"]
        last = messages[-1]
        if last["role"] == "user" and str(last["content"]).startswith(ASK):
            users = [m["content"] for m in messages if m["role"] == "user"][:-1]
            exact = state["n"] < tasks // 2
            said = "\n".join(f"- {u}" for u in users if exact and "compacted]" not in u)
            return text(
                f"## task:goal\nWork through the modules.\n## task:constraints\n{said or '-'}\n"
                "## task:decisions\nOne module per task.\n## task:done\nTasks so far.\n"
                "## task:next\nThe next module.\n## file:src/m0.py\nModule 0.\n",
                usage="estimate",
            )
        if last["role"] == "user":
            state["n"] += 1
            n = state["n"]
            return tool_calls(
                [
                    call("read-file", {"path": f"src/m{n % 7}.py"}),
                    call("read-file", {"path": f"src/m{(n + 3) % 7}.py"}),
                ],
                usage="estimate",
            )
        filler = " The function adds its step to x and returns it." * (answer_chars // 48)
        return text(f"Module {state['n']} reviewed: nothing to change.{filler}", usage="estimate")

    return reply


async def run(window: int, tasks: int, answer_chars: int) -> dict[str, Any]:
    from zen.agent.compaction import Compactor

    timings: dict[str, list[float]] = {"stubs": [], "memo": []}
    original = Compactor.compact

    async def timed(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        event = await original(*args, **kwargs)
        if event is not None:
            kind = "memo" if event.memo_keys else "stubs"
            timings[kind].append(time.perf_counter() - t0)
        return event

    Compactor.compact = timed  # type: ignore[method-assign]
    try:
        return await _run(window, tasks, answer_chars, timings)
    finally:
        Compactor.compact = original  # type: ignore[method-assign]


async def _run(
    window: int, tasks: int, answer_chars: int, timings: dict[str, list[float]]
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "src").mkdir()
        for i in range(7):
            (root / "src" / f"m{i}.py").write_text(
                "".join(f"def f{i}_{k}(x):\n    return x + {k}  # step {k}\n" for k in range(240))
            )
        with FakeLLM(script(tasks, answer_chars), context_window=window) as fake:
            config = load_config(root, {"base_url": fake.base_url, "api_key": "k"}, env={})
            session = Session(config, make_workspace(config, root))
            log = ev.EventLog()
            started = time.perf_counter()
            for i in range(tasks):
                first = f"Review module {i}. {CONSTRAINT}" if i == 0 else f"Review module {i}."
                await session.run(first, log)
            wall = time.perf_counter() - started
            await session.aclose()
            requests = [r for r in fake.requests]
    compactions = [e for e in log.events if isinstance(e, ev.Compacted)]
    work = [r for r in requests if not str(r["messages"][-1]["content"]).startswith(ASK)]
    sizes = [size(r) for r in work]
    cached = sum(shared_prefix(a, b) for a, b in zip(work, work[1:], strict=False))
    return {
        "window": window,
        "tasks": tasks,
        "requests": len(requests),
        "summary_requests": len(requests) - len(work),
        "compactions_memo": sum(1 for e in compactions if e.memo_keys),
        "compactions_pruned": sum(1 for e in compactions if not e.memo_keys),
        "lines": [e.line for e in compactions],
        "largest_request": max(sizes),
        "largest_share": round(max(sizes) / window, 3),
        "prompt_tokens": sum(sizes),
        "prefix_cached_share": round(cached / max(1, sum(sizes)), 3),
        "constraint_in_last_request": CONSTRAINT in json.dumps(work[-1]["messages"]),
        **{
            f"{kind}_compaction_ms_median": round(sorted(t)[len(t) // 2] * 1000, 1)
            for kind, t in timings.items()
            if t
        },
        "wall_s": round(wall, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--window", type=int, default=32_000)
    parser.add_argument("--tasks", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = {
        "reads (tool outputs dominate)": asyncio.run(run(args.window, args.tasks, 0)),
        "talk (long answers dominate)": asyncio.run(run(args.window, args.tasks, 6000)),
    }
    if args.json:
        print(json.dumps(results, indent=2))
        return
    for name, result in results.items():
        print(f"== {name}")
        for key, value in result.items():
            if key == "lines":
                for line in value:
                    print(f"  {line}")
            else:
                print(f"{key}: {value}")


if __name__ == "__main__":
    main()

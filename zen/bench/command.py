"""`zen bench`: the flags, then every task × mode × repeat, then the report.

Nothing is written where it was started: runs live in temporary folders (deleted after each
run), results go to stdout or to the file `--output` names. A server that is down is found
before the first task; a bad flag, task folder or name is one line, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from zen.base import exits
from zen.base.paths import expand_user
from zen.bench import child, endpoint, tasks
from zen.bench.progress import Progress
from zen.bench.rows import make_row
from zen.bench.verify import Verdict, verify
from zen.cli.output import fail
from zen.cli.parser import help_formatter

MODES = ("single", "dual", *child.COLLABORATIONS)
DEFAULT_TIMEOUT = 600.0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zen bench",
        formatter_class=help_formatter,
        description="Measure how often zen gets a task done on your endpoint: each task runs "
        "in a temporary copy, then its check decides. Default: the built-in suite, once in "
        "single and once in dual mode.",
    )
    p.add_argument(
        "--mode",
        action="append",
        choices=MODES,
        help="single, dual (the configured collaboration) or a collaboration mode; repeatable",
    )
    p.add_argument("--tasks", metavar="DIR", help="your own tasks (docs/benchmarks.md)")
    p.add_argument(
        "-k",
        "--task",
        dest="names",
        action="append",
        metavar="NAME",
        help="only tasks named NAME or whose name contains it; repeatable",
    )
    p.add_argument("--repeat", type=int, default=1, metavar="N", help="run everything N times")
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help=f"deadline of one task (default: its task.toml, else {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument("--json", action="store_true", help="one JSON document on stdout")
    p.add_argument("--output", metavar="FILE", help="also write the JSON document to FILE")
    p.add_argument("--list", action="store_true", help="list the tasks and exit")
    p.add_argument("--provider", help="provider preset (as for zen)")
    p.add_argument("--model", help="model name")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint URL")
    p.add_argument("--api-key", help="API key (better: set ZEN_API_KEY)")
    p.add_argument(
        "--tool-protocol",
        choices=["native", "text", "auto"],
        help="as for zen: tool calls, edit blocks, or native until the model cannot",
    )
    return p


def bench_command(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if args.repeat < 1 or (args.timeout is not None and args.timeout <= 0):
        return fail("bench: --repeat must be at least 1 and --timeout above 0")
    try:
        folder = expand_user(args.tasks) if args.tasks else tasks.builtin_dir()
        chosen = tasks.select(tasks.load_suite(folder), args.names or [])
    except (tasks.TaskError, OSError) as e:
        return fail(f"bench: {e}")
    if args.list:
        for task in chosen:
            print(f"{task.name}: {task.instruction.splitlines()[0][:100]}")
        return exits.DONE
    modes = list(dict.fromkeys(args.mode or ["single", "dual"]))
    return _measure(args, chosen, modes)


def _measure(args: argparse.Namespace, chosen: list[tasks.Task], modes: list[str]) -> int:
    from zen.settings.schema import ConfigError

    names = ("provider", "model", "base_url", "api_key", "tool_protocol")
    overrides = {k: getattr(args, k) for k in names}
    try:
        point = endpoint.resolve(Path.cwd(), overrides, dual=modes != ["single"])
    except ConfigError as e:
        return fail(f"bench: {e}")
    problem = endpoint.unreachable(*point.probe)
    if problem:
        return fail(f"bench: {problem}", exits.API_ERROR)
    modes = list(dict.fromkeys(point.header["collaboration"] if m == "dual" else m for m in modes))
    header = {
        **point.header,
        "modes": modes,
        "repeat": args.repeat,
        "tasks": len(chosen),
    }
    print(f"zen bench: {endpoint.describe(header)}", file=sys.stderr, flush=True)
    try:
        rows = asyncio.run(_stoppable(_run_all(args, chosen, modes, point)))
    except KeyboardInterrupt:
        return fail("bench: interrupted; the running task was stopped", exits.INTERRUPTED)
    except _Signalled as e:
        return fail(f"bench: stopped by {e}; the running task was stopped", e.code)
    except _Stop as e:
        return fail(f"bench: {e}", exits.API_ERROR)
    return _report(args, header, rows)


async def _stoppable(work: Coroutine[Any, Any, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """SIGTERM and SIGHUP stop the bench like Ctrl-C: the running task's tree is killed."""
    from zen.ui.stop_signals import StopSignals

    stop = StopSignals()
    main = asyncio.current_task()
    assert main is not None
    stop.install(main.cancel)
    try:
        return await work
    except asyncio.CancelledError:
        if stop.received is None:
            raise
        raise _Signalled(stop.name, stop.exit_code) from None
    finally:
        stop.remove()


class _Signalled(Exception):
    def __init__(self, name: str, code: int) -> None:
        super().__init__(name)
        self.code = code


class _Stop(Exception):
    """The first run failed before its first request: the rest would fail the same way."""


async def _run_all(
    args: argparse.Namespace, chosen: list[tasks.Task], modes: list[str], point: endpoint.Endpoint
) -> list[dict[str, Any]]:
    progress = Progress(len(chosen) * len(modes) * args.repeat)
    rows: list[dict[str, Any]] = []
    try:
        for repeat in range(1, args.repeat + 1):
            for task in chosen:
                for mode in modes:
                    progress.start(task.name, mode)
                    row = await _run_one(task, mode, repeat, args.timeout, point)
                    if (
                        not rows
                        and row["ended"] == "error"
                        and not any(role["requests"] for role in row["tokens"].values())
                    ):
                        raise _Stop(f"the first task failed before any answer: {row['error']}")
                    rows.append(row)
                    progress.finish(row)
    finally:
        progress.close()
    return rows


async def _run_one(
    task: tasks.Task, mode: str, repeat: int, timeout: float | None, point: endpoint.Endpoint
) -> dict[str, Any]:
    deadline = timeout or task.timeout or DEFAULT_TIMEOUT
    run_dir = Path(tempfile.mkdtemp(prefix="zen-bench-"))
    try:
        workspace, home = child.prepare(task, run_dir, point.config_yaml)
        env = endpoint.child_env(home, point.keys)
        outcome = await child.run_task(task, mode, workspace, env, deadline)
        answer = str(outcome.result.get("result") or "")
        verdict = await verify(task, run_dir, workspace, answer, home)
    except OSError as e:
        outcome = child.Outcome(stderr=f"cannot prepare the run: {e}")
        verdict = Verdict("error", str(e))
    finally:
        child.remove(run_dir)
    return make_row(task.name, mode, repeat, outcome, verdict)


def _report(args: argparse.Namespace, header: dict[str, Any], rows: list[dict[str, Any]]) -> int:
    from zen.bench.report import document, table

    doc = document(header, rows)
    if args.output:
        try:
            expand_user(args.output).write_text(doc, encoding="utf-8")
        except OSError as e:
            print(table(header, rows, header["modes"]), end="")
            return fail(f"bench: cannot write {args.output}: {e.strerror or e}")
    if args.json:
        sys.stdout.write(doc)
    else:
        print(table(header, rows, header["modes"]), end="")
    return exits.DONE

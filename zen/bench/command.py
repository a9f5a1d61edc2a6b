"""`zen bench`: the flags, then every task × mode × repeat, then the report.

Nothing is written where it was started: runs live in temporary folders, the same path for
each run (`child.run_folder`), deleted after it. Each finished row is kept at once
(`results.py`: a file under `~/.zen/bench/`, and `--output`), so a bench stopped by Ctrl-C or
SIGTERM still prints and keeps the table of what finished, marked partial. A server that is
down is found before the first task; a bad flag, task folder or name is one line, never a
traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

from zen.base import exits
from zen.base.paths import expand_user
from zen.bench import child, endpoint, tasks
from zen.bench.progress import Progress
from zen.bench.rows import make_row
from zen.bench.verify import Verdict, check_sandbox, sandbox_header, verify
from zen.cli.output import fail
from zen.cli.parser import help_formatter
from zen.tools.sandbox.runner import Sandbox

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
    p.add_argument("--tasks", metavar="DIR", help="your own tasks (docs/bench.md, Writing tasks)")
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
    p.add_argument(
        "--output",
        metavar="FILE",
        help="also write the JSON document to FILE, row by row (it always goes to ~/.zen/bench/)",
    )
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
        from textwrap import shorten

        for task in chosen:
            first = (task.instruction.strip().splitlines() or [""])[0]
            print(f"{task.name}: {shorten(first, 100, placeholder=' …')}")
        return exits.DONE
    return _measure(args, chosen, list(dict.fromkeys(args.mode or ["single", "dual"])))


def _measure(args: argparse.Namespace, chosen: list[tasks.Task], asked: list[str]) -> int:
    from zen.bench.report import title_line
    from zen.bench.results import Results
    from zen.settings.schema import ConfigError

    names = ("provider", "model", "base_url", "api_key", "tool_protocol")
    overrides = {k: getattr(args, k) for k in names}
    try:
        config, roles = endpoint.roles_for(Path.cwd(), overrides, dual=asked != ["single"])
    except ConfigError as e:
        return fail(f"bench: {e}")
    problem, served = endpoint.probe(roles["main"])
    if problem:
        return fail(f"bench: {problem}", exits.API_ERROR)
    point = endpoint.build(config, endpoint.served_to(roles, served, config.model_profiles))
    modes = labels(asked, point.header["collaboration"])
    checks = check_sandbox(point.sandbox, point.sandbox_options)
    sandbox, unsandboxed = asyncio.run(sandbox_header(checks))
    if checks.mode == "on" and unsandboxed:
        return fail(f"bench: sandbox is on, but {sandbox['problem']}; nothing ran", exits.USAGE)
    header = {
        **point.header,
        "modes": list(modes),
        "repeat": args.repeat,
        "tasks": len(chosen),
        "sandbox": sandbox,
    }
    results = Results(header, args.output)
    problem = results.check_output()
    if problem:
        return fail(f"bench: {problem}")
    print(title_line(header), file=sys.stderr, flush=True)
    if unsandboxed:
        print(unsandboxed, file=sys.stderr, flush=True)
    code = exits.DONE
    try:
        asyncio.run(_stoppable(_run_all(args, chosen, modes, point, results, checks)))
        results.finish()
    except KeyboardInterrupt:
        code = _stopped(results, "interrupted (Ctrl-C)", exits.INTERRUPTED)
    except _Signalled as e:
        code = _stopped(results, f"stopped by {e}", e.code)
    except _Stop as e:
        return fail(f"bench: {e}", exits.API_ERROR)
    return _report(args, results, code)


def _stopped(results: Any, why: str, code: int) -> int:
    """Keep what finished, marked partial, and say so."""
    results.stop(why)
    print(f"zen: bench: {why}; the running task was stopped", file=sys.stderr, flush=True)
    return code


def labels(asked: list[str], collaboration: str) -> dict[str, str]:
    """Column name → collaboration ("" for single): `single`, `dual` (the configured
    collaboration, which the header names), `dual/controlled` for another one."""
    found: dict[str, str] = {}
    for mode in asked:
        if mode == "single":
            found["single"] = ""
        elif mode in ("dual", collaboration):
            found["dual"] = collaboration
        else:
            found[f"dual/{mode}"] = mode
    return found


async def _stoppable(work: Coroutine[Any, Any, None]) -> None:
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
    args: argparse.Namespace,
    chosen: list[tasks.Task],
    modes: dict[str, str],
    point: endpoint.Endpoint,
    results: Any,
    checks: Sandbox,
) -> None:
    progress = Progress(len(chosen) * len(modes) * args.repeat)
    try:
        for repeat in range(1, args.repeat + 1):
            for task in chosen:
                for mode, collaboration in modes.items():
                    progress.start(task.name, mode)
                    row = await _run_one(
                        task, mode, collaboration, repeat, args.timeout, point, checks
                    )
                    if (
                        not results.rows
                        and row["ended"] == "error"
                        and not any(role["requests"] for role in row["tokens"].values())
                    ):
                        raise _Stop(f"the first task failed before any answer: {row['error']}")
                    progress.finish(row)
                    results.add(row)
    finally:
        progress.close()


async def _run_one(
    task: tasks.Task,
    mode: str,
    collaboration: str,
    repeat: int,
    timeout: float | None,
    point: endpoint.Endpoint,
    checks: Sandbox,
) -> dict[str, Any]:
    deadline = timeout or task.timeout or DEFAULT_TIMEOUT
    run_dir = child.run_folder()
    try:
        workspace, home = child.prepare(task, run_dir, point.config_yaml)
        env = endpoint.child_env(home, point.keys)
        outcome = await child.run_task(task, collaboration or "single", workspace, env, deadline)
        answer = str(outcome.result.get("result") or "")
        verdict = await verify(task, run_dir, workspace, answer, checks)
    except OSError as e:
        outcome = child.Outcome(stderr=f"cannot prepare the run: {e}")
        verdict = Verdict("error", str(e))
    finally:
        child.remove(run_dir)
    return make_row(task.name, mode, repeat, outcome, verdict, collaboration or None)


def _report(args: argparse.Namespace, results: Any, code: int) -> int:
    """The document (`--json`) or the table on stdout; the last line names the files."""
    from zen.bench.report import table

    if args.json:
        sys.stdout.write(results.text())
    else:
        modes = results.header["modes"]
        print(table(results.header, results.rows, modes, results.stopped), end="")
    sys.stdout.flush()
    print(results.where(), file=sys.stderr, flush=True)
    return code

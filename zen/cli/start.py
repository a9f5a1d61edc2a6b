"""Starting a run: check the flags, decide trust, then open the shell or run one `-p` task.

The shell gets its prompt before the heavy modules load (issue 20); `-p` loads the config,
reads its task and runs it to one exit code, whatever happens (a signal, a bug: one line,
never a traceback). `zen.app` is reached from here only, inside the functions that need it.
"""

from __future__ import annotations

import sys
from functools import partial

from zen.base import exits
from zen.cli.no_key import explained
from zen.cli.output import fail
from zen.cli.parser import cli_overrides
from zen.cli.task_input import piped_input, read_task
from zen.cli.trust_gate import decide_trust

TYPE_CHECKING = False  # `typing` costs start-up time; checkers know this idiom
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any


def start(args: argparse.Namespace) -> int:
    """`zen [flags]`: the shell, or with `-p` one task."""
    from zen.base.paths import directory_arg

    workspace, problem = directory_arg(args.directory)
    problem = problem or flag_problem(args)
    if problem:
        return refuse(args, problem)
    root = workspace.resolve()
    if sys.platform != "win32":  # a killed zen's sandboxed command: undone before anything reads
        from zen.tools.sandbox.recover import recover

        for line in recover(root):
            from zen.base.terminal_safe import terminal_safe

            print(f"zen: {terminal_safe(line)}", file=sys.stderr)
    interactive = args.task is None and sys.stdin.isatty() and sys.stdout.isatty()
    trusted = decide_trust(root, flag=args.trust, ask=interactive, shown=args.directory)
    if trusted is None:
        return exits.DONE
    if args.task is None:
        return start_shell(args, root, trusted, home=snapshot_home(args, root, interactive))
    return start_task(args, root, trusted)


def snapshot_home(args: argparse.Namespace, root: Path, interactive: bool) -> bool:
    """Whether checkpoints may snapshot the home folder: `--yes` says yes, the shell asks
    once, and anything else (`-p`, pipes) leaves them off with one line."""
    from zen.checkpoints.scope import is_home

    if args.yes or not is_home(root):
        return args.yes
    if not interactive:
        return False
    from zen.ui.home_question import ask_snapshot_home

    return ask_snapshot_home()


def flag_problem(args: argparse.Namespace) -> str:
    """What makes the flags unusable ("" if nothing); what `--collab` implies, noted on stderr."""
    if args.max_turns is not None and args.max_turns < 1:
        return "--max-turns must be at least 1"
    if args.collaboration and args.agent_mode is None:
        args.agent_mode = "dual"
        print(f"zen: --collab {args.collaboration} implies --dual", file=sys.stderr)
    elif args.collaboration and args.agent_mode == "single":
        print(
            f"zen: --collab {args.collaboration} applies to dual mode only; --single wins "
            "(/dual switches)",
            file=sys.stderr,
        )
    if args.continue_last and args.resume is not None:
        return "--continue and --resume cannot be used together"
    if args.task is not None and args.resume == "":
        return "--resume needs a session ID with -p (zen sessions list shows them)"
    return ""


def refuse(
    args: argparse.Namespace,
    message: str,
    code: int = exits.USAGE,
    stop: str = "error",
    progress: Any = None,
) -> int:
    """An error that ends the run: one line on stderr and, for `-p` with JSON output, the one
    result object it always ends with (with the session and turns `progress` got to)."""
    if args.task is not None and args.output_format != "text":
        from zen.ui.run_result import result_object, write_result

        session = progress.session if progress else None
        write_result(sys.stdout, result_object(session, None, message, stop, progress=progress))
    return fail(message, code)


def start_shell(args: argparse.Namespace, root: Path, trusted: bool, *, home: bool) -> int:
    """The shell, its prompt as soon as possible (issue 20).

    A config whose inputs already passed every start-up check (`zen.settings.config_check`) is not
    validated before the prompt: pydantic and the session's modules load while the user types
    and the config is validated again then. Any other config is checked in full first, so a
    broken one is reported before a prompt that could only fail."""
    from zen.settings import config_check

    overrides = cli_overrides(args)
    key = config_check.digest(root, overrides, trusted=trusted)
    resuming = args.resume is not None or args.continue_last
    shown = None if resuming else config_check.known(key)
    if shown is None:
        from zen.settings.loading import load_config
        from zen.settings.schema import ConfigError

        try:
            config = load_config(root, overrides, trusted=trusted)
            shown = startup_summary(config, args.model)
        except ConfigError as e:
            return refuse(args, explained(e))
        config_check.remember(key, shown)

        def load() -> Any:
            return config

    else:

        def load() -> Any:
            from zen.settings.loading import load_config

            return load_config(root, overrides, trusted=trusted)

    if shown.get("note"):
        print(f"zen: {shown['note']}", file=sys.stderr)
    from zen.ui.shell import run_shell

    return run_shell(
        load,
        shown,
        root,
        partial(open_session_later, snapshot_home=home),
        imports=("zen.app",),
        simple=args.simple,
        yes=args.yes,
        resume=args.resume,
        continue_last=args.continue_last,
        keep=frozenset(overrides),
    )


def open_session_later(*args: Any, **kwargs: Any) -> Any:
    """zen.app's `open_session`, imported when the shell opens its session (after its prompt)."""
    from zen.app import open_session

    return open_session(*args, **kwargs)


def startup_summary(config: Any, model: str | None) -> dict[str, str]:
    """Run the start-up checks (ConfigError) and keep what the prompt and banner show."""
    from zen.app import check_startup
    from zen.llm.served import asks_server
    from zen.settings.model_roles import resolve_model

    check_startup(config)
    dual = config.agent_mode == "dual"
    settings = resolve_model(config, "orchestrator" if dual else None)
    return {
        "mode": config.agent_mode,
        "collaboration": config.collaboration,
        "model": settings.model,
        "provider": settings.provider if settings.default_model else "",
        "asks": "yes" if settings.default_model and asks_server(settings.base_url) else "",
        "note": model_note(config, model) if model else "",
    }


def model_note(config: Any, model: str) -> str:
    """What `--model` did when roles have models of their own (it overrides only the rest)."""
    from zen.settings.schema import DUAL_ROLES

    kept = [
        f"{role} keeps {over.model}"
        for role in DUAL_ROLES
        if (over := getattr(config.dual_agent, role)).model
    ]
    if not kept:
        return ""
    mode = "" if config.agent_mode == "dual" else " (in dual mode)"
    return (
        f"--model {model} applies to every role without its own model; "
        f"{', '.join(kept)} (dual_agent in the config){mode}; /model shows them all"
    )


def start_task(args: argparse.Namespace, root: Path, trusted: bool) -> int:
    """`zen -p TASK`: the config, the task's text (with what a pipe gives), then the run."""
    from zen.settings.loading import load_config
    from zen.settings.schema import ConfigError

    try:
        config = load_config(root, cli_overrides(args), trusted=trusted)
    except ConfigError as e:
        return refuse(args, str(e))
    if args.model:
        note = model_note(config, args.model)
        if note:
            print(f"zen: {note}", file=sys.stderr)

    task = read_task(args.task)
    if not task.strip():
        return refuse(args, "the task is empty")
    if args.task != "-":
        piped = piped_input()
        if piped:
            task = f"{task.rstrip()}\n\n<stdin>\n{piped.rstrip()}\n</stdin>"
    return run_task(config, root, task, args)


def run_task(config: Any, workspace: Path, task: str, args: argparse.Namespace) -> int:
    """Run the task to one exit code: every failure is one line (and one JSON result object)."""
    import asyncio

    from zen.app import SessionError
    from zen.settings.schema import ConfigError
    from zen.ui.run_result import Progress

    progress = Progress()  # what a stopped run got to, for its JSON result
    try:
        return asyncio.run(run_stoppable(config, workspace, task, args, progress))
    except (ConfigError, SessionError) as e:
        return refuse(args, explained(e))
    except KeyboardInterrupt:
        return refuse(args, "interrupted", exits.INTERRUPTED, "interrupted", progress)
    except BrokenPipeError:
        raise  # the reader went away: the entry point ends quietly
    except Exception as e:  # a bug in zen: still one line, never a traceback
        return refuse(args, f"internal error: {type(e).__name__}: {e}", exits.API_ERROR)


async def run_stoppable(
    config: Any, workspace: Path, task: str, args: argparse.Namespace, progress: Any
) -> int:
    """The task, cancelled by SIGTERM or SIGHUP: its processes and MCP servers stop with it."""
    import asyncio

    from zen.ui.stop_signals import StopSignals

    stop = StopSignals()
    main = asyncio.current_task()
    assert main is not None
    stop.install(main.cancel)
    try:
        return await run_in_session(config, workspace, task, args, progress)
    except asyncio.CancelledError:
        if stop.received is None:
            raise
        if sys.version_info >= (3, 11):  # 3.10 has no cancel count to undo
            main.uncancel()
        message = f"stopped by {stop.name}; the run's processes and MCP servers were stopped"
        try:
            return refuse(args, message, stop.exit_code, "interrupted", progress)
        except OSError:  # the terminal or pipe is gone (SIGHUP)
            return stop.exit_code
    finally:
        stop.remove()


async def run_in_session(
    config: Any, workspace: Path, task: str, args: argparse.Namespace, progress: Any = None
) -> int:
    """Open the session (resumed or new), say which default model it uses, run the task."""
    from zen.app import open_session
    from zen.llm.served import asks_server
    from zen.ui.oneshot import run_oneshot

    async with open_session(
        config,
        workspace,
        resume=args.resume,
        continue_last=args.continue_last,
        keep=frozenset(cli_overrides(args)),
        snapshot_home=args.yes,
    ) as session:
        settings = session.settings()
        if settings.default_model and config.provider and not asks_server(settings.base_url):
            print(
                f"zen: using {settings.provider}'s default model {settings.model} "
                "(choose another with --model)",
                file=sys.stderr,
                flush=True,
            )
        return await run_oneshot(
            session, task, output_format=args.output_format, yes=args.yes, progress=progress
        )

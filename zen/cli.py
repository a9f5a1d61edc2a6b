"""Command line: parse flags, load the config, hand over to the one-shot runner or the shell.

Only argparse is imported at module level: `zen --version` and `zen --help` must stay fast,
so everything heavy (openai, rich, prompt_toolkit, mcp) is imported on the path that needs it.
"""

from __future__ import annotations

import argparse
import sys

from zen import __version__
from zen.base import exits

TYPE_CHECKING = False  # `typing` alone costs ~5 ms of a ~30 ms start; checkers know this idiom
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any


def help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, sized without `shutil` (a tenth of `zen --help`'s start-up)."""
    import os

    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        width = int(os.environ.get("COLUMNS", "80") or 80)
    return argparse.HelpFormatter(prog, width=max(width, 40) - 2)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="zen",
        formatter_class=help_formatter,
        description="A terminal coding agent for any OpenAI-compatible model.",
        epilog="Run `zen` for the interactive shell, `zen -p TASK` for one task, "
        "`zen mcp list` to see MCP servers, `zen config` for models, hosts and keys, "
        "`zen trust [DIR]` to trust a folder's settings, `zen sessions list` the saved sessions, "
        "`zen rewind --list` the checkpoints, `zen acp` serves editors (Agent Client Protocol).",
    )
    p.add_argument(
        "-p",
        "--print",
        dest="task",
        metavar="TASK",
        help="run one task and exit ('-' reads it from stdin)",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--single",
        dest="agent_mode",
        action="store_const",
        const="single",
        help="one agent does everything",
    )
    mode.add_argument(
        "--dual",
        dest="agent_mode",
        action="store_const",
        const="dual",
        help="an Orchestrator scouts and delegates to a Coder",
    )
    p.add_argument(
        "--collab",
        dest="collaboration",
        choices=["delegated", "autonomous", "controlled"],
        help="how the Orchestrator and Coder share the work (implies --dual)",
    )
    p.add_argument("--model", help="model name")
    p.add_argument(
        "--work-mode",
        dest="work_mode",
        metavar="MODE",
        help="bug-fix, develop, explain (read-only) or optimize",
    )
    p.add_argument(
        "--provider",
        help="provider preset: openai, deepseek, kimi, glm, qwen, "
        "openrouter, ollama, vllm, lmstudio, llamacpp, litellm (without --model: "
        "its default model)",
    )
    p.add_argument("--base-url", help="OpenAI-compatible endpoint URL")
    p.add_argument("--api-key", help="API key (better: set ZEN_API_KEY)")
    p.add_argument("-C", dest="directory", metavar="DIR", help="work in DIR (the workspace)")
    p.add_argument("--yes", action="store_true", help="approve every confirm-level tool call")
    p.add_argument(
        "--trust",
        action="store_true",
        help="load this folder's own settings (.zen/config.yaml, .mcp.json) for "
        "this run without recording trust (see `zen trust`)",
    )
    p.add_argument("--max-turns", type=int, metavar="N", help="stop after N model turns")
    p.add_argument(
        "--max-time",
        type=float,
        metavar="S",
        help="stop the task after S seconds (default: no limit)",
    )
    p.add_argument(
        "--max-budget-usd",
        type=float,
        metavar="USD",
        help="stop the task once it has cost more than USD (when the model's price "
        "is known; exit 8)",
    )
    p.add_argument(
        "--timeout",
        type=float,
        metavar="S",
        help="give up on one model request after S seconds in all (default 900)",
    )
    p.add_argument(
        "--first-byte-timeout",
        type=float,
        metavar="S",
        help="... when its answer has not begun after S seconds (default 300)",
    )
    p.add_argument(
        "--idle-timeout",
        type=float,
        metavar="S",
        help="... when its stream is silent for S seconds (default 120)",
    )
    p.add_argument(
        "--connect-timeout",
        type=float,
        metavar="S",
        help="... when the server does not accept a connection in S seconds (default 10)",
    )
    p.add_argument(
        "--output-format",
        choices=["text", "json", "stream-json"],
        default="text",
        help="how -p reports (default: text)",
    )
    p.add_argument(
        "-c",
        "--continue",
        dest="continue_last",
        action="store_true",
        help="continue this workspace's latest session",
    )
    p.add_argument(
        "-r",
        "--resume",
        metavar="ID",
        nargs="?",
        const="",
        help="continue session ID (without ID, the shell lists this workspace's "
        "sessions to pick from)",
    )
    p.add_argument(
        "--simple",
        action="store_true",
        help="plain input() shell, for terminals prompt-toolkit cannot drive",
    )
    p.add_argument("--version", action="version", version=f"zen {__version__}")
    return p


CLI_KEYS = (
    "agent_mode",
    "collaboration",
    "model",
    "provider",
    "base_url",
    "api_key",
    "max_turns",
    "max_time",
    "max_budget_usd",
    "timeout",
    "first_byte_timeout",
    "idle_timeout",
    "connect_timeout",
    "work_mode",
)


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Only the flags the user actually gave: they outrank every other config layer."""
    return {k: getattr(args, k) for k in CLI_KEYS if getattr(args, k) is not None}


def exact_output() -> None:
    """Every character of an answer reaches the user as written, whatever the code page.

    Redirected to a pipe or file, stdout and stderr write UTF-8 (Windows would use the ANSI
    code page, which cannot encode `✓` or CJK: a crash after the edits were made, or `?`).
    A terminal keeps its own encoding (a Windows console is written through its wide-character
    API, which has no code page); only a lone surrogate, never valid text, is replaced."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            tty = stream.isatty()
        except (OSError, ValueError):
            tty = False
        try:
            if tty:
                reconfigure(errors="replace")
            else:
                reconfigure(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            pass


def fail(message: str, code: int = exits.USAGE) -> int:
    from zen.base.terminal_safe import terminal_safe  # messages quote config files and paths

    print(terminal_safe(f"zen: {message}"), file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # the common case, answered before argparse is even built
        print(f"zen {__version__}")
        return 0
    exact_output()
    if argv[:1] == ["mcp"]:
        return mcp_command(argv[1:])
    if argv[:1] == ["acp"]:
        from zen.acp.command import acp_command

        return acp_command(argv[1:])
    if argv[:1] == ["sessions"]:
        from zen.ui.sessions_cmd import sessions_command

        return sessions_command(argv[1:])
    if argv[:1] == ["trust"]:
        return trust_command(argv[1:])
    if argv[:1] == ["config"]:
        return config_command(argv[1:])
    if argv[:1] == ["rewind"]:
        from zen.ui.rewind import rewind_command

        return rewind_command(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        return _main(args)
    finally:
        report_tightened()


def _main(args: argparse.Namespace) -> int:
    from zen.base.paths import expand_user

    workspace = expand_user(args.directory or ".")
    if not workspace.is_dir():
        return refuse(args, f"-C {args.directory}: no such directory")
    if args.max_turns is not None and args.max_turns < 1:
        return refuse(args, "--max-turns must be at least 1")
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
        return refuse(args, "--continue and --resume cannot be used together")
    if args.task is not None and args.resume == "":
        return refuse(args, "--resume needs a session ID with -p (zen sessions list shows them)")

    root = workspace.resolve()
    interactive = args.task is None and sys.stdin.isatty() and sys.stdout.isatty()
    trusted = decide_trust(root, flag=args.trust, ask=interactive, shown=args.directory)
    if trusted is None:
        return exits.DONE
    if args.task is None:
        return start_shell(args, root, trusted)

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


def start_shell(args: argparse.Namespace, root: Path, trusted: bool) -> int:
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
            return refuse(args, str(e))
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
        open_session_later,
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
    from zen.settings.model_roles import resolve_model

    check_startup(config)
    dual = config.agent_mode == "dual"
    settings = resolve_model(config, "orchestrator" if dual else None)
    return {
        "mode": config.agent_mode,
        "collaboration": config.collaboration,
        "model": settings.model,
        "provider": settings.provider if settings.default_model else "",
        "note": model_note(config, model) if model else "",
    }


def refuse(args: argparse.Namespace, message: str) -> int:
    """A usage or config error before the task starts: one line on stderr and, for `-p` with
    JSON output, the one result object it always ends with."""
    if args.task is not None and args.output_format != "text":
        from zen.ui.oneshot import result_object, write_result

        write_result(sys.stdout, result_object(None, None, message))
    return fail(message)


def decide_trust(root: Path, *, flag: bool, ask: bool, shown: str | None) -> bool | None:
    """Whether the workspace's own inputs apply to this run; None: the user chose to quit.

    Trusted (with unchanged inputs) or `--trust`: yes. Otherwise the interactive shell asks
    once, before anything from them runs; everything else (`-p`, pipes) skips them with one
    warning line. Never a prompt in `-p`."""
    from zen.base.warn import warn_stderr
    from zen.settings import trust

    state = trust.check(root)
    if flag or state.trusted:
        return True
    if ask:
        from zen.ui.trust_question import ask_trust

        answer = ask_trust(state, trust.describe(root))
        if answer == "trust":
            try:
                trust.trust(state)
            except OSError as e:
                warn_stderr(
                    f"cannot record trust in {trust.store_path()} "
                    f"({e.strerror or e}); trusted for this run only"
                )
        return None if answer == "quit" else answer == "trust"
    where = f" {shown}" if shown else ""
    why = (
        "they changed since you trusted this folder"
        if state.changed
        else ("this folder is not trusted")
    )
    warn_stderr(
        f"ignored {', '.join(state.inputs)}: {why}; review them "
        f"and run `zen trust{where}`, or pass --trust for this run"
    )
    return False


def report_tightened() -> None:
    """One line per state path whose wider permissions zen narrowed (issue 19)."""
    paths = sys.modules.get("zen.base.paths")
    for path in getattr(paths, "tightened", [])[:]:
        print(
            f"zen: note: {path} was readable by others; it is now private to you", file=sys.stderr
        )
    if paths is not None:
        paths.tightened.clear()


def read_task(given: str) -> str:
    """The task as valid text: bytes that are not UTF-8 (in argv, kept by Python as lone
    surrogates, or on stdin) become U+FFFD instead of failing far away, in a request."""
    if given == "-":  # UTF-8 whatever the code page; PowerShell may put a BOM first
        return sys.stdin.buffer.read().decode("utf-8-sig", "replace")
    return given.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


PIPED_LIMIT = 200_000
"""Characters of piped stdin attached to a `-p` task, at most."""
PIPED_WAIT = 0.5
"""Seconds stdin may take to give data or end-of-file before zen goes on without it."""


def piped_input(wait: float = PIPED_WAIT) -> str:
    """What a pipe gives on stdin (`cat log | zen -p "explain"`), as context for the task.

    Read only when stdin is not a terminal and has data or end-of-file within `wait` seconds:
    an editor or CI job that leaves stdin open and silent must not hang zen. A reader thread
    waits for the first chunk (select() takes only sockets on Windows); if the deadline passes
    it is left blocked and dies with the process."""
    import os
    import queue
    import threading

    stream = sys.stdin
    if stream is None:
        return ""
    try:
        if stream.isatty():
            return ""
        fd = stream.fileno()
    except (OSError, ValueError):
        return ""
    chunks: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()

    def pump() -> None:
        size = 0
        try:
            while size <= PIPED_LIMIT * 4:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                chunks.put(chunk)
                size += len(chunk)
        except OSError:
            pass
        chunks.put(None)

    threading.Thread(target=pump, name="zen-stdin", daemon=True).start()
    try:
        chunk = chunks.get(timeout=wait)
    except queue.Empty:
        return ""
    got: list[bytes] = []
    while chunk is not None:
        got.append(chunk)
        chunk = chunks.get()
    text = b"".join(got).decode("utf-8-sig", "replace").replace("\r\n", "\n")
    if len(text) > PIPED_LIMIT:
        text = text[:PIPED_LIMIT] + f"\n[cut: stdin gave more than {PIPED_LIMIT:,} characters]"
    return text


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


def run_task(config: Any, workspace: Path, task: str, args: argparse.Namespace) -> int:
    import asyncio

    from zen.app import SessionError, open_session
    from zen.settings.schema import ConfigError
    from zen.ui.oneshot import result_object, run_oneshot, write_result

    async def go() -> int:
        from zen.ui.stop_signals import StopSignals

        stop = StopSignals()
        main = asyncio.current_task()
        assert main is not None
        stop.install(main.cancel)
        try:
            async with open_session(
                config,
                workspace,
                resume=args.resume,
                continue_last=args.continue_last,
                keep=frozenset(cli_overrides(args)),
            ) as session:
                settings = session.settings(session.role)
                if settings.default_model and config.provider:
                    print(
                        f"zen: using {settings.provider}'s default model {settings.model} "
                        "(choose another with --model)",
                        file=sys.stderr,
                        flush=True,
                    )
                return await run_oneshot(
                    session, task, output_format=args.output_format, yes=args.yes
                )
        except asyncio.CancelledError:
            if stop.received is None:
                raise
            if sys.version_info >= (3, 11):  # 3.10 has no cancel count to undo
                main.uncancel()
            message = f"stopped by {stop.name}; the run's processes and MCP servers were stopped"
            try:
                return failed(message, stop.exit_code, "interrupted")
            except OSError:  # the terminal or pipe is gone (SIGHUP)
                return stop.exit_code
        finally:
            stop.remove()

    def failed(message: str, code: int, stop: str = "error") -> int:
        if args.output_format != "text":  # json always ends with one object
            write_result(sys.stdout, result_object(None, None, message, stop))
        return fail(message, code)

    try:
        return asyncio.run(go())
    except (ConfigError, SessionError) as e:
        return failed(str(e), exits.USAGE)
    except KeyboardInterrupt:
        return failed("interrupted", exits.INTERRUPTED, "interrupted")
    except Exception as e:  # a bug in zen: still one line, never a traceback
        return failed(f"internal error: {type(e).__name__}: {e}", exits.API_ERROR)


def mcp_command(argv: list[str]) -> int:
    if argv[:1] != ["list"]:
        return fail("usage: zen mcp list [-C DIR] [--trust]")
    parser = argparse.ArgumentParser(prog="zen mcp list")
    parser.add_argument("-C", dest="directory", metavar="DIR")
    parser.add_argument(
        "--trust",
        action="store_true",
        help="include this folder's own servers (.mcp.json) for this run",
    )
    args = parser.parse_args(argv[1:])
    from zen.base.paths import expand_user

    workspace = expand_user(args.directory or ".").resolve()

    import asyncio

    from zen.mcp.manager import mcp_list
    from zen.settings.loading import load_config
    from zen.settings.schema import ConfigError

    trusted = decide_trust(workspace, flag=args.trust, ask=False, shown=args.directory)
    try:
        config = load_config(workspace, trusted=bool(trusted))
    except ConfigError as e:
        return fail(str(e))
    try:
        text, all_started = asyncio.run(mcp_list(config, workspace))
    except KeyboardInterrupt:
        return fail("interrupted", exits.INTERRUPTED)
    finally:
        report_tightened()
    from zen.base import redaction
    from zen.base.terminal_safe import terminal_safe

    print(terminal_safe(redaction.scrub(text)))
    return exits.DONE if all_started else exits.MCP_FAILED


def config_command(argv: list[str]) -> int:
    """`zen config`: where each role's requests go and with which key (redacted)."""
    parser = argparse.ArgumentParser(
        prog="zen config",
        formatter_class=help_formatter,
        description="Show the model, host and key of each role.",
    )
    parser.add_argument("-C", dest="directory", metavar="DIR")
    parser.add_argument(
        "--trust", action="store_true", help="include this folder's own settings for this run"
    )
    args = parser.parse_args(argv)
    from zen.base.paths import expand_user
    from zen.settings.loading import load_config
    from zen.settings.model_roles import resolve_model
    from zen.settings.schema import DUAL_ROLES, ConfigError
    from zen.ui.format import endpoint_line

    root = expand_user(args.directory or ".").resolve()
    trusted = decide_trust(root, flag=args.trust, ask=False, shown=args.directory)
    try:
        config = load_config(root, trusted=bool(trusted))
    except ConfigError as e:
        return fail(str(e))
    finally:
        report_tightened()
    from zen.base.terminal_safe import terminal_safe as safe
    from zen.settings import trust

    inputs = trust.check(root).inputs
    own = f"{', '.join(inputs)} {'used' if trusted else 'ignored'}" if inputs else "none"
    print(safe(f"workspace: {root} (its own settings: {own})"))
    roles = DUAL_ROLES if config.agent_mode == "dual" else ("main",)
    for role in roles:
        try:
            print(safe(endpoint_line(role, resolve_model(config, role))))
        except ConfigError as e:
            print(safe(f"{role}: {e}"))
    for name, level in config.permissions.items():
        print(safe(f"permission {name}: {level}"))
    return exits.DONE


def trust_command(argv: list[str]) -> int:
    """`zen trust [DIR]`, `zen trust --list`, `zen trust --remove DIR`."""
    parser = argparse.ArgumentParser(
        prog="zen trust",
        formatter_class=help_formatter,
        description="Trust a folder's own settings (.zen/config.yaml, .mcp.json, hooks): zen "
        "loads them only for folders you trusted, and asks again when they change.",
    )
    parser.add_argument("directory", nargs="?", default=".", metavar="DIR")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--list", action="store_true", help="list trusted folders")
    which.add_argument("--remove", metavar="DIR", help="stop trusting DIR")
    args = parser.parse_args(argv)
    from zen.base.paths import expand_user
    from zen.base.terminal_safe import terminal_safe as safe
    from zen.settings import trust

    try:
        if args.list:
            entries = trust.listing()
            for entry in entries:
                print(safe(f"{entry.path}  ({entry.state}, since {entry.trusted})"))
            if not entries:
                print("No trusted folders.")
            return exits.DONE
        if args.remove:
            if not trust.forget(expand_user(args.remove)):
                return fail(f"{args.remove} is not a trusted folder (see zen trust --list)")
            print(safe(f"no longer trusted: {expand_user(args.remove).resolve()}"))
            return exits.DONE
        root = expand_user(args.directory)
        if not root.is_dir():
            return fail(f"{args.directory}: no such directory")
        state = trust.check(root)
        trust.trust(state)
    except OSError as e:
        return fail(f"cannot update {trust.store_path()}: {e.strerror or e}")
    finally:
        report_tightened()
    if not state.inputs:
        print(safe(f"trusted {state.workspace} (it has no settings of its own yet)"))
        return exits.DONE
    print(safe(f"trusted {state.workspace}; its settings:"))
    for line in trust.describe(state.workspace):
        print(safe(f"  - {line}"))
    return exits.DONE

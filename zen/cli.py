"""Command line: parse flags, load the config, hand over to the one-shot runner or the shell.

Only argparse is imported at module level: `zen --version` and `zen --help` must stay fast,
so everything heavy (openai, rich, prompt_toolkit, mcp) is imported on the path that needs it.
"""

from __future__ import annotations

import argparse
import sys

from zen import __version__, exits

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
        "`zen mcp list` to see MCP servers.",
    )
    p.add_argument("-p", "--print", dest="task", metavar="TASK",
                   help="run one task and exit ('-' reads it from stdin)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--single", dest="agent_mode", action="store_const", const="single",
                      help="one agent does everything")
    mode.add_argument("--dual", dest="agent_mode", action="store_const", const="dual",
                      help="an Orchestrator scouts and delegates to a Coder")
    p.add_argument("--collab", dest="collaboration",
                   choices=["delegated", "autonomous", "controlled"],
                   help="how the Orchestrator and Coder share the work (dual mode)")
    p.add_argument("--model", help="model name")
    p.add_argument("--provider", help="provider preset: openai, deepseek, kimi, glm, qwen, "
                   "openrouter, ollama, vllm, lmstudio")
    p.add_argument("--base-url", help="OpenAI-compatible endpoint URL")
    p.add_argument("--api-key", help="API key (better: set ZEN_API_KEY)")
    p.add_argument("-C", dest="directory", metavar="DIR", help="work in DIR (the workspace)")
    p.add_argument("--yes", action="store_true", help="approve every confirm-level tool call")
    p.add_argument("--max-turns", type=int, metavar="N", help="stop after N model turns")
    p.add_argument("--output-format", choices=["text", "json", "stream-json"], default="text",
                   help="how -p reports (default: text)")
    p.add_argument("--simple", action="store_true",
                   help="plain input() shell, for terminals prompt-toolkit cannot drive")
    p.add_argument("--version", action="version", version=f"zen {__version__}")
    return p


CLI_KEYS = ("agent_mode", "collaboration", "model", "provider", "base_url", "api_key",
            "max_turns")


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Only the flags the user actually gave: they outrank every other config layer."""
    return {k: getattr(args, k) for k in CLI_KEYS if getattr(args, k) is not None}


def fail(message: str, code: int = exits.USAGE) -> int:
    from zen.terminal_safe import terminal_safe  # messages quote config files and paths

    print(terminal_safe(f"zen: {message}"), file=sys.stderr)
    return code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # the common case, answered before argparse is even built
        print(f"zen {__version__}")
        return 0
    if argv[:1] == ["mcp"]:
        return mcp_command(argv[1:])
    args = build_parser().parse_args(argv)
    from pathlib import Path

    workspace = Path(args.directory or ".").expanduser()
    if not workspace.is_dir():
        return fail(f"-C {args.directory}: no such directory")
    if args.max_turns is not None and args.max_turns < 1:
        return fail("--max-turns must be at least 1")

    from zen.config import ConfigError, load_config

    try:
        config = load_config(workspace.resolve(), cli_overrides(args))
    except ConfigError as e:
        return fail(str(e))

    if args.task is None:
        from zen.ui.shell import run_shell

        return run_shell(config, workspace.resolve(), simple=args.simple, yes=args.yes)

    task = sys.stdin.read() if args.task == "-" else args.task
    if not task.strip():
        return fail("the task is empty")
    return run_task(config, workspace.resolve(), task, args)


def run_task(config: Any, workspace: Path, task: str, args: argparse.Namespace) -> int:
    import asyncio

    from zen.app import open_session
    from zen.config import ConfigError
    from zen.ui.oneshot import run_oneshot

    async def go() -> int:
        async with open_session(config, workspace) as session:
            return await run_oneshot(
                session, task, output_format=args.output_format, yes=args.yes
            )

    try:
        return asyncio.run(go())
    except ConfigError as e:
        return fail(str(e))
    except KeyboardInterrupt:
        return fail("interrupted", exits.INTERRUPTED)


def mcp_command(argv: list[str]) -> int:
    if argv[:1] != ["list"]:
        return fail("usage: zen mcp list [-C DIR]")
    parser = argparse.ArgumentParser(prog="zen mcp list")
    parser.add_argument("-C", dest="directory", metavar="DIR")
    args = parser.parse_args(argv[1:])
    from pathlib import Path

    workspace = Path(args.directory or ".").expanduser().resolve()

    import asyncio

    from zen.config import ConfigError, load_config
    from zen.mcp.manager import mcp_list

    try:
        config = load_config(workspace)
    except ConfigError as e:
        return fail(str(e))
    try:
        from zen.terminal_safe import terminal_safe

        print(terminal_safe(asyncio.run(mcp_list(config, workspace))))
    except KeyboardInterrupt:
        return fail("interrupted", exits.INTERRUPTED)
    return 0

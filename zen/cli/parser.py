"""The flags of `zen`: the argparse parser and which flags override the config.

Only argparse is imported: `zen --help` builds this parser and nothing else, so it must stay
as light as `zen --version`. One helper per group of flags keeps each group readable.
"""

from __future__ import annotations

import argparse
import sys

from zen import __version__

TYPE_CHECKING = False  # `typing` alone costs ~5 ms of a ~30 ms start; checkers know this idiom
if TYPE_CHECKING:
    from typing import Any, NoReturn


SUBCOMMANDS: dict[str, tuple[str, str, str]] = {
    # name: (usage, "module:function" that runs it with the rest of argv, what it does)
    "mcp": ("mcp list", "zen.cli.subcommands:mcp_command", "to see MCP servers"),
    "config": ("config", "zen.cli.subcommands:config_command", "for models, hosts and keys"),
    "trust": ("trust [DIR]", "zen.cli.subcommands:trust_command", "to trust a folder's settings"),
    "sessions": ("sessions list", "zen.ui.sessions_cmd:sessions_command", "the saved sessions"),
    "rewind": ("rewind --list", "zen.ui.rewind:rewind_command", "the checkpoints"),
    "diff": ("diff", "zen.ui.diff_view:diff_command", "what zen changed in the latest session"),
    "acp": ("acp", "zen.acp.command:acp_command", "serves editors (Agent Client Protocol)"),
    "bench": (
        "bench",
        "zen.bench.command:bench_command",
        "measures how often zen gets tasks done on your endpoint",
    ),
    "doctor": (
        "doctor",
        "zen.cli.doctor:doctor_command",
        "checks what zen needs (endpoint, key, model, MCP, trust)",
    ),
}
"""zen's subcommands, the one table: `zen NAME ARGS` runs the function on ARGS (imported then,
never at start-up) and `zen --help` lists them."""


def help_formatter(prog: str) -> argparse.HelpFormatter:
    """argparse's formatter, sized without `shutil` (a tenth of `zen --help`'s start-up)."""
    import os

    try:
        width = os.get_terminal_size(sys.stdout.fileno()).columns
    except (OSError, ValueError):
        width = int(os.environ.get("COLUMNS", "80") or 80)
    return argparse.HelpFormatter(prog, width=max(width, 40) - 2)


class _ZenParser(argparse.ArgumentParser):
    """`zen fix the bug` is a task typed without -p: say so, not only the usage."""

    def error(self, message: str) -> NoReturn:
        words = message.removeprefix("unrecognized arguments: ")
        if words != message and not words.startswith("-"):
            import shlex

            self.print_usage(sys.stderr)
            self.exit(
                2,
                f"zen: error: {message}\nzen: a task goes after -p: zen -p {shlex.quote(words)} "
                "(or run `zen` and type it)\n",
            )
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    p = _ZenParser(
        prog="zen",
        usage="zen [OPTIONS]               the shell\n"
        "       zen -p TASK [OPTIONS]       one task\n"
        f"       zen {{{','.join(SUBCOMMANDS)}}} ...",
        formatter_class=help_formatter,
        description="A terminal coding agent for any OpenAI-compatible model.",
        epilog="Run `zen` for the interactive shell, `zen -p TASK` for one task, "
        + ", ".join(f"`zen {usage}` {what}" for usage, _, what in SUBCOMMANDS.values())
        + ".",
    )
    p.add_argument(
        "-p",
        "--print",
        dest="task",
        metavar="TASK",
        help="run one task and exit ('-' reads it from stdin)",
    )
    add_mode_flags(p)
    add_model_flags(p)
    add_workspace_flags(p)
    add_limit_flags(p)
    add_timeout_flags(p)
    add_session_flags(p)
    p.add_argument("--version", action="version", version=f"zen {__version__}")
    return p


def add_mode_flags(p: argparse.ArgumentParser) -> None:
    """Single or dual agent, how the dual agents share the work, the kind of work."""
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
    p.add_argument(
        "--triage",
        choices=["auto", "question", "small", "direct", "large"],
        help="dual mode: how much orchestration the task gets (auto: zen decides)",
    )


def add_model_flags(p: argparse.ArgumentParser) -> None:
    """Which model, where it is served and with which key."""
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
    p.add_argument(
        "--tool-protocol",
        dest="tool_protocol",
        choices=["native", "text", "auto"],
        help="how the model acts: tool calls (native), edit blocks in its answer (text: for "
        "small local models), or native until it shows it cannot call tools (auto)",
    )
    p.add_argument("--api-key", help="API key (better: set ZEN_API_KEY)")


def add_workspace_flags(p: argparse.ArgumentParser) -> None:
    """The workspace, its own settings and the approval of tool calls."""
    p.add_argument("-C", dest="directory", metavar="DIR", help="work in DIR (the workspace)")
    p.add_argument("--yes", action="store_true", help="approve every confirm-level tool call")
    p.add_argument(
        "--sandbox",
        choices=["auto", "on", "off"],
        help="run bash in a sandbox: where available (auto), always (on), never (off)",
    )
    p.add_argument(
        "--trust",
        action="store_true",
        help="load this folder's own settings (.zen/config.yaml, .mcp.json) for "
        "this run without recording trust (see `zen trust`)",
    )


def add_limit_flags(p: argparse.ArgumentParser) -> None:
    """When a task stops: turns, time, money."""
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


def add_timeout_flags(p: argparse.ArgumentParser) -> None:
    """When one model request is given up."""
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


def add_session_flags(p: argparse.ArgumentParser) -> None:
    """How the run reports and which session it continues; the plain shell."""
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


CLI_KEYS = (
    "agent_mode",
    "collaboration",
    "triage",
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
    "tool_protocol",
    "sandbox",
)


def cli_overrides(args: argparse.Namespace) -> dict[str, Any]:
    """Only the flags the user actually gave: they outrank every other config layer."""
    return {k: getattr(args, k) for k in CLI_KEYS if getattr(args, k) is not None}

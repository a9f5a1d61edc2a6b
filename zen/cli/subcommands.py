"""The small subcommands: `zen mcp list`, `zen config`, `zen trust`.

Each parses its own argv, does one thing and returns an exit code; what they need beyond
argparse is imported once they run. (`zen sessions`, `zen rewind` and `zen acp` live with
the front-ends that render them: `zen.ui`, `zen.acp`.)
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from zen.base import exits
from zen.cli.output import fail, report_tightened
from zen.cli.parser import CLI_KEYS, add_mode_flags, add_model_flags, help_formatter
from zen.cli.trust_gate import decide_trust


def mcp_command(argv: list[str]) -> int:
    """`zen mcp list`: start each configured server, show its state and tools, stop it."""
    parser = argparse.ArgumentParser(
        prog="zen mcp", formatter_class=help_formatter, description="Your MCP servers."
    )
    actions = parser.add_subparsers(dest="action", required=True, title="actions", metavar="ACTION")
    lister = actions.add_parser(
        "list",
        formatter_class=help_formatter,
        help="start each server, show its state and tools, stop it",
        description="Start each configured MCP server, show its state and tools, stop it.",
    )
    lister.add_argument("-C", dest="directory", metavar="DIR")
    lister.add_argument(
        "--trust",
        action="store_true",
        help="include this folder's own servers (.mcp.json) for this run",
    )
    args = parser.parse_args(argv)
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
        from zen.settings import trust

        ignored = () if trusted else trust.check(workspace).inputs
        text, all_started = asyncio.run(mcp_list(config, workspace, ignored=ignored))
    except KeyboardInterrupt:
        return fail("interrupted", exits.INTERRUPTED)
    finally:
        report_tightened()
    from zen.base import redaction
    from zen.base.terminal_safe import terminal_safe

    print(terminal_safe(redaction.scrub(text)))
    return exits.DONE if all_started else exits.MCP_FAILED


def config_command(argv: list[str]) -> int:
    """`zen config`: where each role's requests go, with which key (redacted), and where the
    model, URL and key came from. Exit 2 (`exits.USAGE`, as a run would) when a role cannot
    run: no key for its host, no model."""
    parser = argparse.ArgumentParser(
        prog="zen config",
        formatter_class=help_formatter,
        description="Show the model, host and key of each role; the run's flags preview "
        "another choice (zen config --provider deepseek).",
    )
    parser.add_argument("-C", dest="directory", metavar="DIR")
    parser.add_argument(
        "--trust", action="store_true", help="include this folder's own settings for this run"
    )
    add_mode_flags(parser)
    add_model_flags(parser)
    args = parser.parse_args(argv)
    overrides = {k: v for k in CLI_KEYS if (v := getattr(args, k, None)) is not None}
    from zen.base.paths import expand_user
    from zen.settings.loading import load_config
    from zen.settings.model_roles import MissingKey, resolve_model
    from zen.settings.schema import DUAL_ROLES, ConfigError
    from zen.ui.format import endpoint_line

    root = expand_user(args.directory or ".").resolve()
    trusted = decide_trust(root, flag=args.trust, ask=False, shown=args.directory)
    try:
        config = load_config(root, overrides, trusted=bool(trusted))
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
    code = exits.DONE
    for role in roles:
        try:
            settings = resolve_model(config, role)
        except ConfigError as e:  # no key, or no model: a run would stop the same way
            print(safe(f"{role}: {e}"))
            code = exits.USAGE
            if isinstance(e, MissingKey):  # which file or variable chose the host still helps
                _sources_line(config, role)
            continue
        print(safe(endpoint_line(role, settings)))
        _sources_line(config, role, settings)
        print(safe(f"{role} profile: {_profile(settings, config.model_profiles)}"))
    for name, level in config.permissions.items():
        print(safe(f"permission {name}: {level}"))
    return code


def _sources_line(config: Any, role: str, settings: Any = None) -> None:
    """`  model from X; base URL from Y`. Without `settings` (the role has no key) they are
    resolved keyless; a role that also lacks a model has no line (its error said so)."""
    from zen.base.terminal_safe import terminal_safe as safe
    from zen.settings.model_roles import resolve_model
    from zen.settings.schema import ConfigError

    if settings is None:
        try:
            settings = resolve_model(config, role, keyless=True)
        except ConfigError:
            return
    print(safe(f"  model from {settings.model_source}; base URL from {settings.url_source}"))


def _profile(settings: Any, own: Any) -> str:
    """The model profile in use, from the lookup a run's first request makes."""
    import asyncio

    from zen.llm.served import profile_note
    from zen.llm.served_book import ServedBook

    return profile_note(settings, asyncio.run(ServedBook().get(settings)), own)


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
    from zen.base.paths import directory_arg, expand_user
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
        root, problem = directory_arg(args.directory, flag="")
        if problem:
            return fail(problem)
        state = trust.check(root)
        answer = _ask(state)
        if answer is False:
            print("not trusted")
            return exits.DONE
        trust.trust(state)
    except BrokenPipeError:
        raise  # the reader went away: the entry point's to handle, not the store's failure
    except OSError as e:
        return fail(f"cannot update {trust.store_path()}: {e.strerror or e}")
    finally:
        report_tightened()
    if not state.inputs or answer:
        print(safe(f"trusted {state.workspace}" + ("" if answer else _NONE_YET)))
        return exits.DONE
    print(safe(f"trusted {state.workspace}; its settings:"))
    from zen.settings.trust_describe import describe

    for line in describe(state.workspace):
        print(safe(f"  - {line}"))
    return exits.DONE


_NONE_YET = " (it has no settings of its own yet)"


def _ask(state: Any) -> bool | None:
    """On a terminal, `zen trust` shows what the folder's settings would run and asks first
    (the answer); a script (no terminal, None) trusts as told, then sees the same lines."""
    if not state.inputs or state.trusted or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return None
    from zen.settings.trust_describe import describe
    from zen.ui.trust_question import ask_trust

    return ask_trust(state, describe(state.workspace), "[t]rust  [n]o › ") == "trust"

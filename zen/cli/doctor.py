"""`zen doctor`: what a user checks first when something is wrong, one line per item.

Config files, endpoint, server, key, model, context window, MCP, the acp extra, folder trust:
one line per item, each with one verdict (`ok`, `warn`, `FAIL` or `note`); any FAIL gives exit
10 (`exits.DOCTOR`). The only network use is the endpoint lookup zen makes at a first request
anyway (`zen/llm/lookup.py`: a free `GET /models`, and the server's own routes), under a short
deadline, every body read once and bounded; MCP servers are counted, never started; a key is
named by where it came from, never shown.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zen.base import exits
from zen.cli.parser import CLI_KEYS, add_mode_flags, add_model_flags, help_formatter

OK, WARN, FAIL, NOTE = "ok", "warn", "FAIL", "note"
DEADLINE = 4.0
"""Seconds for one endpoint's lookup: connect, answers and bodies."""
Line = tuple[str, str, str]
"""(mark, item, what was found)."""


def doctor_command(argv: list[str]) -> int:
    """Check each item, print its line, exit 0 only when no line says FAIL."""
    parser = argparse.ArgumentParser(
        prog="zen doctor",
        formatter_class=help_formatter,
        description="Check what zen needs: config, endpoint, key, model, context window, MCP, "
        f"the acp extra and this folder's trust. Exit 0 when all is well, {exits.DOCTOR} when "
        "a line says FAIL. Never prints a key.",
    )
    parser.add_argument("-C", dest="directory", metavar="DIR")
    parser.add_argument(
        "--trust", action="store_true", help="include this folder's own settings for this run"
    )
    add_mode_flags(parser)
    add_model_flags(parser)
    args = parser.parse_args(argv)
    from zen.base.paths import expand_user
    from zen.settings import trust

    root = expand_user(args.directory or ".").resolve()
    state = trust.check(root)
    trusted = bool(args.trust or state.trusted)
    overrides = {k: v for k in CLI_KEYS if (v := getattr(args, k, None)) is not None}
    lines, config = config_lines(root, overrides, trusted)
    if config is not None:
        lines += model_lines(config)
        lines.append(mcp_line(config, root))
        lines.append(sandbox_line(config, root))
    lines.append(acp_line())
    lines.append(trust_line(state, args.trust))
    return show(lines, secrets(config))


def config_lines(root: Path, overrides: dict[str, Any], trusted: bool) -> tuple[list[Line], Any]:
    """The files read, then the config or the error that names its file and key."""
    from zen.base.paths import user_home
    from zen.settings.loading import load_config
    from zen.settings.schema import ConfigError

    home = user_home()
    read = ["zen's defaults"]
    if home and (home / ".zen" / "config.yaml").is_file():
        read.append(str(home / ".zen" / "config.yaml"))
    project = root / ".zen" / "config.yaml"
    if project.is_file():
        read.append(str(project) if trusted else f"not {project} (this folder is not trusted)")
    try:
        config = load_config(root, overrides, trusted=trusted)
    except ConfigError as e:
        return [(OK, "config", ", ".join(read)), (FAIL, "config", str(e))], None
    return [(OK, "config", ", ".join(read))], config


def model_lines(config: Any) -> list[Line]:
    """Per role: endpoint, key, model, window (one role in single mode)."""
    from zen.settings.model_roles import MissingKey, resolve_model
    from zen.settings.schema import DUAL_ROLES, ConfigError

    lines: list[Line] = []
    roles = DUAL_ROLES if config.agent_mode == "dual" else ("main",)
    for role in roles:
        label = "" if role == "main" else f" ({role})"
        try:
            settings = resolve_model(config, role)
        except ConfigError as e:
            lines.append((FAIL, f"key{label}", str(e)))
            if isinstance(e, MissingKey) and e.defaulted:
                from zen.cli.no_key import local_servers

                found = local_servers() or "none answers on the usual ports of this machine"
                lines.append((NOTE, "local server", found))
            continue
        lines += role_lines(settings, label, config.model_profiles)
    return lines


def role_lines(settings: Any, label: str, own: Any = ()) -> list[Line]:
    """One line each for the role's endpoint, server, key, model and window, from one
    lookup (the same facts `/model` shows), each with one verdict."""
    import asyncio

    from zen.llm.lookup import look_up
    from zen.llm.served import applied, asks_server, describe, profile_note

    url = settings.base_url
    extras = asks_server(url)
    served = asyncio.run(
        look_up(url, settings.api_key, settings.model, deadline=DEADLINE, extras=extras)
    )
    lines = [endpoint_line(served)]
    if extras and served.listed:
        protocol = applied(settings, served, own).protocol
        no_tools = served.tool_template is False and protocol == "native"
        fix = ": tools need --tool-protocol text|auto, or a template with them" if no_tools else ""
        lines.append((WARN if no_tools else OK, "server", describe(served) + fix))
        lines.append((OK, "profile", profile_note(settings, served, own)))
    lines += [key_line(settings, served.status), model_line(settings, served)]
    lines.append(window_line(settings, served))
    return [(mark, item + label, text) for mark, item, text in lines]


def endpoint_line(served: Any) -> Line:
    """Reachable, or what is wrong and what to try."""
    from zen.llm.lookup import NO_LIST
    from zen.settings.providers import is_local

    url, status = served.base_url, served.status
    if status == 0:
        hint = (
            "is the server running? (llama.cpp: llama-cpp-server -m MODEL.gguf; "
            "Ollama: ollama serve)"
            if is_local(url)
            else "check the URL, and that this machine can reach it"
        )
        return (FAIL, "endpoint", f"{url} unreachable: {served.error}; {hint}")
    if status == 404:
        fix = f": {served.v1_url} has one" if served.v1_url else "; most end in /v1"
        return (FAIL, "endpoint", f"no OpenAI API at {url} (GET /models answered 404){fix}")
    if status not in (200, 401, 403):
        return (FAIL, "endpoint", f"{url} answered GET /models with {status}")
    took = f"{status} in {served.seconds:.2f}s"
    if served.error == NO_LIST:
        return (WARN, "endpoint", f"{url} answers ({took}), but GET /models gave no model list: "
                "is it an OpenAI-compatible server?")  # fmt: skip
    return (OK, "endpoint", f"{url} reachable ({took})")


def key_line(settings: Any, status: int) -> Line:
    refused = status in (401, 403)
    if not settings.api_key:
        if refused:
            return (
                FAIL,
                "key",
                f"none sent, and the server wants one ({status}): pass --api-key, set "
                "ZEN_API_KEY, or put api_key in ~/.zen/config.yaml",
            )
        if status == 0:
            return (NOTE, "key", "none set (not checked: the endpoint did not answer)")
        return (OK, "key", "none needed (the server answers without one)")
    where = settings.key_source or "the configuration"
    if refused:
        return (FAIL, "key", f"found ({where}), but the server refused it ({status})")
    return (OK, "key", f"found ({where})")


def model_line(settings: Any, served: Any) -> Line:
    """The configured model against what the server serves."""
    from zen.llm.served import listing

    model = settings.model
    if not served.listed:
        why = served.error if served.status == 200 else "the endpoint gave no model list"
        return (NOTE, "model", f"{model} (not checked: {why})")
    if served.serves(model):
        return (OK, "model", f"{model} (the server serves it)")
    only = served.only
    if only and settings.default_model:
        return (OK, "model", f"{only} (none configured: zen uses the one the server serves)")
    if only:
        return (
            WARN,
            "model",
            f"{model} is configured, but the server serves {only}: llama.cpp answers with it "
            f"whatever the name, vLLM and LM Studio refuse (--model {only})",
        )
    return (FAIL, "model", f"{model} is not among the server's models: {listing(served)}")


def window_line(settings: Any, served: Any) -> Line:
    """The window zen plans by: config, provider table, or what the server says."""
    from zen.agent.context import DEFAULT_WINDOW, WindowResolver

    known = WindowResolver(settings).known
    if known is not None:
        return (OK, "context window", f"{known.tokens:,} tokens ({known.source})")
    if served.context_window:
        return (OK, "context window", f"{served.context_window:,} tokens (server)")
    return (
        NOTE,
        "context window",
        f"unknown: zen assumes {DEFAULT_WINDOW:,} tokens (set context_window to be sure)",
    )


def mcp_line(config: Any, root: Path) -> Line:
    from zen.mcp.servers import collect_servers, mcp_enabled

    if not mcp_enabled(config):
        return (OK, "mcp", "off (features.mcp: off)")
    servers = collect_servers(config, root, warn=lambda _: None)
    if not servers:
        return (OK, "mcp", "no servers configured")
    named = f"{len(servers)} server{'s' * (len(servers) != 1)} ({', '.join(servers)})"
    try:
        import mcp  # noqa: F401
    except ImportError as e:
        return (FAIL, "mcp", f"{named} configured, but the mcp SDK does not import: {e}")
    return (OK, "mcp", f"{named} configured, not started (zen mcp list starts them)")


def sandbox_line(config: Any, root: Path | None = None) -> Line:
    """Where bash runs: probes bwrap (one tiny sandbox, 10 s at most)."""
    import asyncio

    from zen.settings.user_only import network_by_project
    from zen.tools.sandbox.runner import Sandbox

    by_project = network_by_project(config)
    box = Sandbox(config.sandbox, config.sandbox_options, root=root, network_by_project=by_project)
    if box.mode != "off":
        asyncio.run(box.settle(10.0))
    broken = box.found() is None or bool(box.problem())
    level = FAIL if box.mode == "on" and broken else OK
    if box.mode == "auto" and broken:
        level = NOTE
    return (level, "sandbox", box.status())


def acp_line() -> Line:
    from importlib.util import find_spec

    if find_spec("acp") is not None:
        return (OK, "acp", "the acp extra is installed (zen acp serves editors)")
    return (NOTE, "acp", "the acp extra is not installed (for editors: pip install '.[acp]')")


def trust_line(state: Any, flag: bool) -> Line:
    if not state.inputs:
        return (OK, "trust", f"{state.workspace} has no settings of its own")
    inputs = ", ".join(state.inputs)
    if state.too_large:
        return (NOTE, "trust", f"too large to fingerprint ({inputs}): {state.why_not()}")
    if state.trusted:
        return (OK, "trust", f"trusted ({inputs} used)")
    if flag:
        return (OK, "trust", f"not trusted, but --trust uses {inputs} for this run")
    return (NOTE, "trust", f"untrusted: {inputs} ignored ({state.why_not()}; see zen trust)")


def secrets(config: Any) -> list[str]:
    """Every key the config holds, to blank out of anything a server or file echoed."""
    return [key for key in config.known_keys() if key] if config is not None else []


def show(lines: list[Line], keys: list[str]) -> int:
    from zen.base import redaction
    from zen.base.terminal_safe import terminal_safe

    for mark, item, text in lines:
        for key in keys:
            text = text.replace(key, "[key]")
        print(terminal_safe(redaction.scrub(f"{mark:<4} {item}: {text}")))
    failed = any(mark == FAIL for mark, _, _ in lines)
    return exits.DOCTOR if failed else exits.DONE

"""`zen doctor`: what a user checks first when something is wrong, one line per item.

Config files, endpoint, key, model, context window, MCP, the acp extra, folder trust: each
line starts `ok`, `FAIL` or `note`, and any FAIL gives exit 10 (`exits.DOCTOR`). The only
network use is one free `GET /models` per endpoint (and the window question zen would ask
anyway), each under a short deadline; MCP servers are counted, never started; a key is named
by where it came from, never shown.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zen.base import exits
from zen.cli.parser import CLI_KEYS, add_mode_flags, add_model_flags, help_formatter

OK, FAIL, NOTE = "ok", "FAIL", "note"
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
    from zen.settings.model_roles import resolve_model
    from zen.settings.schema import DUAL_ROLES, ConfigError

    lines: list[Line] = []
    roles = DUAL_ROLES if config.agent_mode == "dual" else ("main",)
    for role in roles:
        label = "" if role == "main" else f" ({role})"
        try:
            settings = resolve_model(config, role)
        except ConfigError as e:
            lines.append((FAIL, f"key{label}", str(e)))
            continue
        lines += role_lines(settings, label)
    return lines


def role_lines(settings: Any, label: str) -> list[Line]:
    from zen.cli.doctor_probe import listed, probe

    url, model = settings.base_url, settings.model
    answer = probe(url, settings.api_key)
    if answer.status == 0:
        endpoint: Line = (FAIL, "endpoint", f"{url} unreachable: {answer.error}")
    elif answer.status >= 500:
        endpoint = (FAIL, "endpoint", f"{url} answered GET /models with {answer.status}")
    else:
        endpoint = (OK, "endpoint", f"{url} reachable ({answer.status} in {answer.seconds:.2f}s)")
    lines = [endpoint, key_line(settings, answer.status)]
    names = listed(answer.body) if answer.status == 200 else None
    if names is None:
        lines.append((NOTE, "model", f"{model} (the server sent no model list to check)"))
    elif model in names:
        lines.append((OK, "model", f"{model} (the server lists it)"))
    elif len(names) == 1:  # llama.cpp serves its one model by any name
        lines.append((OK, "model", f"{model} (the server serves one model: {names[0]})"))
    else:
        shown = ", ".join(names[:5]) + (", …" if len(names) > 5 else "")
        lines.append((FAIL, "model", f"{model} is not among the server's models: {shown}"))
    lines.append(window_line(settings, reachable=answer.status != 0))
    return [(mark, item + label, text) for mark, item, text in lines]


def key_line(settings: Any, status: int) -> Line:
    if not settings.api_key:
        return (OK, "key", "none needed (a local endpoint)")
    where = settings.key_source or "the configuration"
    if status in (401, 403):
        return (FAIL, "key", f"found ({where}), but the server refused it ({status})")
    return (OK, "key", f"found ({where})")


def window_line(settings: Any, *, reachable: bool) -> Line:
    """The window zen plans by: config, provider table, or what the server says."""
    import asyncio

    from zen.agent.context import DEFAULT_WINDOW, WindowResolver
    from zen.llm.window import ask_server

    known = WindowResolver(settings).known
    if known is not None:
        return (OK, "context window", f"{known.tokens:,} tokens ({known.source})")
    found = asyncio.run(ask_server(settings)) if reachable else None
    if found:
        return (OK, "context window", f"{found:,} tokens (server)")
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

    from zen.tools.sandbox.runner import Sandbox

    box = Sandbox(config.sandbox, config.sandbox_options, root=root)
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

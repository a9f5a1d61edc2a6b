"""`zen doctor`: what a user checks first when something is wrong, one line per item.

Config files, endpoint, server, key, model, context window, MCP, the acp extra, folder trust:
one line per item, each with one verdict (`ok`, `warn`, `FAIL` or `note`); any FAIL gives exit
10 (`exits.DOCTOR`). The only network use is the endpoint lookup zen makes at a first request
anyway (`zen/llm/lookup.py`: a free `GET /models`, and the server's own routes), under a short
deadline, every body read once and bounded; MCP servers are counted, never started; a key is
named by where it came from, never shown. The shell's `/status` calls the same line
functions (here and in `doctor_roles.py`) on its session's configuration.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from zen.base import exits
from zen.cli.doctor_roles import FAIL, NOTE, OK, Line, role_lines, unchecked_lines
from zen.cli.parser import CLI_KEYS, add_mode_flags, add_model_flags, help_formatter


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
        from zen.base.redaction import remember

        remember(*config.known_keys())  # what a server or a file echoes is scrubbed on output
        lines += model_lines(config, check=True)
        lines.append(mcp_line(config, root))
        lines.append(sandbox_line(config, root))
    lines.append(acp_line())
    lines.append(trust_line(state, args.trust))
    return show(lines)


def files_read(root: Path, trusted: bool) -> str:
    """The config files zen reads for `root`, in order (`zen doctor`'s and `/status`'s line)."""
    from zen.base.paths import user_home

    home = user_home()
    read = ["zen's defaults"]
    if home and (home / ".zen" / "config.yaml").is_file():
        read.append(str(home / ".zen" / "config.yaml"))
    project = root / ".zen" / "config.yaml"
    if project.is_file():
        read.append(str(project) if trusted else f"not {project} (this folder is not trusted)")
    return ", ".join(read)


def config_lines(root: Path, overrides: dict[str, Any], trusted: bool) -> tuple[list[Line], Any]:
    """The files read, then the config or the error that names its file and key."""
    from zen.settings.loading import load_config
    from zen.settings.schema import ConfigError

    read = files_read(root, trusted)
    try:
        config = load_config(root, overrides, trusted=trusted)
    except ConfigError as e:  # one line, one verdict: the error, then what was read
        return [(FAIL, "config", f"{e} (read: {read})")], None
    return [(OK, "config", read)], config


def model_lines(config: Any, check: bool) -> list[Line]:
    """Per role: endpoint, key, model, window (one role in single mode). `check`: ask each
    endpoint what it serves (the network); else say what the configuration says."""
    from zen.settings.model_roles import MissingKey, resolve_model
    from zen.settings.schema import DUAL_ROLES, ConfigError

    lines: list[Line] = []
    roles = DUAL_ROLES if config.agent_mode == "dual" else ("main",)
    for role in roles:
        label = "" if role == "main" else f" ({role})"
        missing = None
        try:
            settings = resolve_model(config, role)
        except MissingKey as e:  # the key line says so; the endpoint, model and window still
            missing, settings = e, resolve_model(config, role, keyless=True)
        except ConfigError as e:
            lines.append((FAIL, f"key{label}", str(e)))
            continue
        if check:
            lines += role_lines(settings, label, missing, config.model_profiles)
        else:
            lines += unchecked_lines(settings, label, missing)
    return lines


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
    return box_line(box)


def box_line(box: Any) -> Line:
    """A settled sandbox's line (the shell's own, for `/status`)."""
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


def shown(lines: list[Line]) -> list[str]:
    """Each line as printed: through the one redactor (`zen/base/redaction.py`),
    terminal-safe."""
    from zen.base import redaction
    from zen.base.terminal_safe import terminal_safe

    return [
        terminal_safe(redaction.scrub(f"{mark:<4} {item}: {text}")) for mark, item, text in lines
    ]


def show(lines: list[Line]) -> int:
    for line in shown(lines):
        print(line)
    failed = any(mark == FAIL for mark, _, _ in lines)
    return exits.DOCTOR if failed else exits.DONE

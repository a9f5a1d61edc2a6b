"""What a workspace's trust inputs would do, in plain words, for the trust question and
`zen trust`: read as data only (YAML and JSON parsed, nothing expanded or run), each line
made printable and cut, so a hostile file can neither run nor draw on the terminal."""

from __future__ import annotations

import os
import sys
from itertools import islice
from pathlib import Path
from typing import Any

from zen.base import env_vars
from zen.base.bom import decode_text
from zen.base.text import clip
from zen.settings.trust import (
    CLAUDE_SETTINGS,
    CONFIG,
    FILE_LIMIT,
    FOLDERS,
    MCP_JSON,
    MISSING,
    TOO_LARGE,
    _bytes,
    _files,
    _names,
    fingerprint,
    present_inputs,
    read_json,
)


def describe(root: Path) -> list[str]:
    """One plain line per thing the inputs would do, in the order a user cares about."""
    lines: list[str] = []
    variables: set[str] = set()
    names = _names(root)
    config = _yaml(root / CONFIG) if CONFIG in names else MISSING
    if config is not MISSING:
        lines += _describe_config(config)
        variables |= _variables(config)
    mcp = read_json(root / MCP_JSON)
    if mcp is not MISSING:
        servers = mcp.get("mcpServers") if isinstance(mcp, dict) else None
        if isinstance(servers, dict):
            lines += [_server_line(MCP_JSON, name, spec) for name, spec in servers.items()]
        else:
            lines.append(f"{MCP_JSON}: not a list of MCP servers zen can read")
        variables |= _variables(mcp)
    claude = read_json(root / CLAUDE_SETTINGS)
    if claude is not MISSING and CLAUDE_SETTINGS in present_inputs(root):
        hooks = claude.get("hooks") if isinstance(claude, dict) else None
        lines += _hook_lines(CLAUDE_SETTINGS, hooks)
        variables |= _variables(claude)
    for folder in FOLDERS:
        path = root / folder
        if folder in names and path.is_dir():
            count = sum(1 for _ in islice(_files(path), FILE_LIMIT + 1))
            what = {
                "hooks": "hooks that run commands",
                "skills": "skills (instructions and scripts)",
                "commands": "custom commands",
            }[folder.rsplit("/", 1)[1]]
            lines.append(f"{folder}/: {count} file{'' if count == 1 else 's'} of {what}")
    if variables:
        lines.append("reads these environment variables: " + ", ".join(sorted(variables)))
    mark = fingerprint(root)
    if mark.startswith(TOO_LARGE):
        lines.append(f"{mark[len(TOO_LARGE) :]}: zen will ask again every time")
    shown = [_plain(line) for line in lines]
    if any(len(_plain(line, limit=sys.maxsize)) > _LINE for line in lines):
        shown.append(f"(lines cut at {_LINE} characters: read the files before trusting them)")
    return shown


def _yaml(path: Path) -> Any:
    import yaml

    if not os.path.lexists(path):
        return MISSING
    try:
        return yaml.safe_load(decode_text(_bytes(path), "replace")) or {}
    except yaml.YAMLError:
        return "unreadable"


def _describe_config(data: Any) -> list[str]:
    src = CONFIG
    if not isinstance(data, dict):
        return [f"{src}: settings zen cannot read (it would refuse to start)"]
    lines = []
    if data.get("base_url"):
        lines.append(f"{src}: sends your prompts and code to {data['base_url']} (base_url)")
    if data.get("provider"):
        lines.append(f"{src}: uses the provider {data['provider']} (its host gets your prompts)")
    if data.get("api_key"):
        lines.append(f"{src}: sets the API key to {_show_secret(str(data['api_key']))}")
    roles = data.get("dual_agent")
    for role, over in roles.items() if isinstance(roles, dict) else []:
        if isinstance(over, dict) and (over.get("base_url") or over.get("provider")):
            where = over.get("base_url") or f"the provider {over.get('provider')}"
            lines.append(f"{src}: the {role} talks to {where}")
    perms = data.get("permissions")
    for tool, level in perms.items() if isinstance(perms, dict) else []:
        meaning = {
            "auto": "runs without asking",
            "deny": "is refused",
            "confirm": "asks first",
            "sandboxed": "runs without asking when it runs in the sandbox",
        }.get(str(level), "")
        lines.append(
            f"{src}: permission {tool}: {level}" + (f" ({tool} {meaning})" if meaning else "")
        )
    rules = data.get("allow_commands")
    if isinstance(rules, list) and rules:
        lines.append(
            f"{src}: bash runs without asking {', '.join(map(repr, rules))}, with any "
            "arguments (allow_commands)"
        )
    roots = data.get("allowed_roots")
    if isinstance(roots, list) and roots:
        lines.append(f"{src}: file tools may also read and write {', '.join(map(str, roots))}")
    if data.get("test_cmd"):
        lines.append(
            f"{src}: runs `{data['test_cmd']}` after each edit, as a bash command (test_cmd)"
        )
    prompts = data.get("prompts")
    if isinstance(prompts, list) and prompts:
        lines.append(f"{src}: adds to the system prompt the files {', '.join(map(str, prompts))}")
    servers = data.get("mcp_servers")
    for name, spec in servers.items() if isinstance(servers, dict) else []:
        lines.append(_server_line(src, name, spec))
    if data.get("hooks"):
        lines += _hook_lines(src, data["hooks"])
    lines += _sandbox_lines(src, data)
    known = {
        "sandbox",
        "sandbox_options",
        "bash_inherits_keys",
        "base_url",
        "provider",
        "api_key",
        "dual_agent",
        "permissions",
        "allow_commands",
        "allowed_roots",
        "prompts",
        "mcp_servers",
        "hooks",
        "test_cmd",
    }
    other = [str(key) for key in data if key not in known]
    if other:
        lines.append(f"{src}: also sets {', '.join(other)}")
    return lines


def _sandbox_lines(src: str, data: dict[Any, Any]) -> list[str]:
    """What the project's sandbox settings would do, and which only the user may set
    (`zen/settings/user_only.py`)."""
    from zen.settings.sandbox_options import USER_ONLY  # pydantic: only when there is a config

    lines = []
    mode = data.get("sandbox")
    if isinstance(mode, bool):  # YAML 1.1 reads on/off as booleans; zen's loader does not
        mode = "on" if mode else "off"
    if mode == "on":
        lines.append(f"{src}: runs every command in the sandbox, never outside it (sandbox: on)")
    elif mode is not None:
        lines.append(
            f"{src}: sandbox: {mode}: ignored where it would weaken your own setting (only "
            "your own config can)"
        )
    if data.get("bash_inherits_keys"):
        lines.append(
            f"{src}: bash_inherits_keys: ignored (only your own config can give commands "
            "zen's API keys)"
        )
    options = data.get("sandbox_options")
    if not isinstance(options, dict):
        return lines + ([f"{src}: sandbox_options zen cannot read"] if options else [])
    if str(options.get("network")).lower() in ("on", "true"):
        lines.append(
            f"{src}: gives commands the network (sandbox_options.network: on); "
            "`bash: sandboxed` then asks before each command"
        )
    for key, what in (
        ("writable", "lets commands write"),
        ("hidden", "hides from commands"),
        ("hidden_env", "withholds from commands the variables"),
    ):
        value = options.get(key)
        if isinstance(value, list) and value:
            lines.append(f"{src}: {what} {', '.join(map(str, value))} (sandbox_options.{key})")
    for key in USER_ONLY:
        if key in options:
            lines.append(f"{src}: sandbox_options.{key}: ignored (only your own config can set it)")
    known = ("network", "writable", "hidden", "hidden_env", *USER_ONLY)
    other = [str(k) for k in options if k not in known]
    if other:
        lines.append(f"{src}: also sets sandbox_options {', '.join(other)}")
    return lines


def _server_line(src: str, name: Any, spec: Any) -> str:
    if not isinstance(spec, dict):
        return f"{src}: MCP server {name}: an entry zen cannot read"
    if spec.get("command"):
        args: list[Any] = spec["args"] if isinstance(spec.get("args"), list) else []
        command = " ".join(str(part) for part in [spec["command"], *args])
        text = f"{src}: starts MCP server {name}: runs `{command}`"
    else:
        text = f"{src}: connects MCP server {name} to {spec.get('url')}"
    extras = []
    for key, label in (("env", "environment"), ("headers", "headers")):
        value = spec.get(key)
        if isinstance(value, dict) and value:
            extras.append(f"{label} {', '.join(map(str, value))}")
    for key in ("autoApprove", "alwaysAllow"):
        if spec.get(key):
            extras.append(f"{key} {spec[key]}")
    if spec.get("envFile"):
        extras.append(f"envFile {spec['envFile']}")
    if spec.get("cwd"):
        extras.append(f"in {spec['cwd']}")
    return text + (f" ({'; '.join(extras)})" if extras else "")


def _hook_lines(src: str, hooks: Any) -> list[str]:
    """One line per command the hooks would run, with its event and matcher: trusting a
    folder must show every command it would run, whichever file names it."""
    lines: list[str] = []

    def walk(node: Any, event: str, matcher: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("matcher"), str) and node["matcher"] not in ("", "*"):
                matcher = node["matcher"]
            if isinstance(node.get("command"), str):
                when = f"{event}, tools matching {matcher}" if matcher else event
                lines.append(f"{src}: hook runs `{node['command']}` ({when})")
            for key, value in node.items():
                walk(value, event or str(key), matcher)
        elif isinstance(node, list):
            for value in node:
                walk(value, event, matcher)

    walk(hooks, "", "")
    return lines or [f"{src}: hooks zen cannot read"]


def _variables(node: Any) -> set[str]:
    if isinstance(node, str):
        return env_vars.names(node)
    if isinstance(node, dict):
        return set().union(*(_variables(v) for v in node.values()), set())
    if isinstance(node, list):
        return set().union(*(_variables(v) for v in node), set())
    return set()


def _show_secret(value: str) -> str:
    return value if env_vars.is_reference(value.strip()) else "a literal key (hidden)"


_LINE = 300
"""Characters of one line of `describe`; a longer one is cut, and the cut is said."""


def _plain(text: str, limit: int = _LINE) -> str:
    """Repository text on one terminal line: escape sequences, controls, C1 and bidi characters
    as placeholders (`terminal_safe`), then anything else unprintable (zero-width, line
    breaks) as `?`: what the user trusts is what they see."""
    from zen.base.terminal_safe import terminal_safe

    text = "".join(ch if ch.isprintable() else "?" for ch in terminal_safe(text))
    return clip(text, limit)

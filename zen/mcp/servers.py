"""Which MCP servers to start: zen's `mcp_servers` plus the workspace's `.mcp.json`.

`.mcp.json` has Claude Code's shape (`{"mcpServers": {name: {command, args, env} | {type,
url, headers}}}`), so a project that already ships one works with zen unchanged. zen's own
config wins a name clash. A broken `.mcp.json` costs its servers and a warning, never the run.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from zen.config import Config, McpServer

Warn = Callable[[str], None]
Kind = Literal["stdio", "http"]

MCP_JSON = ".mcp.json"
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)")
_TYPES = {"stdio": "command", "http": "url"}


def warn_stderr(message: str) -> None:
    print(f"zen: warning: {message}", file=sys.stderr)


def mcp_enabled(config: Config) -> bool:
    return config.features.mcp == "on"


def server_kind(spec: McpServer) -> Kind:
    return "http" if spec.url and not spec.command else "stdio"


def collect_servers(
    config: Config, workspace: Path, warn: Warn = warn_stderr
) -> dict[str, McpServer]:
    """zen's servers, then those `.mcp.json` adds; zen's entry wins a shared name.
    `.mcp.json` is the repository's, so it counts only in a trusted workspace."""
    if not config.project_trusted:
        return dict(config.mcp_servers)
    project = read_mcp_json(workspace / MCP_JSON, warn)
    extra = {name: spec for name, spec in project.items() if name not in config.mcp_servers}
    return {**config.mcp_servers, **extra}


def read_mcp_json(path: Path, warn: Warn = warn_stderr) -> dict[str, McpServer]:
    """The valid servers of one `.mcp.json`; each problem becomes one warning."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        warn(f"{path}: cannot read it ({exc}); its MCP servers are ignored")
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        warn(f"{path}: not valid JSON ({exc.msg}, line {exc.lineno}); its MCP servers are ignored")
        return {}
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        warn(f'{path}: expected an object with an "mcpServers" object; its servers are ignored')
        return {}
    servers: dict[str, McpServer] = {}
    for name, entry in entries.items():
        spec = _parse_entry(entry, lambda msg, n=name: warn(f"{path}: server {n!r}: {msg}"))
        if spec is not None:
            servers[name] = spec
    return servers


def _parse_entry(entry: Any, warn: Warn) -> McpServer | None:
    if not isinstance(entry, dict):
        warn("expected an object; skipped")
        return None
    entry = dict(entry)
    kind = entry.pop("type", None)
    if kind == "sse":
        warn("the SSE transport is not supported (use streamable HTTP); skipped")
        return None
    if kind is not None and kind not in _TYPES:
        warn(f'unknown type {kind!r} (use "stdio" or "http"); skipped')
        return None
    if kind is not None and not entry.get(_TYPES[kind]):
        warn(f'type "{kind}" needs "{_TYPES[kind]}"; skipped')
        return None
    try:
        spec = McpServer.model_validate(expand_vars(entry, warn))
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "entry"
        warn(f"{where}: {error['msg']}; skipped")
        return None
    if bool(spec.command) == bool(spec.url):
        warn('needs exactly one of "command" (stdio) or "url" (HTTP); skipped')
        return None
    return spec


def expand_vars(value: Any, warn: Warn = warn_stderr) -> Any:
    """`$VAR`, `${VAR}` and `${VAR:-default}` in all strings; an unset variable stays as is."""
    if isinstance(value, str):

        def sub(match: re.Match[str]) -> str:
            name, default = match.group(1) or match.group(3), match.group(2)
            if default is not None and not os.environ.get(name):
                return default
            if name in os.environ:
                return os.environ[name]
            warn(f"${name} is not set")
            return match.group(0)

        return _VAR.sub(sub, value)
    if isinstance(value, list):
        return [expand_vars(item, warn) for item in value]
    if isinstance(value, dict):
        return {key: expand_vars(item, warn) for key, item in value.items()}
    return value

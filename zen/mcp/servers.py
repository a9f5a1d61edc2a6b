"""Which MCP servers to start: zen's `mcp_servers` plus the workspace's `.mcp.json`.

`.mcp.json` has Claude Code's shape (`{"mcpServers": {name: {command, args, env} | {type,
url, headers}}}`), so a project that already ships one works with zen unchanged; the keys
other clients add are understood (`disabled`, `autoApprove`, `envFile`, `streamable-http`)
or ignored. zen's own config wins a name clash. A broken `.mcp.json` costs its servers and a
warning, never the run; an unset `${VAR}` costs only the server that needs it.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from zen.base import env_vars
from zen.base.bom import decode_text
from zen.base.paths import expand_user
from zen.base.warn import Warn, warn_stderr
from zen.settings.schema import Config, McpServer

Kind = Literal["stdio", "http"]

MCP_JSON = ".mcp.json"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_MCP_JSON = 1024 * 1024
MAX_ENV_FILE = 64 * 1024


def mcp_enabled(config: Config) -> bool:
    return config.features.mcp == "on"


def server_kind(spec: McpServer) -> Kind:
    return "http" if spec.url and not spec.command else "stdio"


def collect_servers(
    config: Config, workspace: Path, warn: Warn = warn_stderr
) -> dict[str, McpServer]:
    """zen's servers, then those `.mcp.json` adds; zen's entry wins a shared name.
    `.mcp.json` is the repository's, so it counts only in a trusted workspace."""
    for name, why in config._mcp_skipped.items():
        warn(f"MCP server {name!r} skipped: {why}")
    if not config.project_trusted:
        return dict(config.mcp_servers)
    project = read_mcp_json(workspace / MCP_JSON, warn)
    mine = {**config.mcp_servers, **dict.fromkeys(config._mcp_skipped)}
    extra = {name: spec for name, spec in project.items() if name not in mine}
    return {**config.mcp_servers, **extra}


def _prefixed(warn: Warn, prefix: str) -> Warn:
    return lambda msg: warn(prefix + msg)


def read_mcp_json(path: Path, warn: Warn = warn_stderr) -> dict[str, McpServer]:
    """The valid servers of one `.mcp.json`; each problem becomes one warning."""
    try:
        raw = path.read_bytes()[: MAX_MCP_JSON + 1]
    except FileNotFoundError:
        return {}
    except OSError as exc:
        warn(f"{path}: cannot read it ({exc.strerror}); its MCP servers are ignored")
        return {}
    if len(raw) > MAX_MCP_JSON:
        warn(f"{path}: larger than {MAX_MCP_JSON // 1024} KB; its MCP servers are ignored")
        return {}
    try:
        data = json.loads(decode_text(raw))  # editors on Windows write a BOM, or UTF-16
    except UnicodeDecodeError:
        warn(f"{path}: not UTF-8 text; its MCP servers are ignored")
        return {}
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f" ({exc.msg}, line {exc.lineno})" if isinstance(exc, json.JSONDecodeError) else ""
        warn(f"{path}: not valid JSON{where}; its MCP servers are ignored")
        return {}
    entries = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        warn(f'{path}: expected an object with an "mcpServers" object; its servers are ignored')
        return {}
    servers: dict[str, McpServer] = {}
    for name, entry in entries.items():
        spec = _parse_entry(entry, path.parent, _prefixed(warn, f"{path}: server {name!r}: "))
        if spec is not None:
            servers[name] = spec
    return servers


_TYPES = {"stdio": "command", "http": "url", "streamable-http": "url", "streamableHttp": "url"}
_IGNORED = frozenset(
    {
        "description",
        "name",
        "alwaysAllow",
        "disabledTools",
        "watchPaths",
        "trust",
        "oauth",
        "includeTools",
        "excludeTools",
        "transportType",
        "autoStart",
        "icon",
    }
)
"""Keys other clients write that zen has no use for: dropped without a word."""
_FIELDS = {
    "command",
    "args",
    "env",
    "cwd",
    "url",
    "headers",
    "timeout",
    "start_timeout",
    "auto_approve",
}


def _parse_entry(entry: Any, folder: Path, warn: Warn) -> McpServer | None:
    if not isinstance(entry, dict):
        warn("expected an object; skipped")
        return None
    entry = dict(entry)
    if entry.get("disabled") is True:
        return None
    entry.pop("disabled", None)
    kind = entry.pop("type", None) or entry.get("transportType")
    if kind == "sse":
        warn("legacy SSE transport not supported (zen speaks streamable HTTP); skipped")
        return None
    if kind is not None and kind not in _TYPES:
        warn(f'unknown type {kind!r} (use "stdio" or "http"); skipped')
        return None
    if kind is not None and not entry.get(_TYPES[kind]):
        warn(f'type "{kind}" needs "{_TYPES[kind]}"; skipped')
        return None
    approve = entry.pop("autoApprove", None)
    if approve is not None:
        entry["auto_approve"] = approve
    env_file = entry.pop("envFile", None)
    unknown = sorted(str(key) for key in entry if key not in _FIELDS and key not in _IGNORED)
    if unknown:
        warn(f"unknown key(s) ignored: {', '.join(unknown)}")
    entry = {key: value for key, value in entry.items() if key in _FIELDS}
    missing: list[str] = []
    entry = expand_vars(entry, missing)
    if missing:
        names = ", ".join(f"${{{name}}}" for name in dict.fromkeys(missing))
        warn(f"{names} not set; this server is skipped")
        return None
    if env_file is not None:
        loaded = _env_file(env_file, folder, warn)
        if loaded is None:
            return None
        entry["env"] = {**loaded, **(entry.get("env") or {})}
    try:
        spec = McpServer.model_validate(entry)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "entry"
        warn(f"{where}: {error['msg']}; skipped")
        return None
    if bool(spec.command) == bool(spec.url):
        warn('needs exactly one of "command" (stdio) or "url" (HTTP); skipped')
        return None
    return spec


def _env_file(value: Any, folder: Path, warn: Warn) -> dict[str, str] | None:
    """`envFile`: `KEY=value` lines from a file inside the project (None: skip the server)."""
    if not isinstance(value, str):
        warn("envFile must be a file name; skipped")
        return None
    path = (folder / expand_user(value)).resolve()
    if not path.is_relative_to(folder.resolve()):
        warn(f"envFile {value!r} is outside the project; skipped")
        return None
    try:
        text = decode_text(path.read_bytes()[:MAX_ENV_FILE], errors="replace")
    except OSError as exc:
        warn(f"envFile {value!r}: cannot read it ({exc.strerror}); skipped")
        return None
    env: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("export "):
            line = line[7:].lstrip()
        key, eq, val = line.partition("=")
        if not eq or line.startswith("#") or not _NAME.fullmatch(key.strip()):
            continue
        val = val.strip()
        if len(val) >= 2 and val[0] == val[-1] and val[0] in "\"'":
            val = val[1:-1]
        env[key.strip()] = val
    return env


def expand_vars(value: Any, missing: list[str]) -> Any:
    """Variables in all strings, by `zen.base.env_vars`'s rule; the names of unset ones go to
    `missing` (the caller skips what needs them)."""
    if isinstance(value, str):
        text, unset = env_vars.expand(value, os.environ)
        missing += unset
        return text
    if isinstance(value, list):
        return [expand_vars(item, missing) for item in value]
    if isinstance(value, dict):
        return {key: expand_vars(item, missing) for key, item in value.items()}
    return value

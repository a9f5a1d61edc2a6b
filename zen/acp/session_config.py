"""The config a session opened by an editor gets: its workspace, trust, the client's servers.

`session/new` and `session/load` name a `cwd` and may pass MCP servers. The `cwd` must be an
absolute path to a directory; an untrusted workspace follows the `-p` rule (there is no one to
ask: its own inputs are skipped and the user is told); the client's servers join the config's.
Problems become JSON-RPC errors (`acp/errors.py`) or notices shown with the first answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio

from zen.acp.errors import bad_params, failure
from zen.settings import trust
from zen.settings.loading import load_config
from zen.settings.model_roles import resolve_model
from zen.settings.schema import DUAL_ROLES, Config, ConfigError, McpServer


def workspace_root(cwd: str) -> Path:
    """The session's workspace: `cwd`, which must be an absolute path to a directory."""
    path = Path(cwd)
    if not path.is_absolute():
        raise bad_params(f"cwd must be an absolute path, not {cwd!r}")
    try:
        if not path.is_dir():
            raise bad_params(f"cwd {cwd!r} is not a directory")
        return path.resolve()
    except (OSError, ValueError) as e:
        raise bad_params(f"cwd {cwd!r} cannot be used: {e}") from None


def session_config(root: Path, overrides: dict[str, Any], notices: list[str]) -> Config:
    """The layered config for this workspace, `overrides` (the `zen acp` flags) on top. An
    untrusted workspace follows the `-p` rule (there is no one to ask): its own inputs are
    skipped, and the user is told."""
    state = trust.check(root)
    if not state.trusted:
        why = (
            "they changed since you trusted this folder"
            if state.changed
            else "this folder is not trusted"
        )
        notices.append(
            f"ignored {', '.join(state.inputs)}: {why}; review them and run "
            f"`zen trust {root}` to use them"
        )
    try:
        config = load_config(root, overrides, trusted=state.trusted)
        for role in DUAL_ROLES if config.agent_mode == "dual" else (None,):
            resolve_model(config, role)
    except ConfigError as e:
        raise failure(str(e)) from None
    return config


def with_client_servers(config: Config, servers: list[Any], notices: list[str]) -> Config:
    """The MCP servers the client passed, added to the config's (the client's entry wins a
    shared name: it is the user's choice for this session)."""
    added: dict[str, McpServer] = {}
    for server in servers:
        name = getattr(server, "name", "") or ""
        try:
            if isinstance(server, McpServerStdio):
                added[name] = McpServer(
                    command=server.command,
                    args=list(server.args),
                    env={e.name: e.value for e in server.env},
                )
            elif isinstance(server, HttpMcpServer):
                added[name] = McpServer(
                    url=server.url, headers={h.name: h.value for h in server.headers}
                )
            else:
                notices.append(
                    f"MCP server {name!r} skipped: zen speaks stdio and streamable HTTP, "
                    f"not {getattr(server, 'type', 'this transport')}"
                )
        except Exception as e:
            notices.append(f"MCP server {name!r} skipped: {e}")
    if not added:
        return config
    if config.features.mcp == "off":
        notices.append("the client's MCP servers are not started: MCP is off in zen's config")
        return config
    return config.model_copy(update={"mcp_servers": {**config.mcp_servers, **added}})

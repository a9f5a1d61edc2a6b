"""The sources of settings, one `Layer` each: a YAML file (with `${VAR}` expansion), the
environment (`ZEN_MODEL`, ...), the command-line flags. A layer keeps its raw dict and knows how
to name a key it supplied, so an error can say `/p/.zen/config.yaml: max_turns`, `--max-turns`
or `environment ZEN_MODEL`.

In YAML strings `$VAR` and `${VAR}` expand from the environment, `${VAR:-text}` gives a fallback
and `$$` is a literal `$`. An unset variable without a fallback is an error naming the file, key
and variable: a silently empty API key would only surface later as a puzzling 401. An unset
variable inside an MCP server's entry costs that server (recorded in `Layer.skipped`), not the run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from zen.base import env_vars
from zen.settings.schema import ConfigError

_ENV_KEYS = {
    "ZEN_PROVIDER": "provider",
    "ZEN_MODEL": "model",
    "ZEN_BASE_URL": "base_url",
    "ZEN_API_KEY": "api_key",
    "ZEN_TIMEOUT": "timeout",
    "ZEN_FIRST_BYTE_TIMEOUT": "first_byte_timeout",
    "ZEN_IDLE_TIMEOUT": "idle_timeout",
    "ZEN_CONNECT_TIMEOUT": "connect_timeout",
    "ZEN_MAX_TIME": "max_time",
}
_ENV_VARS = {key: var for var, key in _ENV_KEYS.items()}


@dataclass(frozen=True)
class Layer:
    """One source of settings and how to name it in an error."""

    kind: Literal["file", "env", "cli"]
    source: str
    data: dict[Any, Any]
    skipped: dict[str, str] = field(default_factory=dict)
    """MCP servers left out for an unset variable, with the reason."""

    def name(self, loc: tuple[Any, ...]) -> str:
        loc = tuple(part for part in loc if part != "[key]")
        if self.kind == "env":
            return f"environment {_ENV_VARS[loc[0]]}"
        if self.kind == "cli":
            flag = "--" + str(loc[0]).replace("_", "-")
            return flag if len(loc) == 1 else f"{flag}: {dotted(loc)}"
        return f"{self.source}: {dotted(loc)}" if loc else self.source


def env_layer(env: Mapping[str, str]) -> Layer:
    """The `ZEN_*` variables that are set, as settings."""
    data = {key: env[var] for var, key in _ENV_KEYS.items() if env.get(var)}
    return Layer("env", "environment", data)


def cli_layer(cli: dict[str, Any] | None) -> Layer:
    """The flags the user gave (None values are flags left out)."""
    given = {key: value for key, value in (cli or {}).items() if value is not None}
    return Layer("cli", "command line", given)


def read_layer(path: Path, env: Mapping[str, str]) -> Layer | None:
    """The file's settings with variables expanded; None when there is no such file."""
    import yaml

    from zen.base.yaml_limits import load_bounded, read_capped

    try:
        raw = read_capped(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    try:
        data = load_bounded(raw, _loader())
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        raise ConfigError(f"{path}: {where}{exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: {str(exc).splitlines()[0]}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        found = "a list" if isinstance(data, list) else "a single value"
        raise ConfigError(f"{path}: expected `key: value` settings at the top, found {found}")
    servers, skipped = data.get("mcp_servers"), dict[str, str]()
    if isinstance(servers, dict):  # an unset ${VAR} costs its MCP server, not the run
        for name, entry in servers.items():
            try:
                _expand(entry, env, path, ("mcp_servers", name))
            except ConfigError as exc:
                skipped[name] = str(exc)
        data = {**data, "mcp_servers": {k: v for k, v in servers.items() if k not in skipped}}
    return Layer("file", str(path), _expand(data, env, path, ()), skipped)


@cache
def _loader() -> type:
    """YAML 1.2 booleans: only true/false. Plain `on`, `off`, `yes`, `no` stay text, so
    `git: on` or an MCP `env: {DEBUG: yes}` mean what they say."""
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    bool_tag = "tag:yaml.org,2002:bool"
    resolvers = {
        first: [(tag, regex) for tag, regex in pairs if tag != bool_tag]
        for first, pairs in base.yaml_implicit_resolvers.items()
    }
    loader: Any = type("_ZenLoader", (base,), {"yaml_implicit_resolvers": resolvers})
    loader.add_implicit_resolver(
        bool_tag, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return loader


def _expand(node: Any, env: Mapping[str, str], path: Path, loc: tuple[Any, ...]) -> Any:
    if loc[:1] == ("hooks",):
        return node  # shell commands: their `$VAR`s are the shell's to expand
    if isinstance(node, dict):
        return {key: _expand(value, env, path, (*loc, key)) for key, value in node.items()}
    if isinstance(node, list):
        return [_expand(value, env, path, (*loc, i)) for i, value in enumerate(node)]
    if isinstance(node, str) and "$" in node:
        text, missing = env_vars.expand(node, env)
        if missing:
            name = missing[0]
            raise ConfigError(
                f"{path}: {dotted(loc)}: environment variable {name} is not set "
                f"(write ${{{name}:-}} to allow it empty, $$ for a literal $)"
            )
        return text
    return node


def dotted(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")

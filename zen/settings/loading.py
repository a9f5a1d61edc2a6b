"""Loading the configuration: every layer merged, then validated once against the schema.

Precedence, highest first: CLI flags > environment (`ZEN_PROVIDER`, `ZEN_MODEL`, `ZEN_BASE_URL`,
`ZEN_API_KEY`, `ZEN_TIMEOUT`, `ZEN_MAX_TIME`, ...) >
project `<workspace>/.zen/config.yaml` > user `~/.zen/config.yaml` > the packaged
`config/default.yaml`. Layers merge key-wise (nested mappings too); lists replace; a `null`
drops what lower layers set, so the default applies again. Validating the merge once, and then
asking which layer reached deepest into a bad key, lets each error name the file, flag or
variable that supplied it. The loader also records what model-role resolution needs: the key
variables it saw, where each key, model, URL and provider came from, and which hosts the
project layer redirected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from difflib import get_close_matches
from pathlib import Path
from typing import Any, get_args, get_origin

from pydantic import BaseModel, ValidationError

from zen.base.paths import narrow_file, user_home
from zen.settings.layers import Layer, cli_layer, dotted, env_layer, read_layer
from zen.settings.model_roles import ROLES, endpoint, has_own_key
from zen.settings.providers import PROVIDERS
from zen.settings.sandbox_options import drop_user_only
from zen.settings.schema import DUAL_ROLES, Config, ConfigError, Redirect
from zen.settings.user_only import confine_project

_FALLBACK_VARS = {"OPENAI_API_KEY", "OPENAI_BASE_URL"} | {p.key_env for p in PROVIDERS.values()}


def key_variables(config: Config, environ: Mapping[str, str]) -> frozenset[str]:
    """The environment variables that hold zen's own API keys, which bash does not inherit
    (unless `bash_inherits_keys`): ZEN_API_KEY, every provider's key variable, and any
    variable whose value is a key this config uses."""
    return frozenset() if config.bash_inherits_keys else _key_names(config, environ)


def inherited_keys(config: Config, environ: Mapping[str, str]) -> frozenset[str]:
    """The same variables when `bash_inherits_keys` gives them back (the sandbox, which
    withholds every `*_API_KEY*`, then keeps these); else none."""
    return _key_names(config, environ) if config.bash_inherits_keys else frozenset()


def _key_names(config: Config, environ: Mapping[str, str]) -> frozenset[str]:
    keys = set(config.known_keys())
    named = {"ZEN_API_KEY", "OPENAI_API_KEY", *_FALLBACK_VARS} - {"OPENAI_BASE_URL"}
    return frozenset(named | {name for name, value in environ.items() if value in keys})


def load_config(
    workspace: Path,
    cli: dict[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    *,
    trusted: bool = False,
) -> Config:
    """Merge every layer and validate once. `cli` holds only the flags the user gave (None
    values are ignored); `env` defaults to `os.environ` and also supplies the home directory
    (`zen.base.paths.user_home`).

    The project layer (`<workspace>/.zen/config.yaml`) is read only when `trusted` (see
    zen/settings/trust.py): this is the one place that decides whether a repository's settings
    apply, and the config remembers it for `.mcp.json` (`Config.project_trusted`). Even then
    it cannot weaken the sandbox or give commands zen's keys (`user_only.py`)."""
    home = user_home(env)  # the process's home unless an environment was given
    env = os.environ if env is None else env
    layers = [read_layer(_default_file(), env)]
    if home:
        narrow_file(home / ".zen" / "config.yaml")  # where keys are written by hand
        layers.append(read_layer(home / ".zen" / "config.yaml", env))
    project = read_layer(Path(workspace) / ".zen" / "config.yaml", env) if trusted else None
    dropped = drop_user_only(project.data) if project else []  # the program, what it shows
    layers.append(project)
    layers += [env_layer(env), cli_layer(cli)]
    present = [layer for layer in layers if layer is not None]

    config = _validate(present)
    config._env = {name: env[name] for name in _FALLBACK_VARS if env.get(name)}
    config._project_trusted = trusted
    for key in ("api_key", "model", "base_url", "provider"):
        for loc in [(key,), *(("dual_agent", role, key) for role in DUAL_ROLES)]:
            layer = next((x for x in reversed(present) if _value(x.data, loc)), None)
            if layer is not None:
                config._sources[loc] = layer.name(loc)
    if project is not None:
        config._prompts_confined = _supplier(present, ("prompts",)) is project
        others = [layer for layer in present if layer is not project]
        without: Config | None
        try:
            without = _validate(others)
        except ConfigError:
            without = None
        if without is not None:
            without._env = config._env
        config._redirected = _redirected(config, without, present, project)
        confine_project(config, without, project.source, dropped)
    return config


def _validate(layers: list[Layer]) -> Config:
    merged: dict[Any, Any] = {}
    for layer in layers:
        merged = _merge(merged, layer.data)
    skipped = {name: why for layer in layers for name, why in layer.skipped.items()}
    if skipped and isinstance(merged.get("mcp_servers"), dict):
        merged["mcp_servers"] = {k: v for k, v in merged["mcp_servers"].items() if k not in skipped}
    try:
        config = Config.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(_explain(exc, layers)) from None
    config._mcp_skipped = skipped
    return config


def _redirected(
    config: Config, without: Config | None, layers: list[Layer], project: Layer
) -> dict[str, Redirect]:
    """The roles whose host the project layer changed, and whether it named their key."""
    out: dict[str, Redirect] = {}
    for role in ROLES:
        try:
            host = _host(endpoint(config, role).base_url)
            before = _host(endpoint(without, role).base_url) if without else None
        except ConfigError:
            continue  # a bad OPENAI_BASE_URL: resolve_model reports it
        if host == before:
            continue
        loc = ("dual_agent", role, "api_key") if has_own_key(config, role) else ("api_key",)
        if role == "main":
            loc = ("api_key",)
        cli = next((layer for layer in layers if layer.kind == "cli"), None)
        key = _value(cli.data, ("api_key",)) if cli else None
        if key:
            out[role] = Redirect(project.source, key, "--api-key")
        else:
            out[role] = Redirect(project.source, _value(project.data, loc), project.name(loc))
    return out


def _value(data: Any, loc: tuple[str, ...]) -> str | None:
    for part in loc:
        data = data.get(part) if isinstance(data, dict) else None
    return data.strip() or None if isinstance(data, str) else None


def _host(url: str) -> str:
    """scheme://host:port: where the data goes (a path change stays on the same server)."""
    from urllib.parse import urlparse

    parts = urlparse(url)
    return f"{parts.scheme}://{parts.hostname}:{parts.port}"


def _default_file() -> Path:
    from zen.settings.prompts import data_dir

    return data_dir("config") / "default.yaml"


def _merge(base: dict[Any, Any], over: Mapping[Any, Any]) -> dict[Any, Any]:
    """A new dict: `over` wins key by key, mappings merge deeper, None removes."""
    out = dict(base)
    for key, value in over.items():
        if value is None:
            out.pop(key, None)
        elif isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _explain(exc: ValidationError, layers: list[Layer]) -> str:
    """One line: each problem prefixed by the layer that supplied the offending key."""
    errors = exc.errors(include_url=False)
    parts = []
    for error in errors[:3]:
        loc = tuple(error["loc"])
        layer = _supplier(layers, loc)
        where = layer.name(loc) if layer else f"configuration: {dotted(loc)}"
        parts.append(f"{where}: {_problem(error)}")
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts)


def _supplier(layers: list[Layer], loc: tuple[Any, ...]) -> Layer | None:
    """The highest layer that reaches deepest into `loc`: the one whose value won the merge."""
    best, depth = None, 0
    for layer in reversed(layers):
        reached = _depth(layer.data, loc)
        if reached > depth:
            best, depth = layer, reached
    return best


def _depth(data: Any, loc: tuple[Any, ...]) -> int:
    for reached, part in enumerate(loc):
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if not (in_list or (isinstance(data, dict) and part in data)):
            return reached
        data = data[part]
    return len(loc)


def _problem(error: Any) -> str:
    if error["type"] == "extra_forbidden":
        known = _known_keys(error["loc"][:-1])
        close = get_close_matches(str(error["loc"][-1]), known, n=1, cutoff=0.75)
        return f"unknown key (did you mean {close[0]}?)" if close else "unknown key"
    if error["type"] == "value_error":
        return str(error["ctx"]["error"])
    if error["type"] == "model_type":
        return "Input should be a mapping of `key: value` settings"
    return str(error["msg"])


def _known_keys(loc: tuple[Any, ...]) -> list[str]:
    """The field names allowed at `loc`, for a did-you-mean hint."""
    kind: Any = Config
    for part in loc:
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            field = kind.model_fields.get(part)
            if field is None:
                return []
            kind = field.annotation
        elif get_origin(kind) is dict:
            kind = get_args(kind)[1]
        else:
            return []
    return list(kind.model_fields) if isinstance(kind, type) and issubclass(kind, BaseModel) else []

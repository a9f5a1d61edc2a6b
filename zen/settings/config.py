"""Configuration: one pydantic model, filled from layers.

Precedence, highest first: CLI flags > environment (`ZEN_PROVIDER`, `ZEN_MODEL`, `ZEN_BASE_URL`,
`ZEN_API_KEY`, `ZEN_TIMEOUT`, `ZEN_MAX_TIME`, ...) >
project `<workspace>/.zen/config.yaml` > user `~/.zen/config.yaml` > the packaged
`config/default.yaml`. Layers merge key-wise (nested mappings too); lists replace; a `null`
drops what lower layers set, so the default applies again. The merged result is validated once.

In YAML strings `$VAR` and `${VAR}` expand from the environment, `${VAR:-text}` gives a fallback
and `$$` is a literal `$`. An unset variable without a fallback is an error naming the file, key
and variable: a silently empty API key would only surface later as a puzzling 401.

Provider keys are looked up last, by `resolve_model`: an explicit api_key (flag, `ZEN_API_KEY`,
a file) wins, then the provider's own variable (`DEEPSEEK_API_KEY`, ...). `OPENAI_API_KEY` and
`OPENAI_BASE_URL` are fallbacks for openai-style endpoints only: an OpenAI key is never sent to
another vendor's host, except when `OPENAI_BASE_URL` itself points there (the two come as a pair).

A bad file or value becomes a one-line `ConfigError` naming the file (or flag, or variable), the
key and the problem.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from difflib import get_close_matches
from functools import cache
from pathlib import Path
from typing import Annotated, Any, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
)

from zen.base import env_vars
from zen.base.paths import user_home
from zen.settings.providers import PROVIDERS, detect, is_local

Level = Literal["auto", "confirm", "deny"]
AgentMode = Literal["single", "dual"]
Collaboration = Literal["delegated", "autonomous", "controlled"]
OnOff = Literal["on", "off"]


class ConfigError(Exception):
    """One clear line for the user; the CLI prints it and exits 2."""


BUILTIN_TOOLS = (
    "read-file",
    "write-file",
    "edit-file",
    "glob",
    "grep",
    "bash",
    "memo",
    "todo",
    "send-to-coder",
    "revert-coder",
    "spawn-agents",
    "git",
)
"""The names `permissions` may use besides MCP forms (a test keeps it equal to the catalog)."""
_MCP_KEY = re.compile(r"mcp__(\*|[^\s*]+?(__(\*|[^\s*]+))?)")


def _permission_key(key: str) -> str:
    """Fail closed: a misspelt key (`Bash`, `"bash "`, `bsh`) would be silently ignored and
    leave the tool at its default, so it is an error with a did-you-mean."""
    if key in BUILTIN_TOOLS or _MCP_KEY.fullmatch(key):
        return key
    close = get_close_matches(key.strip().lower(), BUILTIN_TOOLS, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise ValueError(
        f"unknown tool {key!r}{hint}; use a built-in tool name ({', '.join(BUILTIN_TOOLS)}) "
        "or mcp__*, mcp__<server>, mcp__<server>__<tool>"
    )


PermissionKey = Annotated[str, AfterValidator(_permission_key)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Endpoint(_Strict):
    """Checks shared by the top level and the per-role overrides."""

    @field_validator("provider", "base_url", "api_key", mode="before", check_fields=False)
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """`api_key: ${KEY:-}` with KEY unset means "not given", not an empty key."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("provider", check_fields=False)
    @classmethod
    def _known_provider(cls, value: str | None) -> str | None:
        if value is None:
            return None
        name = value.strip().lower()
        if name not in PROVIDERS:
            raise ValueError(f"unknown provider {value!r}; known: {', '.join(PROVIDERS)}")
        return name

    @field_validator("base_url", check_fields=False)
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("http://", "https://")):
            raise ValueError(f"{value!r} should start with http:// or https://")
        return value


class ModelOverride(_Endpoint):
    """Per-role overrides for dual mode: any field left out comes from the top level."""

    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, gt=0)
    stream_tools: bool | None = None
    context_window: int | None = Field(default=None, ge=1000)


class ModelPrice(_Strict):
    """USD per million tokens (`pricing:` in the config, by model name)."""

    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)
    """None: the same as `input` (no cache discount)."""


class DualAgent(_Strict):
    orchestrator: ModelOverride = Field(default_factory=ModelOverride)
    coder: ModelOverride = Field(default_factory=ModelOverride)
    scout: ModelOverride = Field(default_factory=ModelOverride)
    """Explore and plan sub-agents: the role that reads, so the cheapest model that reads well."""


DUAL_ROLES: tuple[str, ...] = tuple(DualAgent.model_fields)
"""Model roles whose model `dual_agent` can override: its fields, so a new one is declared
once (a `Role` in zen/agent/roles.py names the model role it runs on)."""


class Features(_Strict):
    git: Literal["auto", "on", "off"] = "auto"
    mcp: OnOff = "on"
    planning_layer: OnOff = "on"
    parallel_agents: OnOff = "on"
    todo: OnOff = "on"

    @field_validator("*", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        """`todo: false` means what it says."""
        return ("on" if value else "off") if isinstance(value, bool) else value


class Checkpoints(_Strict):
    """Snapshots of the workspace before and after turns that may change files."""

    enabled: OnOff = "on"
    max_file_size: int = Field(default=2_000_000, gt=0)
    """Bytes; bigger files are left out of snapshots."""
    keep_days: float = Field(default=7, gt=0)
    max_mb: float = Field(default=500, gt=0)
    """Per workspace; the oldest checkpoints go first."""

    @field_validator("enabled", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value


class MemoSettings(_Strict):
    persist: OnOff = "on"
    """Keep `file:*` memo entries for the workspace's next sessions."""

    @field_validator("persist", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value


class McpServer(_Strict):
    """A stdio server (`command`) or a streamable-HTTP one (`url`)."""

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout: float = Field(default=120.0, gt=0)
    """Seconds one tool call may take before it ends as an error."""
    start_timeout: float = Field(default=30.0, gt=0)
    """Seconds to start, handshake and list the tools."""
    auto_approve: list[str] = Field(default_factory=list)
    """Tools (the server's names) that run without asking unless `permissions` say otherwise."""


class ModelSettings(_Strict):
    """Everything the LLM client needs for one role, fully resolved."""

    provider: str = "openai"
    model: str
    base_url: str
    api_key: str | None = None
    """None only for local endpoints, which need no key."""
    temperature: float | None = None
    max_tokens: int | None = None
    default_model: bool = False
    """The model is the provider preset's default (none was configured): front-ends say so."""
    stream_tools: bool = True
    """False: requests carrying tools go out unstreamed, with `tool_choice: auto`."""
    context_window: int | None = None
    """Tokens the model holds, when the configuration says; else the preset's or the server's."""
    key_source: str = ""
    """Where the key came from (`environment DEEPSEEK_API_KEY`, `--api-key`, a file), for
    `/model` and `zen config`; never the key itself."""


@dataclass(frozen=True)
class Redirect:
    """A role whose host the project layer changed (see `allowed_key`)."""

    source: str
    """The project file that changed it."""
    key: str | None
    """The key that same file names for it (or --api-key): the only one that may go there."""
    key_source: str = ""


class Config(_Endpoint):
    provider: str | None = None
    model: str | None = Field(default=None, min_length=1)
    """None: the provider preset's default model."""
    api_key: str | None = None
    base_url: str | None = None
    temperature: float | None = None
    """Sent only when set: some providers reject any but their fixed value."""
    max_tokens: int | None = Field(default=None, gt=0)
    stream_tools: bool | None = None
    """None: the provider preset's habit (false for llamacpp)."""
    context_window: int | None = Field(default=None, ge=1000)
    """Tokens the model holds; None: from the provider table or the server."""
    compact_at: float = Field(default=0.8, gt=0.1, le=1.0)
    """Share of the context window at which the conversation is compacted."""
    agent_mode: AgentMode = "single"
    collaboration: Collaboration = "delegated"
    work_mode: str | None = None
    """bug-fix, develop, explain (read-only), optimize, or a mode in ~/.zen/modes/."""
    dual_agent: DualAgent = Field(default_factory=DualAgent)
    features: Features = Field(default_factory=Features)
    checkpoints: Checkpoints = Field(default_factory=Checkpoints)
    memo: MemoSettings = Field(default_factory=MemoSettings)
    permissions: dict[PermissionKey, Level] = Field(default_factory=dict)
    mcp_servers: dict[str, McpServer] = Field(default_factory=dict)
    prompts: list[str] = Field(default_factory=list)
    hooks: dict[str, Any] = Field(default_factory=dict)
    """Claude Code's hooks format; checked by zen/tools/hooks.py, never variable-expanded."""
    max_tool_output: int = Field(default=30_000, gt=200)
    max_edit_bytes: int = Field(default=10_000_000, gt=0)
    max_turns: int = Field(default=100, gt=0)
    coder_max_turns: int = Field(default=50, gt=0)
    parallel_agents_max: int = Field(default=4, gt=0)
    allowed_roots: list[str] = Field(default_factory=list)
    """Folders outside the workspace that file tools may also touch."""
    retries: int = Field(default=4, ge=0)
    """How often a failed model request is retried (429, 5xx, dropped connections)."""
    connect_timeout: float = Field(default=10.0, gt=0)
    first_byte_timeout: float = Field(default=300.0, gt=0)
    """From sending a request to the first byte of its answer (reasoning models think first)."""
    idle_timeout: float = Field(default=120.0, gt=0)
    """The longest silence inside a streaming answer."""
    timeout: float = Field(default=900.0, gt=0)
    """One model request in all, however it trickles (caps the two above)."""
    max_time: float | None = Field(default=None, gt=0)
    """One task (a `-p` run, a shell message) in all; None: no limit."""
    pricing: dict[str, ModelPrice] = Field(default_factory=dict)
    """USD per million tokens by model name; adds to and overrides the provider table."""
    max_budget_usd: float | None = Field(default=None, gt=0)
    """Stop a task once it has cost more than this (when its price is known)."""

    _mcp_skipped: dict[str, str] = PrivateAttr(default_factory=dict)
    """MCP servers left out because a variable they use is unset: name -> why."""
    _env: dict[str, str] = PrivateAttr(default_factory=dict)
    """The provider key variables (and OPENAI_BASE_URL) seen by `load_config`, for
    `resolve_model`. Empty for a Config built in code, so its resolution never depends on
    the process environment."""
    _project_trusted: bool = PrivateAttr(default=False)
    _prompts_confined: bool = PrivateAttr(default=True)
    _redirected: dict[str, Redirect] = PrivateAttr(default_factory=dict)
    _key_sources: dict[tuple[str, ...], str] = PrivateAttr(default_factory=dict)

    def known_keys(self) -> list[str]:
        """Every API key this config can see (its own and the environment's), for
        `zen.base.redaction.remember`: a key is a secret whether or not this run sends it."""
        roles = [getattr(self.dual_agent, role).api_key for role in DUAL_ROLES]
        env = [value for name, value in self._env.items() if name.endswith("_API_KEY")]
        return [key for key in (self.api_key, *roles, *env) if key]

    @property
    def project_trusted(self) -> bool:
        """The workspace's own inputs (this project layer, `.mcp.json`) may be used."""
        return self._project_trusted

    @property
    def prompts_confined(self) -> bool:
        """`prompts` files must lie in the workspace or allowed roots (unless the user's own
        config listed them)."""
        return self._prompts_confined


# ---------------------------------------------------------------------------------------------
# Loading

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
_FALLBACK_VARS = {"OPENAI_API_KEY", "OPENAI_BASE_URL"} | {p.key_env for p in PROVIDERS.values()}


@dataclass(frozen=True)
class _Layer:
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
            return flag if len(loc) == 1 else f"{flag}: {_dotted(loc)}"
        return f"{self.source}: {_dotted(loc)}" if loc else self.source


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
    apply, and the config remembers it for `.mcp.json` (`Config.project_trusted`)."""
    home = user_home(env)  # the process's home unless an environment was given
    env = os.environ if env is None else env
    layers = [_read_layer(_default_file(), env)]
    if home:
        layers.append(_read_layer(home / ".zen" / "config.yaml", env))
    project = _read_layer(Path(workspace) / ".zen" / "config.yaml", env) if trusted else None
    layers.append(project)
    from_env = {key: env[var] for var, key in _ENV_KEYS.items() if env.get(var)}
    layers.append(_Layer("env", "environment", from_env))
    given = {key: value for key, value in (cli or {}).items() if value is not None}
    layers.append(_Layer("cli", "command line", given))
    present = [layer for layer in layers if layer is not None]

    config = _validate(present)
    config._env = {name: env[name] for name in _FALLBACK_VARS if env.get(name)}
    config._project_trusted = trusted
    for loc in [("api_key",), *(("dual_agent", role, "api_key") for role in DUAL_ROLES)]:
        layer = next((x for x in reversed(present) if _value(x.data, loc)), None)
        if layer is not None:
            config._key_sources[loc] = layer.name(loc)
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
    return config


def _validate(layers: list[_Layer]) -> Config:
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
    config: Config, without: Config | None, layers: list[_Layer], project: _Layer
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
        loc = ("dual_agent", role, "api_key") if _own_key(config, role) else ("api_key",)
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


def _read_layer(path: Path, env: Mapping[str, str]) -> _Layer | None:
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
    return _Layer("file", str(path), _expand(data, env, path, ()), skipped)


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
                f"{path}: {_dotted(loc)}: environment variable {name} is not set "
                f"(write ${{{name}:-}} to allow it empty, $$ for a literal $)"
            )
        return text
    return node


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


def _explain(exc: ValidationError, layers: list[_Layer]) -> str:
    """One line: each problem prefixed by the layer that supplied the offending key."""
    errors = exc.errors(include_url=False)
    parts = []
    for error in errors[:3]:
        loc = tuple(error["loc"])
        layer = _supplier(layers, loc)
        where = layer.name(loc) if layer else f"configuration: {_dotted(loc)}"
        parts.append(f"{where}: {_problem(error)}")
    if len(errors) > 3:
        parts.append(f"and {len(errors) - 3} more")
    return "; ".join(parts)


def _supplier(layers: list[_Layer], loc: tuple[Any, ...]) -> _Layer | None:
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


def _dotted(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text.lstrip(".")


# ---------------------------------------------------------------------------------------------
# Resolving one role's model


ROLES = ("main", *DUAL_ROLES)


@dataclass(frozen=True)
class Endpoint:
    """Where one role's requests go and which variables may hold its key."""

    base_url: str
    habits: Any
    """The zen.settings.providers.Provider whose habits apply."""
    own: bool
    """The role names its own provider or base_url, so it inherits no key."""
    key_vars: tuple[str, ...]


def _override(config: Config, role: str | None) -> ModelOverride:
    over = getattr(config.dual_agent, role) if role in DUAL_ROLES else None
    return over or ModelOverride()


def _role_key(role: str | None) -> str:
    return role if role in DUAL_ROLES else "main"


def _own_key(config: Config, role: str | None) -> bool:
    """The role's key comes from its `dual_agent` entry rather than the top level."""
    over = _override(config, role)
    return endpoint(config, role).own or over.api_key is not None


def endpoint(config: Config, role: str | None = None) -> Endpoint:
    """The base URL for `role`: its override, the top level, the provider preset, then
    OPENAI_BASE_URL (which comes paired with OPENAI_API_KEY), then OpenAI."""
    over = _override(config, role)
    own = (over.provider is not None and over.provider != config.provider) or (
        over.base_url is not None and over.base_url != config.base_url
    )
    provider, base_url = (
        (over.provider, over.base_url) if own else (config.provider, config.base_url)
    )
    env = config._env
    preset = PROVIDERS[provider] if provider else None
    paired = False
    if not base_url:
        if preset and preset.name != "openai":
            base_url = preset.base_url
        elif env.get("OPENAI_BASE_URL"):
            base_url, paired = env["OPENAI_BASE_URL"], True
            if not base_url.startswith(("http://", "https://")):
                raise ConfigError(
                    f"environment OPENAI_BASE_URL: {base_url!r} should start with http:// or "
                    "https://"
                )
        else:
            base_url = PROVIDERS["openai"].base_url
    habits = preset or detect(base_url)
    key_vars = [habits.key_env]
    if paired and habits.key_env != "OPENAI_API_KEY":
        key_vars.append("OPENAI_API_KEY")
    return Endpoint(base_url, habits, own, tuple(key_vars))


def allowed_key(
    named: str | None, fallbacks: list[str | None], redirect: Redirect | None
) -> str | None:
    """The key-to-host rule. Normally the named key (flag, ZEN_API_KEY, a config file) wins,
    then the provider's variables. When the project layer changed the host, only the key that
    same layer (or --api-key) names may go there, whatever ZEN_API_KEY says: a trusted config
    that a later `git pull` redirects still cannot carry the user's existing keys away."""
    if redirect is not None:
        return redirect.key
    return named or next((key for key in fallbacks if key), None)


def resolve_model(config: Config, role: str | None = None) -> ModelSettings:
    """The endpoint, key and model for `role` ("orchestrator", "coder" and "scout" take their
    `dual_agent` overrides; anything else gets the top level).

    A role that names another provider or base_url talks to another endpoint, so it inherits
    none of provider, base_url and api_key: it gets its own, or its provider's."""
    over = _override(config, role)
    point = endpoint(config, role)
    api_key, key_source = _key_for(config, role, over, point)
    model, default_model = _model_for(config, role, over, point)
    return ModelSettings(
        key_source=key_source,
        provider=point.habits.name,
        model=model,
        default_model=default_model,
        stream_tools=_stream_tools_for(config, over, point),
        base_url=point.base_url,
        api_key=api_key,
        temperature=over.temperature if over.temperature is not None else config.temperature,
        max_tokens=over.max_tokens or config.max_tokens,
        context_window=over.context_window or config.context_window,
    )


def _key_for(
    config: Config, role: str | None, over: ModelOverride, point: Endpoint
) -> tuple[str | None, str]:
    """The key `role` may send to its endpoint (`allowed_key`), and where it came from for
    `/model` ("" without a key). No key for a remote host is an error saying where to put one."""
    named = over.api_key if point.own else (over.api_key or config.api_key)
    redirect = config._redirected.get(_role_key(role))
    fallbacks = [config._env.get(var) for var in point.key_vars]
    api_key = allowed_key(named, fallbacks, redirect)
    if api_key is None and not (point.habits.local or is_local(point.base_url)):
        raise ConfigError(_no_key(point, role, redirect))
    if not api_key:
        return api_key, ""
    if redirect is not None:
        return api_key, redirect.key_source
    if named:
        loc = ("dual_agent", _role_key(role), "api_key") if over.api_key else ("api_key",)
        return api_key, config._key_sources.get(loc, "the configuration")
    pairs = zip(point.key_vars, fallbacks, strict=True)
    return api_key, next((f"environment {var}" for var, key in pairs if key), "")


def _model_for(
    config: Config, role: str | None, over: ModelOverride, point: Endpoint
) -> tuple[str, bool]:
    """`role`'s model, and whether it is the provider's default (none was configured)."""
    own = point.own
    model = over.model or (None if own else config.model)
    if model is None and own and not over.provider:
        model = config.model  # a role with only its own base_url: the same model elsewhere
    default_model = model is None
    model = model or point.habits.default_model
    if model is None:
        flag = f"dual_agent.{role}.model" if own else "--model NAME"
        raise ConfigError(
            f"provider {point.habits.name} has no default model: set {flag} "
            f"({point.base_url}/models lists what the server serves)"
        )
    return model, default_model


def _stream_tools_for(config: Config, over: ModelOverride, point: Endpoint) -> bool:
    """The provider's habit, unless the top level (for a role on the same endpoint) or the
    role itself says otherwise."""
    stream_tools = point.habits.stream_tools
    for chosen in (None if point.own else config.stream_tools, over.stream_tools):
        if chosen is not None:
            stream_tools = chosen
    return stream_tools


def _no_key(point: Endpoint, role: str | None, redirect: Redirect | None) -> str:
    if redirect is not None:
        return (
            f"no API key for {point.base_url}: {redirect.source} points this workspace at "
            "another host, so zen sends none of your keys there; name the key in that file "
            "(api_key: ${VARIABLE}) or pass --api-key"
        )
    if point.own:
        hint = f"set {point.key_vars[0]}, or put api_key under dual_agent.{role}"
        return f"no API key for {point.base_url} ({role}): {hint} in ~/.zen/config.yaml"
    return (
        f"no API key for {point.base_url}: set {point.key_vars[0]} (or ZEN_API_KEY), pass "
        "--api-key, or put api_key in ~/.zen/config.yaml"
    )

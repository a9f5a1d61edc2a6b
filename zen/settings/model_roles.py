"""Model-role resolution: which endpoint, key and model each role (main, orchestrator, coder,
scout) uses, from a validated `Config`.

Provider keys are looked up last, here: an explicit api_key (flag, `ZEN_API_KEY`, a file) wins,
then the provider's own variable (`DEEPSEEK_API_KEY`, ...), which goes only to that provider's
own host (`providers.owns`): a `--base-url` elsewhere (a LAN server, a proxy) gets a key only
when the user names one, and needs none. `OPENAI_API_KEY` goes with `OPENAI_BASE_URL` (the two
come as a pair). A role in `dual_agent` that names its own provider or URL inherits no key, and
a host the project layer changed gets only the key that layer names (`allowed_key`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zen.settings.providers import PROVIDERS, detect, hosted_preset, owns
from zen.settings.schema import (
    DUAL_ROLES,
    Config,
    ConfigError,
    ModelOverride,
    ModelSettings,
    Redirect,
)

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
    """The variables whose key may go to this host unnamed: the preset's, on its own host."""
    defaulted: bool = False
    """Nothing chose it: OpenAI because no provider or URL is configured anywhere."""


class MissingKey(ConfigError):
    """A hosted provider's host and no key for it. `defaulted`: nothing chose that host (the
    front-ends then look for a model server on this machine)."""

    def __init__(self, message: str, defaulted: bool = False) -> None:
        super().__init__(message)
        self.defaulted = defaulted


def _override(config: Config, role: str | None) -> ModelOverride:
    over = getattr(config.dual_agent, role) if role in DUAL_ROLES else None
    return over or ModelOverride()


def _role_key(role: str | None) -> str:
    return role if role in DUAL_ROLES else "main"


def has_own_key(config: Config, role: str | None) -> bool:
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
    paired = defaulted = False
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
            base_url, defaulted = PROVIDERS["openai"].base_url, preset is None
    habits = preset or detect(base_url)
    key_vars = [habits.key_env] if owns(habits, base_url) else []
    if paired and "OPENAI_API_KEY" not in key_vars:
        key_vars.append("OPENAI_API_KEY")
    return Endpoint(base_url, habits, own, tuple(key_vars), defaulted)


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


def resolve_model(
    config: Config, role: str | None = None, *, keyless: bool = False
) -> ModelSettings:
    """The endpoint, key and model for `role` ("orchestrator", "coder" and "scout" take their
    `dual_agent` overrides; anything else gets the top level). `keyless`: a missing key is no
    error, the settings come without one (`zen doctor` still checks the endpoint and model).

    A role that names another provider or base_url talks to another endpoint, so it inherits
    none of provider, base_url and api_key: it gets its own, or its provider's."""
    over = _override(config, role)
    point = endpoint(config, role)
    api_key, key_source = _key_for(config, role, over, point, keyless)
    model, default_model = _model_for(config, role, over, point)
    return ModelSettings(
        key_source=key_source,
        model_source=_model_source(config, role, over, default_model, point),
        url_source=_url_source(config, role, point),
        provider=point.habits.name,
        model=model,
        default_model=default_model,
        stream_tools=_stream_tools_for(config, over, point),
        base_url=point.base_url,
        api_key=api_key,
        temperature=over.temperature if over.temperature is not None else config.temperature,
        max_tokens=over.max_tokens if over.max_tokens is not None else config.max_tokens,
        context_window=over.context_window or config.context_window,
        tool_protocol=over.tool_protocol or config.tool_protocol,
    )


def _key_for(
    config: Config, role: str | None, over: ModelOverride, point: Endpoint, keyless: bool
) -> tuple[str | None, str]:
    """The key `role` may send to its endpoint (`allowed_key`), and where it came from for
    `/model` ("" without a key). No key for a hosted provider's host is an error saying where
    to put one; any other host gets none unless one is named, and a 401 says how."""
    named = over.api_key if point.own else (over.api_key or config.api_key)
    redirect = config._redirected.get(_role_key(role))
    fallbacks = [config._env.get(var) for var in point.key_vars]
    api_key = allowed_key(named, fallbacks, redirect)
    if api_key is None and hosted_preset(point.base_url) is not None and not keyless:
        raise MissingKey(_no_key(point, role, redirect), point.defaulted and redirect is None)
    if not api_key:
        return api_key, ""
    if redirect is not None:
        return api_key, redirect.key_source
    if named:
        loc = ("dual_agent", _role_key(role), "api_key") if over.api_key else ("api_key",)
        return api_key, config._sources.get(loc, "the configuration")
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


def _source(config: Config, role: str | None, key: str, own: bool) -> str | None:
    """Where `key` came from: the role's `dual_agent` entry when it has its own, else the top."""
    loc = ("dual_agent", _role_key(role), key) if own else (key,)
    return config._sources.get(loc)


def _model_source(
    config: Config, role: str | None, over: ModelOverride, default: bool, point: Endpoint
) -> str:
    """For `zen config`: the flag, variable or file and key that set the model."""
    if default:
        return f"provider {point.habits.name}'s default (no model is set)"
    found = _source(config, role, "model", bool(over.model))
    return found or "the configuration"


def _url_source(config: Config, role: str | None, point: Endpoint) -> str:
    """For `zen config`: what chose the base URL (as `endpoint` picks it)."""
    over = _override(config, role)
    own = point.own
    url, provider = (over.base_url, over.provider) if own else (config.base_url, config.provider)
    if url:
        return _source(config, role, "base_url", own) or "the configuration"
    chosen = _source(config, role, "provider", own) or "the configuration"
    preset = f"provider {provider}'s URL (provider from {chosen})"
    if provider and provider != "openai":
        return preset
    if config._env.get("OPENAI_BASE_URL"):
        return "environment OPENAI_BASE_URL"
    return preset if provider else "the default: no provider, base_url or OPENAI_BASE_URL is set"


def _stream_tools_for(config: Config, over: ModelOverride, point: Endpoint) -> bool | None:
    """What the role or the top level (for a role on the same endpoint) says; None: what the
    server is decides (`zen/llm/served.applied`)."""
    if over.stream_tools is not None:
        return over.stream_tools
    return None if point.own else config.stream_tools


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

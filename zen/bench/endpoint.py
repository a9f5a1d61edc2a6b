"""The endpoint a bench measures: the user's config resolved once, handed to each child run.

The config is loaded the normal way from where `zen bench` was started (files, environment,
the model flags), each role resolved to its provider, model, URL and sampling, adapted once to
what the server serves (the endpoint lookup, so every run names the same model), and written
as the child's own `~/.zen/config.yaml` in a temporary home. Keys never touch the disk: the file
says `api_key: ${ZEN_BENCH_KEY_<ROLE>}` and the child's environment holds the value.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from zen.base.paths import expand_user
from zen.llm.served import Served, applied
from zen.settings.loading import load_config
from zen.settings.model_roles import resolve_model
from zen.settings.profiles import Profile
from zen.settings.providers import PROVIDERS
from zen.settings.sandbox_options import SandboxMode, SandboxOptions
from zen.settings.schema import DUAL_ROLES, Config, ModelSettings

KEPT = (
    "compact_at", "retries", "connect_timeout", "first_byte_timeout", "idle_timeout",
    "timeout", "max_turns", "coder_max_turns", "parallel_agents_max", "max_tool_output",
    "repeat_limit", "loop_limit", "sandbox",
)  # fmt: skip
"""Top-level settings a child keeps from the user's config (besides models and prices)."""
DROPPED_ENV = ("ZEN_", "OPENAI_", *(p.key_env for p in PROVIDERS.values() if p.key_env))


@dataclass
class Endpoint:
    """What every child run gets: its config file's text, the keys' variables, the header."""

    config_yaml: str
    keys: dict[str, str] = field(default_factory=dict)
    header: dict[str, Any] = field(default_factory=dict)
    sandbox: SandboxMode = "auto"
    sandbox_options: SandboxOptions = field(default_factory=SandboxOptions)
    """The user's sandbox, which each task's check runs in too (`verify.check_sandbox`)."""


def resolve(start: Path, overrides: dict[str, Any], dual: bool) -> Endpoint:
    """The user's endpoint as `zen -p` in `start` would use it. ConfigError when unusable."""
    return build(*roles_for(start, overrides, dual))


def roles_for(
    start: Path, overrides: dict[str, Any], dual: bool
) -> tuple[Config, dict[str, ModelSettings]]:
    """The config `zen -p` in `start` would load, and each measured role's settings."""
    from zen.settings import trust

    config = load_config(start, overrides, trusted=trust.check(start).trusted)
    roles = ["main", *(DUAL_ROLES if dual else ())]
    return config, {role: resolve_model(config, None if role == "main" else role) for role in roles}


def build(config: Config, settings: dict[str, ModelSettings]) -> Endpoint:
    """What every child run gets, from the resolved (and served-adapted) settings."""
    roles = list(settings)
    keys = {f"ZEN_BENCH_KEY_{role.upper()}": s.api_key for role, s in settings.items() if s.api_key}
    data: dict[str, Any] = _entry("main", settings["main"])
    data["dual_agent"] = {role: _entry(role, settings[role]) for role in roles[1:]}
    data["pricing"] = {k: v.model_dump(exclude_none=True) for k, v in config.pricing.items()}
    data["features"] = config.features.model_dump()
    data.update({key: getattr(config, key) for key in KEPT})
    data["sandbox_options"] = _sandbox_options(config)
    return Endpoint(
        config_yaml=yaml.safe_dump(_escaped(data), sort_keys=False),
        keys=keys,
        header=_header(config, settings),
        sandbox=config.sandbox,
        sandbox_options=config.sandbox_options,
    )


def served_to(
    settings: dict[str, ModelSettings], served: Served | None, own: list[Profile]
) -> dict[str, ModelSettings]:
    """Each role on the asked endpoint adapted to what it serves (the one served model for a
    placeholder, llama-cpp-python's stream_tools, what its profile sets), so every child runs
    the same model the same way, and the header says how."""
    if served is None:
        return settings
    return {
        role: applied(s, served, own) if s.base_url == served.base_url else s
        for role, s in settings.items()
    }


def _entry(role: str, s: ModelSettings) -> dict[str, Any]:
    entry: dict[str, Any] = {"provider": s.provider, "model": s.model, "base_url": s.base_url}
    if s.api_key:
        entry["api_key"] = "${ZEN_BENCH_KEY_" + role.upper() + "}"
    if s.stream_tools is not None:
        entry["stream_tools"] = s.stream_tools
    entry["tool_protocol"] = s.tool_protocol
    for key in ("temperature", "max_tokens", "context_window"):
        if getattr(s, key) is not None:
            entry[key] = getattr(s, key)
    return entry


def _escaped(node: Any) -> Any:
    """`$` doubled in every string but the key references: the child's loader expands `$VAR`."""
    if isinstance(node, dict):
        return {k: _escaped(v) for k, v in node.items()}
    if isinstance(node, str) and not node.startswith("${ZEN_BENCH_KEY_"):
        return node.replace("$", "$$")
    return node


def _header(config: Config, settings: dict[str, ModelSettings]) -> dict[str, Any]:
    from datetime import datetime, timezone

    from zen import __version__

    main = settings["main"]
    roles = {
        role: {"model": s.model, "base_url": s.base_url, **_sampling(s)}
        for role, s in settings.items()
    }
    return {
        "model": main.model,
        "provider": main.provider,
        "base_url": main.base_url,
        "zen_version": __version__,
        "sampling": _sampling(main),
        "collaboration": config.collaboration,
        "roles": roles,
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def _sampling(s: ModelSettings) -> dict[str, Any]:
    return {
        "temperature": s.temperature,
        "max_tokens": s.max_tokens,
        "tool_protocol": s.tool_protocol,
    }


def child_env(home: Path, keys: dict[str, str]) -> dict[str, str]:
    """The user's environment without zen's or any provider's settings and keys (the child's
    config says everything), its home the temporary one, its keys the resolved ones."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith(DROPPED_ENV)}
    env.update(HOME=str(home), USERPROFILE=str(home), **keys)
    return env


def probe(settings: ModelSettings, wait: float = 10.0) -> tuple[str, Served | None]:
    """Why the server cannot be used ("" when it answers), and what it serves: asked once,
    before any task, so a server that is down costs one line, not a run of tasks into the
    wall."""
    import asyncio

    from zen.llm.lookup import look_up
    from zen.llm.served import asks_server

    url = settings.base_url
    extras = asks_server(url)
    served = asyncio.run(
        look_up(url, settings.api_key, settings.model, deadline=wait, extras=extras)
    )
    if served.status == 0:
        return f"cannot reach {url} ({served.error}); is the server running?", None
    if served.status in (401, 403):
        return f"{url} refused the API key (HTTP {served.status})", None
    if served.status == 404 and not url.rstrip("/").endswith("/v1"):
        fix = f": {served.v1_url} has one" if served.v1_url else "; most end in /v1"
        return f"no OpenAI API at {url} (GET /models answered 404){fix}", None
    return "", served if extras else None  # it answers; some servers have no /models


def _sandbox_options(config: Config) -> dict[str, Any]:
    """The user's sandbox rules for the child, `~` expanded here: the child's home is another."""
    options = config.sandbox_options.model_dump()
    for key in ("writable", "hidden"):
        options[key] = [str(expand_user(text)) for text in options[key]]
    return options

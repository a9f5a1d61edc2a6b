"""Settings that widen the sandbox belong to the user.

A trusted project's `.zen/config.yaml` may tighten the sandbox (`sandbox: on`, more `hidden`
paths and variables), and may open its network or add writable folders, which the trust
question spells out in plain words. It may not weaken `sandbox` (`on` > `auto` > `off`), drop
the user's own `hidden`, `hidden_env` or `writable` entries (its lists add to the user's), or
hand commands zen's API keys (`bash_inherits_keys`): those are read from the user's own layers
only (`~/.zen/config.yaml`, the environment, the flags), as are `sandbox_options.program`,
`env` and `readable` (`sandbox_options.drop_user_only`, before the layers merge). And since
a network the project opened is not one the user chose, `permissions: {bash: sandboxed}`
then asks (`network_by_project`).
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import ValidationError

from zen.settings.sandbox_options import SandboxOptions
from zen.settings.schema import Config, ConfigError

STRENGTH = {"off": 0, "auto": 1, "on": 2}


def confine_project(
    config: Config, user: Config | None, source: str, dropped: Sequence[str] = ()
) -> None:
    """Undo in `config` (every layer merged) what only the user may set, given `user` (the
    same layers without the project's; None when they do not validate alone: the defaults).
    `dropped`: the project's `sandbox_options` keys already left out (`drop_user_only`).
    ConfigError, naming `source` (the project's file), when the lists together are invalid."""
    mine = user if user is not None else Config()
    refused = list(dropped)
    if STRENGTH[config.sandbox] < STRENGTH[mine.sandbox]:
        refused.append(f"sandbox: {config.sandbox}")
        config.sandbox = mine.sandbox
    if config.bash_inherits_keys and not mine.bash_inherits_keys:
        refused.append("bash_inherits_keys: true")
        config.bash_inherits_keys = False
    theirs, own = config.sandbox_options, mine.sandbox_options
    merged = theirs.model_dump()
    for name, value in merged.items():
        if isinstance(value, list):  # the project's entries add to the user's
            merged[name] = list(dict.fromkeys([*getattr(own, name), *value]))
    try:
        config.sandbox_options = SandboxOptions.model_validate(merged)
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        why = error["ctx"]["error"] if error["type"] == "value_error" else error["msg"]
        raise ConfigError(f"{source}: sandbox_options: {why}") from None
    config._network_by_project = theirs.network == "on" and own.network == "off"
    config._refused = refused


def network_by_project(config: Config) -> bool:
    """The sandbox's network is on because the project's config opened it."""
    return config._network_by_project


def refused(config: Config) -> str:
    """One warning line naming the project settings that were ignored ("" when none)."""
    if not config._refused:
        return ""
    return (
        f"ignored in the project's .zen/config.yaml: {', '.join(config._refused)} (only your "
        "own ~/.zen/config.yaml or a flag can weaken the sandbox or give commands zen's keys)"
    )

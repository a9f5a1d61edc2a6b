"""The sandbox's settings (`sandbox`, `sandbox_options`) and the secrets it hides by default.

Kept apart from `schema.py` because these lists are also what the sandbox enforces: one place
says which home paths and environment variables are secrets. Every path is checked when the
config loads, so a hostile or mistyped entry (relative, with `..`, or opening a secret to
writes) is a one-line config error, never a sandbox that is wider than it says.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from zen.base.paths import expand_user, zen_home

SandboxMode = Literal["auto", "on", "off"]

SECRET_PATHS = (
    "~/.ssh",
    "~/.aws",
    "~/.config/gcloud",
    "~/.zen",
    "~/.netrc",
    "~/.docker",
    "~/.kube",
    "~/.gnupg",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.npmrc",
    "~/.pypirc",
)
"""Home paths no sandboxed command sees (an empty folder or file stands in)."""

SECRET_ENV = (
    "AWS_*",
    "*_TOKEN",
    "*_SECRET",
    "*_SECRET_*",
    "*_KEY",
    "*_API_KEY*",
    "*_PASSWORD",
    "*_CREDENTIALS",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "DBUS_SESSION_BUS_ADDRESS",
    "KUBECONFIG",
)
"""Environment variable names (fnmatch patterns, case-insensitive) a sandboxed command does
not get: credentials, and sockets that reach past the network rule."""


class SandboxOptions(BaseModel):
    """What the sandbox allows besides the workspace and its private temp folder."""

    model_config = ConfigDict(extra="forbid")

    network: Literal["on", "off"] = "off"
    """All or nothing: `on` shares the host's network."""
    writable: list[str] = Field(default_factory=list)
    """Absolute folders (or ~/...) commands may also write."""
    hidden: list[str] = Field(default_factory=list)
    """More secret paths, hidden like SECRET_PATHS."""
    hidden_env: list[str] = Field(default_factory=list)
    """More environment variable patterns, removed like SECRET_ENV."""

    @field_validator("network", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value

    @field_validator("writable", "hidden")
    @classmethod
    def _absolute(cls, paths: list[str]) -> list[str]:
        for text in paths:
            checked_path(text)
        return paths

    @model_validator(mode="after")
    def _no_secret_writable(self) -> SandboxOptions:
        secrets = secret_paths(self.hidden)
        for text in self.writable:
            path = checked_path(text)
            for secret in secrets:
                if _overlaps(path, secret):
                    raise ValueError(f"writable path {text!r} would expose the secret {secret}")
        return self


def checked_path(text: str) -> Path:
    """`text` as an absolute path (`~/` expanded); ValueError if relative or it has `..`."""
    path = expand_user(text)
    if ".." in path.parts:
        raise ValueError(f"sandbox path {text!r} contains '..': write the folder itself")
    if not path.is_absolute():
        raise ValueError(f"sandbox path {text!r} is relative: write an absolute path or ~/...")
    return path


def secret_paths(extra: list[str] | tuple[str, ...] = ()) -> list[Path]:
    """Every hidden path: the defaults, ~/.zen wherever it is, and the configured ones."""
    paths = [expand_user(text) for text in (*SECRET_PATHS, *extra)]
    home = zen_home()
    if home not in paths:
        paths.append(home)
    return paths


def _overlaps(a: Path, b: Path) -> bool:
    a, b = Path(os.path.normpath(a)), Path(os.path.normpath(b))
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)

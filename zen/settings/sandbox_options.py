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

from zen.base.paths import expand_user, user_home, zen_home

SandboxMode = Literal["auto", "on", "off"]

SECRET_PATHS = (
    # keys and tokens
    "~/.ssh",
    "~/.aws",
    "~/.azure",
    "~/.config/gcloud",
    "~/.oci",
    "~/.kube",
    "~/.docker",
    "~/.config/containers/auth.json",
    "~/.gnupg",
    "~/.password-store",
    "~/.local/share/keyrings",
    "~/.vault-token",
    "~/.terraform.d/credentials.tfrc.json",
    "~/.terraformrc",
    "~/.config/op",
    "~/.config/doctl",
    "~/.databrickscfg",
    "~/.kaggle",
    "~/.s3cfg",
    "~/.boto",
    "~/.config/rclone",
    # package registries and forges
    "~/.netrc",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.config/hub",
    "~/.config/glab-cli",
    "~/.npmrc",
    "~/.yarnrc.yml",
    "~/.pypirc",
    "~/.cargo/credentials",
    "~/.cargo/credentials.toml",
    "~/.gem/credentials",
    "~/.m2/settings.xml",
    "~/.gradle/gradle.properties",
    "~/.composer/auth.json",
    "~/.config/composer/auth.json",
    "~/.nuget/NuGet/NuGet.Config",
    # databases
    "~/.pgpass",
    "~/.my.cnf",
    # AI tools
    "~/.zen",
    "~/.claude/.credentials.json",
    "~/.cache/huggingface/token",
    "~/.huggingface/token",
    "~/.config/configstore",
    # histories (keys typed at a prompt)
    "~/.bash_history",
    "~/.zsh_history",
    "~/.zhistory",
    "~/.histfile",
    "~/.local/share/fish/fish_history",
    "~/.python_history",
    "~/.node_repl_history",
    "~/.psql_history",
    "~/.mysql_history",
    "~/.sqlite_history",
    # browsers and mail (cookies, sessions)
    "~/.mozilla",
    "~/.thunderbird",
    "~/.config/google-chrome",
    "~/.config/chromium",
)
"""Home paths no sandboxed command sees. Home itself is already a fresh, empty folder in the
sandbox; this list matters where a piece of it is shown: home used as the workspace, a
`writable` or `readable` folder, a toolchain bound back. A folder reads as an empty one, a
file as an empty file."""

SECRET_ENV = (
    "AWS_*",
    "*_TOKEN",
    "*_TOKEN_*",
    "*_SECRET",
    "*_SECRET_*",
    "*_KEY",
    "*_API_KEY*",
    "*APIKEY*",
    "*PASSWORD*",
    "*PASSWD*",
    "*_PWD",
    "*_PAT",
    "*_DSN",
    "*_CREDENTIALS",
    "*_PROXY",
    "SSH_AUTH_SOCK",
    "GPG_AGENT_INFO",
    "DOCKER_HOST",
    "DBUS_SESSION_BUS_ADDRESS",
    "KUBECONFIG",
)
"""Names (fnmatch patterns, case-insensitive) that never pass by a pattern: credentials, and
sockets that reach past the network rule. Only the allow-list below and the user's own
`sandbox_options.env` pass at all; a pattern there (`CORP_*`) still drops these, an exact name
(`NPM_TOKEN`) passes."""

PASSED_ENV = (
    "PATH",
    "HOME",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "TERM",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
    # toolchains: where they live and which version is selected
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "CONDA_EXE",
    "CONDA_SHLVL",
    "CONDA_PYTHON_EXE",
    "PIPX_HOME",
    "PIPX_BIN_DIR",
    "NVM_DIR",
    "NVM_BIN",
    "NVM_INC",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_HOME",
    "GOPATH",
    "GOROOT",
    "JAVA_HOME",
)
"""The environment a sandboxed command gets, besides TMPDIR and ZEN_RUN (zen's own) and what
`sandbox_options.env` adds. Everything else, proxies included (their URLs often carry a
password), stays outside."""

TOOLCHAINS = (
    "~/.pyenv",
    "~/.nvm",
    "~/.rustup",
    "~/.cargo/bin",
    "~/.local/pipx",
    "~/.local/share/pipx",
    "~/miniconda3",
    "~/anaconda3",
    "~/miniforge3",
    "~/mambaforge",
    "~/.conda",
    "~/.gitconfig",
    "~/.config/git",
)
"""Places under home bound back read-only into the sandbox's fresh home where they exist
(with every PATH entry under home, zen's own Python and `sandbox_options.readable`)."""


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
    """More environment variable patterns that never pass (even those `env` names)."""
    env: list[str] = Field(default_factory=list)
    """More variables (names or patterns) passed into the sandbox. Yours only."""
    readable: list[str] = Field(default_factory=list)
    """Folders under home shown read-only in the sandbox's fresh home. Yours only."""
    program: str | None = None
    """bwrap (or sandbox-exec) to use when it is not in a system folder: an absolute path owned
    by root in folders only root can write. Yours only."""

    @field_validator("network", mode="before")
    @classmethod
    def _bool_is_on_off(cls, value: Any) -> Any:
        return ("on" if value else "off") if isinstance(value, bool) else value

    @field_validator("writable", "hidden", "readable")
    @classmethod
    def _absolute(cls, paths: list[str]) -> list[str]:
        for text in paths:
            checked_path(text)
        return paths

    @field_validator("program")
    @classmethod
    def _absolute_program(cls, text: str | None) -> str | None:
        if text is not None:
            checked_path(text)
        return text

    @model_validator(mode="after")
    def _no_secret_writable(self) -> SandboxOptions:
        """A `writable` folder may hold secrets (they stay hidden under it), but may not be a
        secret, lie inside one, or hold a home (every secret under it would be writable)."""
        secrets = secret_paths(self.hidden)
        home = user_home() or Path("/nonexistent")
        for text in self.writable:
            path = Path(os.path.normpath(checked_path(text)))
            if home.is_relative_to(path):
                raise ValueError(f"writable path {text!r} would expose the secrets of your home")
            for secret in secrets:
                if path == secret or path.is_relative_to(secret):
                    raise ValueError(f"writable path {text!r} would expose the secret {secret}")
        for text in self.readable:
            path = Path(os.path.normpath(checked_path(text)))
            for secret in secrets:
                if path == secret or path.is_relative_to(secret):
                    raise ValueError(f"readable path {text!r} would expose the secret {secret}")
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


USER_ONLY = ("program", "env", "readable")
"""`sandbox_options` keys a project's config may not set: each widens what a command sees
or picks the program that enforces the sandbox."""


def drop_user_only(data: Any) -> list[str]:
    """Remove USER_ONLY keys from a project layer's data; the names removed."""
    options = data.get("sandbox_options") if isinstance(data, dict) else None
    if not isinstance(options, dict):
        return []
    return [f"sandbox_options.{key}" for key in USER_ONLY if options.pop(key, None) is not None]

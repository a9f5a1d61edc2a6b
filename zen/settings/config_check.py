"""Configs already checked: the shell draws its prompt without pydantic when nothing changed.

Validating the config costs more than the rest of the shell's start-up together (pydantic and
zen's schema, ~0.1 s), yet a broken config must be reported before a prompt is shown. The
check is deterministic: the same zen code, files, environment and flags give the same answer.
So once a set of inputs has passed every start-up check (`load_config`, the work mode, each
role's key), its digest is recorded in `~/.zen/cache/checked-configs` (0600) with the few
values the prompt shows (mode, model). The next start that hashes to the same digest shows
its prompt at once and validates again in the background; anything that differs (a file
byte, a variable, a flag, an upgraded zen) takes the full check before the prompt.

The digest covers the inputs, API keys among them, through BLAKE2b: the file holds no value
that could be read back, and it is private to the user like the rest of `~/.zen`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from zen import __version__
from zen.base.paths import private_dir, user_home, zen_home

KEEP = 32
"""Digests remembered (workspaces × flag sets); the oldest goes first."""
READ_LIMIT = 1024 * 1024
"""Config files larger than this are never fast: `load_config` refuses them with a message."""
NAME = "checked-configs"
_VAR = re.compile(rb"\$\{?([A-Za-z_]\w*)")
_CODE = (
    "settings/schema.py",
    "settings/permissions.py",
    "settings/sandbox_options.py",
    "settings/layers.py",
    "settings/loading.py",
    "settings/model_roles.py",
    "settings/providers.py",
    "settings/config_check.py",
    "agent/work_modes.py",
)
"""zen's own files whose change can change the answer (with the version, default.yaml and the
folder of tool descriptions, whose names are the tools `permissions` may name)."""


def store_path() -> Path:
    return zen_home() / "cache" / NAME


def digest(
    workspace: Path,
    cli: dict[str, Any],
    *,
    trusted: bool,
    env: dict[str, str] | os._Environ[str] | None = None,
) -> str | None:
    """The digest of everything the config check reads; None when an input cannot be read
    (the full check then says why)."""
    from hashlib import blake2b

    from zen.settings.prompts import data_dir

    home = user_home(env)  # as load_config finds it
    env = os.environ if env is None else env
    h = blake2b(digest_size=20)

    def add(*parts: object) -> None:
        for part in parts:
            data = part if isinstance(part, bytes) else repr(part).encode("utf-8", "replace")
            h.update(len(data).to_bytes(8, "little") + data)

    add(__version__, trusted, sorted((k, repr(v)) for k, v in cli.items() if v is not None))
    package = Path(__file__).parent.parent
    try:
        data = [data_dir("config") / "default.yaml", data_dir("prompts") / "tools"]
        for path in [package / name for name in _CODE] + data:
            info = path.stat()
            add(str(path), info.st_mtime_ns, info.st_size)
    except OSError:
        return None
    files = [home / ".zen" / "config.yaml"] if home else []
    if trusted:
        files.append(Path(workspace) / ".zen" / "config.yaml")
    referenced: set[str] = set()
    for path in files:
        try:
            with open(path, "rb") as f:
                raw = f.read(READ_LIMIT + 1)
        except (FileNotFoundError, NotADirectoryError):
            raw = b"<absent>"
        except OSError:
            return None
        if len(raw) > READ_LIMIT:
            return None
        add(str(path), raw)
        referenced.update(name.decode() for name in _VAR.findall(raw))
    names = {"HOME", "USERPROFILE", "OPENAI_BASE_URL", *referenced}
    names.update(k for k in env if k.startswith("ZEN_") or k.endswith("_API_KEY"))
    add(sorted((name, env.get(name)) for name in names))
    return h.hexdigest()


def known(key: str | None) -> dict[str, str] | None:
    """What was recorded for `key` when its inputs passed the full check, or None."""
    if key is None:
        return None
    entry = _load().get(key)
    return entry if isinstance(entry, dict) else None


def remember(key: str | None, summary: dict[str, str]) -> None:
    """Record that `key`'s inputs passed; a store that cannot be written is only slower."""
    if key is None:
        return
    entries = _load()
    entries.pop(key, None)
    entries[key] = summary
    kept = dict(list(entries.items())[-KEEP:])
    path = store_path()
    try:
        private_dir(path.parent)
        temp = path.with_name(f".{NAME}.{os.getpid()}.tmp")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(temp, flags, 0o600), "w", encoding="utf-8") as f:
            json.dump(kept, f)
        os.replace(temp, path)
    except OSError:
        pass


def _load() -> dict[str, Any]:
    try:
        with open(store_path(), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}

"""Folder trust: a repository's own settings are loaded only once the user has trusted them.

A cloned repository can carry files that make zen run programs or send data elsewhere:
`.zen/config.yaml` (base_url, permissions, allowed_roots, prompts, MCP servers), `.mcp.json`
(server commands, headers with `${VAR}`), `.claude/settings.json` hooks and the project's
`.zen/hooks|skills|commands` folders. zen loads them only for a workspace recorded in
`~/.zen/trusted.yaml`, and the record holds a hash of exactly those files: when one changes
(a `git pull` adding a server or a hook), the workspace is untrusted again until the user
says otherwise.

`trust_describe.describe()` says in plain words what the inputs would do, reading them as
data (YAML and JSON parsed, nothing expanded or run), for the shell's question and `zen trust`.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.base.bom import decode_text
from zen.base.paths import expand_user, private_dir, zen_home

CONFIG = ".zen/config.yaml"
MCP_JSON = ".mcp.json"
CLAUDE_SETTINGS = ".claude/settings.json"
FOLDERS = (".zen/hooks", ".zen/skills", ".zen/commands", ".claude/skills", ".claude/commands")
INPUTS = (CONFIG, MCP_JSON, CLAUDE_SETTINGS, *FOLDERS)
"""Every project file that can run code or change where data goes, in hashing order."""

STORE = "trusted.yaml"
HASH_LIMIT = 16 * 1024 * 1024
"""Bytes read per file to describe it: enough for any config, bounded for a hostile one."""
FILE_LIMIT = 20_000
BYTE_LIMIT = 64 * 1024 * 1024
"""What the fingerprint reads at most, all inputs together (~0.3 s): every byte of every file
it guards, or, past either limit, nothing is trusted: zen asks again each time."""
TOO_LARGE = "too-large:"
"""A fingerprint that starts so was not read in full and never matches a recorded one."""


@dataclass(frozen=True)
class TrustState:
    """What a workspace holds and whether the user trusts exactly that."""

    workspace: Path
    inputs: list[str]
    """The project inputs present (relative names), empty when there is nothing to trust."""
    fingerprint: str
    recorded: str | None
    """The fingerprint the user trusted, None when never trusted."""

    @property
    def trusted(self) -> bool:
        if not self.inputs:
            return True
        return self.recorded == self.fingerprint and not self.too_large

    @property
    def too_large(self) -> bool:
        return self.fingerprint.startswith(TOO_LARGE)

    def why_not(self) -> str:
        """Why the inputs are not trusted, in words."""
        if self.too_large:
            return f"{self.fingerprint[len(TOO_LARGE) :]}, so zen asks every time"
        if self.changed:
            return "they changed since you trusted this folder"
        return "this folder is not trusted"

    @property
    def changed(self) -> bool:
        """Trusted once, but the inputs are no longer what was trusted."""
        return self.recorded is not None and self.recorded != self.fingerprint


def store_path() -> Path:
    return zen_home() / STORE


def check(workspace: Path) -> TrustState:
    """The workspace's inputs, their hash, and the hash the user trusted (if any)."""
    root = workspace.resolve()
    inputs = present_inputs(root)
    recorded = load_store().get(str(root), {}).get("inputs") if inputs else None
    return TrustState(root, inputs, fingerprint(root), recorded)


def _names(root: Path) -> tuple[str, ...]:
    """INPUTS, without `.zen/...` when the workspace is the home folder: there `.zen/` is the
    user's own (`~/.zen/config.yaml` is the user layer), not a repository's."""
    try:
        own = (root / ".zen").resolve() == zen_home().resolve()
    except OSError:
        own = False
    return tuple(n for n in INPUTS if not n.startswith(".zen/")) if own else INPUTS


def present_inputs(root: Path) -> list[str]:
    """The inputs that exist. `.claude/settings.json` counts only when it can hold hooks
    (zen reads nothing else from it); an unreadable one counts, failing closed."""
    found = []
    for name in _names(root):
        path = root / name
        if not os.path.lexists(path):
            continue
        if name == CLAUDE_SETTINGS:
            data = read_json(path)
            if isinstance(data, dict) and "hooks" not in data:
                continue
        found.append(name)
    return found


def fingerprint(root: Path) -> str:
    """sha256 over the names and every byte of every input (folders walked in sorted order);
    `TOO_LARGE` + why when they hold more than FILE_LIMIT files or BYTE_LIMIT bytes."""
    digest = hashlib.sha256()
    budget = [FILE_LIMIT, BYTE_LIMIT]
    for name in _names(root):
        path = root / name
        if not os.path.lexists(path):
            continue
        for file in _files(path):
            budget[0] -= 1
            if budget[0] < 0 or not _feed(digest, root, file, budget):
                return f"{TOO_LARGE}{name} is too large to fingerprint ({_LIMITS})"
    return "sha256:" + digest.hexdigest()


_LIMITS = f"over {FILE_LIMIT:,} files or {BYTE_LIMIT // 2**20} MB"


def _files(path: Path) -> Iterator[Path]:
    """`path` itself, or the files under a real folder (links not followed, but named)."""
    if path.is_symlink() or not path.is_dir():
        yield path
        return
    for top, dirs, names in os.walk(path):
        dirs.sort()
        linked = [d for d in dirs if os.path.islink(os.path.join(top, d))]
        yield from (Path(top) / name for name in [*sorted(names), *linked])


def _feed(digest: Any, root: Path, file: Path, budget: list[int]) -> bool:
    """Hash `file`'s name and bytes; False when they exceed what is left of the budget."""
    digest.update(file.relative_to(root).as_posix().encode("utf-8", "replace") + b"\0")
    try:
        if file.is_symlink():
            digest.update(b"link:" + os.fsencode(os.readlink(file)) + b"\0")
        if not file.is_file():  # a FIFO or device must not block the hash
            digest.update(b"<not a regular file>\0")
            return True
        with file.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                budget[1] -= len(chunk)
                if budget[1] < 0:
                    return False
                digest.update(chunk)
    except OSError as exc:
        digest.update(f"<unreadable: {exc.strerror}>".encode())
    digest.update(b"\0")
    return True


MISSING: Any = object()
"""A trust input that is not there (unlike one that is empty or unreadable)."""


def read_json(path: Path) -> Any:
    """A JSON input as data; MISSING, or "unreadable" for what does not parse."""
    if not os.path.lexists(path):
        return MISSING
    try:
        return json.loads(decode_text(_bytes(path), "replace"))
    except ValueError:
        return "unreadable"


def _bytes(path: Path) -> bytes:
    prefix = b""
    try:
        if path.is_symlink():
            prefix = b"link:" + os.fsencode(os.readlink(path)) + b"\0"
        if not path.is_file():  # a FIFO or device must not block the hash
            return prefix + b"<not a regular file>"
        with path.open("rb") as handle:
            return prefix + handle.read(HASH_LIMIT)
    except OSError as exc:
        return prefix + f"<unreadable: {exc.strerror}>".encode()


# -- the store ----------------------------------------------------------------------------------


def load_store() -> dict[str, dict[str, Any]]:
    """`~/.zen/trusted.yaml` as {resolved path: {inputs, trusted}}; empty when absent or bad."""
    import yaml

    try:
        data = yaml.safe_load(store_path().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def save_store(entries: dict[str, dict[str, Any]]) -> None:
    """Write the store atomically as a 0600 file in a 0700 folder."""
    import yaml

    path = store_path()
    private_dir(path.parent)
    text = "# Folders whose project settings zen loads (zen trust, zen trust --remove).\n"
    text += yaml.safe_dump(entries, sort_keys=True, allow_unicode=True)
    temp = path.with_name(f".{STORE}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(temp, flags, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise


def trust(state: TrustState) -> None:
    """Record the workspace with the fingerprint of the inputs the user saw."""
    entries = load_store()
    entries[str(state.workspace)] = {
        "inputs": state.fingerprint,
        "trusted": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    save_store(entries)


def forget(workspace: Path) -> bool:
    """Remove a workspace's entry (by resolved path, or as written); False when absent."""
    entries = load_store()
    keys = dict.fromkeys((str(expand_user(workspace).resolve()), str(workspace)))
    found = [key for key in keys if key in entries]
    for key in found:
        del entries[key]
    if found:
        save_store(entries)
    return bool(found)


@dataclass
class Summary:
    """For `zen trust --list`."""

    path: str
    trusted: str
    state: str = field(default="")


def listing() -> list[Summary]:
    out = []
    for path, entry in sorted(load_store().items()):
        root = Path(path)
        if not root.is_dir():
            state = "folder gone"
        elif (mark := fingerprint(root)).startswith(TOO_LARGE):
            state = "too large to fingerprint (zen asks every time)"
        elif mark == entry.get("inputs"):
            state = "trusted"
        else:
            state = "changed since (zen will ask again)"
        out.append(Summary(path, str(entry.get("trusted", "")), state))
    return out

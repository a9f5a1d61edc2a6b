"""Folder trust: a repository's own settings are loaded only once the user has trusted them.

A cloned repository can carry files that make zen run programs or send data elsewhere:
`.zen/config.yaml` (base_url, permissions, allowed_roots, prompts, MCP servers), `.mcp.json`
(server commands, headers with `${VAR}`), `.claude/settings.json` hooks and the project's
`.zen/hooks|skills|commands` folders. zen loads them only for a workspace recorded in
`~/.zen/trusted.yaml`, and the record holds a hash of exactly those files: when one changes
(a `git pull` adding a server or a hook), the workspace is untrusted again until the user
says otherwise.

`describe()` says in plain words what the inputs would do, reading them as data only (YAML
and JSON parsed, nothing expanded or run), for the shell's question and `zen trust`.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from zen.base import env_vars
from zen.base.bom import decode_text
from zen.base.paths import expand_user, private_dir, zen_home
from zen.base.text import clip

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
            data = _json(path)
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


# -- what the inputs would do -------------------------------------------------------------------


def describe(root: Path) -> list[str]:
    """One plain line per thing the inputs would do, in the order a user cares about."""
    lines: list[str] = []
    variables: set[str] = set()
    names = _names(root)
    config = _yaml(root / CONFIG) if CONFIG in names else _MISSING
    if config is not _MISSING:
        lines += _describe_config(config)
        variables |= _variables(config)
    mcp = _json(root / MCP_JSON)
    if mcp is not _MISSING:
        servers = mcp.get("mcpServers") if isinstance(mcp, dict) else None
        if isinstance(servers, dict):
            lines += [_server_line(MCP_JSON, name, spec) for name, spec in servers.items()]
        else:
            lines.append(f"{MCP_JSON}: not a list of MCP servers zen can read")
        variables |= _variables(mcp)
    claude = _json(root / CLAUDE_SETTINGS)
    if claude is not _MISSING and CLAUDE_SETTINGS in present_inputs(root):
        hooks = claude.get("hooks") if isinstance(claude, dict) else None
        lines += _hook_lines(CLAUDE_SETTINGS, hooks)
        variables |= _variables(claude)
    for folder in FOLDERS:
        path = root / folder
        if folder in names and path.is_dir():
            count = sum(1 for _ in islice(_files(path), FILE_LIMIT + 1))
            what = {
                "hooks": "hooks that run commands",
                "skills": "skills (instructions and scripts)",
                "commands": "custom commands",
            }[folder.rsplit("/", 1)[1]]
            lines.append(f"{folder}/: {count} file{'' if count == 1 else 's'} of {what}")
    if variables:
        lines.append("reads these environment variables: " + ", ".join(sorted(variables)))
    mark = fingerprint(root)
    if mark.startswith(TOO_LARGE):
        lines.append(f"{mark[len(TOO_LARGE) :]}: zen will ask again every time")
    shown = [_plain(line) for line in lines]
    if any(len(_plain(line, limit=sys.maxsize)) > _LINE for line in lines):
        shown.append(f"(lines cut at {_LINE} characters: read the files before trusting them)")
    return shown


_MISSING: Any = object()


def _yaml(path: Path) -> Any:
    import yaml

    if not os.path.lexists(path):
        return _MISSING
    try:
        return yaml.safe_load(decode_text(_bytes(path), "replace")) or {}
    except yaml.YAMLError:
        return "unreadable"


def _json(path: Path) -> Any:
    if not os.path.lexists(path):
        return _MISSING
    try:
        return json.loads(decode_text(_bytes(path), "replace"))
    except ValueError:
        return "unreadable"


def _describe_config(data: Any) -> list[str]:
    src = CONFIG
    if not isinstance(data, dict):
        return [f"{src}: settings zen cannot read (it would refuse to start)"]
    lines = []
    if data.get("base_url"):
        lines.append(f"{src}: sends your prompts and code to {data['base_url']} (base_url)")
    if data.get("provider"):
        lines.append(f"{src}: uses the provider {data['provider']} (its host gets your prompts)")
    if data.get("api_key"):
        lines.append(f"{src}: sets the API key to {_show_secret(str(data['api_key']))}")
    roles = data.get("dual_agent")
    for role, over in roles.items() if isinstance(roles, dict) else []:
        if isinstance(over, dict) and (over.get("base_url") or over.get("provider")):
            where = over.get("base_url") or f"the provider {over.get('provider')}"
            lines.append(f"{src}: the {role} talks to {where}")
    perms = data.get("permissions")
    for tool, level in perms.items() if isinstance(perms, dict) else []:
        meaning = {
            "auto": "runs without asking",
            "deny": "is refused",
            "confirm": "asks first",
        }.get(str(level), "")
        lines.append(
            f"{src}: permission {tool}: {level}" + (f" ({tool} {meaning})" if meaning else "")
        )
    roots = data.get("allowed_roots")
    if isinstance(roots, list) and roots:
        lines.append(f"{src}: file tools may also read and write {', '.join(map(str, roots))}")
    prompts = data.get("prompts")
    if isinstance(prompts, list) and prompts:
        lines.append(f"{src}: adds to the system prompt the files {', '.join(map(str, prompts))}")
    servers = data.get("mcp_servers")
    for name, spec in servers.items() if isinstance(servers, dict) else []:
        lines.append(_server_line(src, name, spec))
    if data.get("hooks"):
        lines += _hook_lines(src, data["hooks"])
    known = {
        "base_url",
        "provider",
        "api_key",
        "dual_agent",
        "permissions",
        "allowed_roots",
        "prompts",
        "mcp_servers",
        "hooks",
    }
    other = [str(key) for key in data if key not in known]
    if other:
        lines.append(f"{src}: also sets {', '.join(other)}")
    return lines


def _server_line(src: str, name: Any, spec: Any) -> str:
    if not isinstance(spec, dict):
        return f"{src}: MCP server {name}: an entry zen cannot read"
    if spec.get("command"):
        args: list[Any] = spec["args"] if isinstance(spec.get("args"), list) else []
        command = " ".join(str(part) for part in [spec["command"], *args])
        text = f"{src}: starts MCP server {name}: runs `{command}`"
    else:
        text = f"{src}: connects MCP server {name} to {spec.get('url')}"
    extras = []
    for key, label in (("env", "environment"), ("headers", "headers")):
        value = spec.get(key)
        if isinstance(value, dict) and value:
            extras.append(f"{label} {', '.join(map(str, value))}")
    for key in ("autoApprove", "alwaysAllow"):
        if spec.get(key):
            extras.append(f"{key} {spec[key]}")
    if spec.get("envFile"):
        extras.append(f"envFile {spec['envFile']}")
    if spec.get("cwd"):
        extras.append(f"in {spec['cwd']}")
    return text + (f" ({'; '.join(extras)})" if extras else "")


def _hook_lines(src: str, hooks: Any) -> list[str]:
    """One line per command the hooks would run, with its event and matcher: trusting a
    folder must show every command it would run, whichever file names it."""
    lines: list[str] = []

    def walk(node: Any, event: str, matcher: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("matcher"), str) and node["matcher"] not in ("", "*"):
                matcher = node["matcher"]
            if isinstance(node.get("command"), str):
                when = f"{event}, tools matching {matcher}" if matcher else event
                lines.append(f"{src}: hook runs `{node['command']}` ({when})")
            for key, value in node.items():
                walk(value, event or str(key), matcher)
        elif isinstance(node, list):
            for value in node:
                walk(value, event, matcher)

    walk(hooks, "", "")
    return lines or [f"{src}: hooks zen cannot read"]


def _variables(node: Any) -> set[str]:
    if isinstance(node, str):
        return env_vars.names(node)
    if isinstance(node, dict):
        return set().union(*(_variables(v) for v in node.values()), set())
    if isinstance(node, list):
        return set().union(*(_variables(v) for v in node), set())
    return set()


def _show_secret(value: str) -> str:
    return value if env_vars.is_reference(value.strip()) else "a literal key (hidden)"


_LINE = 300
"""Characters of one line of `describe`; a longer one is cut, and the cut is said."""


def _plain(text: str, limit: int = _LINE) -> str:
    """Repository text on one terminal line: escape sequences, controls, C1 and bidi characters
    as placeholders (`terminal_safe`), then anything else unprintable (zero-width, line
    breaks) as `?`: what the user trusts is what they see."""
    from zen.base.terminal_safe import terminal_safe

    text = "".join(ch if ch.isprintable() else "?" for ch in terminal_safe(text))
    return clip(text, limit)


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

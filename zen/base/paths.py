"""Where zen keeps its own state (`~/.zen`), created private to the user.

One place decides the home directory (`user_home`, i.e. `Path.home()`: HOME on POSIX,
USERPROFILE on Windows, never the other) so config, history, logs, sessions and snapshots
always agree. Everything zen creates there is
0700 (folders) / 0600 (files) whatever the umask: it holds prompts, conversations and file
contents. Modes are set per path; the process umask is never changed, so files zen writes in
the workspace keep their normal modes.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

DIR_MODE = 0o700
FILE_MODE = 0o600

# Paths whose wider permissions were narrowed in this process: front-ends say so once.
tightened: list[Path] = []


def user_home(env: Mapping[str, str] | None = None) -> Path | None:
    """The user's home: `Path.home()` (USERPROFILE on Windows, HOME elsewhere). With `env`
    (the config loader's, tests' environments) the same variable is read from it instead;
    None when it is not set there."""
    if env is None:
        return Path.home()
    value = env.get("USERPROFILE" if os.name == "nt" else "HOME")
    return Path(value) if value else None


def expand_user(path: str | os.PathLike[str]) -> Path:
    """`path` with a leading `~` (alone, or before a separator) as the user's home; `~name`
    and anything else unchanged. zen's one way to expand `~`, so a path the user or model
    writes with it lands where zen's own state is (os.path.expanduser would ask the
    environment again, by rules of its own)."""
    text = os.fspath(path)
    seps = ("~/", "~\\") if os.name == "nt" else ("~/",)
    if text == "~" or text.startswith(seps):
        return Path.home() / text[2:]
    return Path(text)


def directory_arg(given: str | None, flag: str = "-C") -> tuple[Path, str]:
    """The folder a command's DIR argument names (the current one without it) and why it
    cannot be used ("" when it can): every command taking one checks it this one way."""
    path = expand_user(given or ".")
    if path.is_dir():
        return path, ""
    return path, f"{f'{flag} ' if flag else ''}{given}: no such directory"


def zen_home() -> Path:
    """`~/.zen`, not created."""
    return Path.home() / ".zen"


def private_dir(path: Path) -> Path:
    """Create `path` (and missing parents under `~/.zen`) as 0700; narrow an existing one."""
    home = zen_home()
    missing: list[Path] = []
    current = path
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            os.mkdir(folder, DIR_MODE)
        except FileExistsError:
            pass
        _narrow(folder, DIR_MODE)
    if path == home or home in path.parents:
        for folder in [path, *path.parents]:
            if folder == home.parent:
                break
            _narrow(folder, DIR_MODE)
    return path


def private_file(path: Path) -> Path:
    """Make sure `path` exists as a 0600 file (its folder private too) and return it.

    An existing file is only chmod-ed, never opened: closing any descriptor of a file drops
    every POSIX lock this process holds on it, and SQLite's locks on the session database and
    its WAL index are such locks (another process could then reset a WAL index this one has
    mapped: SIGBUS)."""
    private_dir(path.parent)
    if not os.path.lexists(path):
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        try:
            os.close(os.open(path, flags, FILE_MODE))
        except FileExistsError:  # another process made it a moment ago
            pass
    _narrow(path, FILE_MODE)
    return path


def write_private(path: Path, text: str) -> None:
    """Replace `path` with `text` at once (a reader never sees half a file), 0600 in a 0700
    folder, never writing through a symlink. OSError when it cannot."""
    private_dir(path.parent)
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(temp, flags, FILE_MODE), "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(temp, path)


def narrow_file(path: Path) -> None:
    """Make a file the user wrote under `~/.zen` (their config, which may hold keys) private,
    never creating it; front-ends say so once, as for zen's own files."""
    _narrow(path, FILE_MODE)


def _narrow(path: Path, mode: int) -> None:
    """Remove group/other bits from `path` itself (never through a symlink); remember it."""
    if os.name == "nt":
        return
    try:
        st = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.getuid():
        return
    if stat.S_IMODE(st.st_mode) & 0o077:
        os.chmod(path, stat.S_IMODE(st.st_mode) & mode)
        tightened.append(path)

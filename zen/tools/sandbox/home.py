"""What a sandboxed command sees of home: a fresh empty folder, with the tools it needs bound
back read-only, and no secret anywhere it can look.

"Home" is both $HOME and the passwd entry's home: they differ for `zen bench`'s child (a
temporary HOME) and under `sudo -E`, and a secret in either is still the user's. Bound back:
every PATH entry under a home (with its virtual environment when it is one), zen's own Python,
the toolchains in `TOOLCHAINS` and those their variables name, ~/.gitconfig, and the user's
`readable` folders. The secret deny-list is then mounted over whatever is visible.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from zen.base.paths import expand_user, user_home, zen_home
from zen.settings.sandbox_options import SECRET_PATHS, TOOLCHAINS

_TOOLCHAIN_VARS = (
    "PYENV_ROOT", "NVM_DIR", "RUSTUP_HOME", "VIRTUAL_ENV", "CONDA_PREFIX", "PIPX_HOME",
)  # fmt: skip


def homes(environ: Mapping[str, str]) -> list[Path]:
    """$HOME and the passwd entry's home, each once; never `/` (a service user's home)."""
    found: list[Path] = []
    home = user_home(environ)
    candidates = [str(home) if home else ""]
    if os.name != "nt":  # no passwd database (nor `pwd`) on Windows
        import pwd

        try:
            candidates.append(pwd.getpwuid(os.getuid()).pw_dir)
        except (KeyError, OSError):
            pass
    for text in candidates:
        if text and os.path.isabs(text):
            path = _norm(text)
            if path != Path("/") and path.is_dir() and path not in found:
                found.append(path)
    return found


def shown(
    fresh: Sequence[Path],
    environ: Mapping[str, str],
    readable: Sequence[str],
    visible: Sequence[Path],
    secrets: Sequence[Path],
    scratch: Sequence[Path] = (),
) -> list[tuple[Path, Path]]:
    """(source, destination) pairs to bind back read-only into the `fresh` homes and the
    fresh `scratch` folders (/tmp: a venv made there runs too): existing, under one of them,
    not already `visible` (the workspace, writable folders), not a secret."""
    candidates: list[Path] = []
    for entry in environ.get("PATH", "").split(os.pathsep):
        if os.path.isabs(entry):
            candidates.append(Path(entry))
            parent = Path(entry).parent
            if (parent / "pyvenv.cfg").exists() or (parent / "conda-meta").is_dir():
                candidates.append(parent)  # a venv's bin needs its lib
    candidates += [Path(p) for p in {sys.prefix, sys.base_prefix, sys.exec_prefix}]
    candidates += [Path(environ[name]) for name in _TOOLCHAIN_VARS if environ.get(name)]
    if environ.get("CARGO_HOME"):
        candidates.append(Path(environ["CARGO_HOME"]) / "bin")
    for home in fresh:
        candidates += [home / text[2:] for text in TOOLCHAINS]
    candidates += [expand_user(text) for text in readable]
    real_secrets = [Path(os.path.realpath(s)) for s in secrets if os.path.lexists(s)]
    covered = [*fresh, *scratch]
    out: dict[Path, Path] = {}
    for path in candidates:
        if not path.is_absolute() or not path.exists():
            continue
        dest = _norm(path)
        if dest in covered or not _inside(dest, covered) or _inside(dest, visible) or dest in out:
            continue
        source = Path(os.path.realpath(path))
        if not _inside(source, real_secrets):
            out[dest] = source
    return list(out.items())


def secret_paths(fresh: Sequence[Path], extra: Sequence[str]) -> list[Path]:
    """Every secret path, existing or not: the deny-list under each home, ~/.zen, and the
    user's `hidden` entries."""
    paths = [home / text[2:] for home in fresh for text in SECRET_PATHS]
    paths += [zen_home(), *(expand_user(text) for text in extra)]
    return list(dict.fromkeys(_norm(p) for p in paths))


def hidden(secrets: Sequence[Path], fresh: Sequence[Path], visible: Sequence[Path]) -> list[Path]:
    """The secrets to mount over: each one's own path and where its links lead, where it
    exists and the command could see it (outside the fresh folders, or inside something
    shown, the workspace or a writable folder)."""
    out: list[Path] = []
    for secret in secrets:
        if not os.path.lexists(secret):  # most do not: no link to follow either
            continue
        for path in (secret, Path(os.path.realpath(secret))):
            if path in out or not path.exists():
                continue
            if not _inside(path, fresh) or _inside(path, visible):
                out.append(path)
    return out


def in_workspace(
    root: Path, fresh: Sequence[Path], environ: Mapping[str, str]
) -> tuple[str, ...] | None:
    """None, unless the workspace is a home (not made fresh, then): the names of its folders
    that hold PATH entries (`~/bin`), which the guard keeps with its dot entries."""
    if root not in fresh:
        return None
    names = []
    for entry in environ.get("PATH", "").split(os.pathsep):
        path = _norm(entry) if os.path.isabs(entry) else None
        if path is not None and root in path.parents:
            names.append(path.relative_to(root).parts[0])
    return tuple(dict.fromkeys(names))


def runtime_dir(environ: Mapping[str, str], root: Path) -> Path | None:
    """$XDG_RUNTIME_DIR (the user's sockets: the session bus, the keyring, Wayland), emptied
    inside: a second layer behind the seccomp filter. None when there is none, or it holds the
    workspace."""
    text = environ.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    path = _norm(text)
    if not path.is_absolute() or not path.is_dir() or path == Path("/"):
        return None
    return None if _inside(root, [path]) else path


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    """`path` is one of `folders` or lies in one (both normalized; strings, not pathlib's
    is_relative_to, which costs ~0.1 ms a pair)."""
    text = str(path)
    for folder in folders:
        name = str(folder)
        if text == name or text.startswith(name if name.endswith("/") else name + "/"):
            return True
    return False


def _norm(path: str | Path) -> Path:
    return Path(os.path.normpath(path))

"""What read-file, write-file and edit-file share: confinement, text checks, safe writes, diffs.

Expected failures raise `FileError`; each tool turns it into `ToolResult.error` at its edge, so
the helpers stay plain functions and the messages stay in one place.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import os
import re
import secrets
import stat
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import anyio.to_thread

from zen.base.paths import expand_user
from zen.stores.memo import AUTO
from zen.tools import temp_journal
from zen.tools.workspace import PathError

if TYPE_CHECKING:
    from zen.tools.base import ToolContext

BINARY_PROBE = 8192
"""Bytes checked for a NUL: what git and grep look at to call a file binary."""
T = TypeVar("T")
MEMO_CAP = 4000
"""Characters of content an auto-memo entry keeps: enough to recall a file, cheap to read back."""


class FileError(Exception):
    """An expected failure whose message the model reads and acts on."""


@dataclass(frozen=True)
class Target:
    """A confined file: its real path, and the path as the user and model see it."""

    path: Path
    shown: str


def target(ctx: ToolContext, path: str) -> Target:
    """Resolve `path` inside the workspace, or explain why it cannot be used."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError as exc:
        raise FileError(str(exc)) from None
    return Target(real, ctx.workspace.show(real))


def writable_target(ctx: ToolContext, path: str) -> Target:
    """Like `target`, but never inside a `.git` folder: a file tool writing `.git/config` or
    `.git/hooks/*` would get a program run by the next git command (fsmonitor, hooks)."""
    t = target(ctx, path)
    if in_git_dir(ctx.workspace.relative_parts(t.path)):
        raise FileError(
            f"{t.shown} is inside .git/; file tools do not write there. Use the git tool to "
            "change the repository"
        )
    return t


def in_git_dir(parts: tuple[str, ...]) -> bool:
    return any(part.lower() == ".git" for part in parts)


def needs_confirm_to_write(ctx: ToolContext, path: str) -> bool:
    """A write into the repository's hooks folder (core.hooksPath, e.g. `.husky/`): what lands
    there runs on the next commit, so it is confirmed whatever the permissions say."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        return False
    hooks = hooks_dir(ctx.workspace.root)
    return hooks is not None and (real == hooks or real.is_relative_to(hooks))


def needs_confirm_to_read(ctx: ToolContext, path: str) -> bool:
    """Reading `.git/config` is confirmed: remotes there may carry credentials in their URLs."""
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        return False
    parts = ctx.workspace.relative_parts(real)
    return len(parts) >= 2 and parts[-1].lower() == "config" and parts[-2].lower() == ".git"


def hooks_dir(root: Path) -> Path | None:
    """The folder `core.hooksPath` in the workspace's own `.git/config` names, resolved."""
    config = Target(root / ".git" / "config", ".git/config")
    try:
        regular_stat(config)  # a FIFO planted as .git/config must not block every write
        with os.fdopen(open_regular(config), "rb") as f:
            text = f.read(1_000_000).decode("utf-8", "replace")
    except (OSError, FileError):
        return None
    value = None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            section = line[1 : line.find("]")].strip().lower() if "]" in line else ""
            continue
        key, sep, rest = line.partition("=")
        if sep and section == "core" and key.strip().lower() == "hookspath":
            value = rest.split("#")[0].split(";")[0].strip().strip('"')
    if not value:
        return None
    try:
        return (root / expand_user(value)).resolve()
    except (OSError, RuntimeError, ValueError):
        return None


def is_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_PROBE]


async def off_loop(fn: Callable[..., T], *args: Any) -> T:
    """Run blocking file work in a worker thread the caller can walk away from.

    A read that blocks anyway (a network file system that stopped answering) must not freeze
    the event loop, or Ctrl-C and every deadline with it; on cancellation the thread is
    abandoned and its result dropped.
    """
    return await anyio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return "not a regular file"


def regular_stat(t: Target) -> os.stat_result:
    """The file's stat, if it is a regular file; checked without opening it.

    Opening a FIFO for reading blocks until a writer comes, and reading /dev/zero never ends:
    file tools only touch regular files. `t.path` is already resolved, so a symlink inside the
    workspace that points at a device is judged by what it points at.
    """
    try:
        st = os.stat(t.path)
    except FileNotFoundError:
        raise FileError(f"{t.shown} does not exist") from None
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise FileError(f"{t.shown} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise FileError(
            f"{t.shown} is {kind_of(st.st_mode)}, not a regular file; file tools only read and "
            "write regular files"
        )
    return st


def open_regular(t: Target, flags: int = os.O_RDONLY) -> int:
    """An fd on the regular file `t`, opened so a file swapped for a FIFO or a symlink since
    the check can neither block nor redirect it (O_NONBLOCK, O_NOFOLLOW, then fstat)."""
    extra = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= extra | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = retry_busy(os.open, t.path, flags)
    except OSError as exc:
        reason = IN_USE if busy(exc) else exc.strerror or exc
        raise FileError(f"cannot open {t.shown}: {reason}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise FileError(f"{t.shown} is {kind_of(st.st_mode)}, not a regular file")
    if extra & getattr(os, "O_NONBLOCK", 0):
        os.set_blocking(fd, True)
    return fd


def read_existing(t: Target, limit: int | None = None, why: str = "") -> bytes:
    """The bytes of an existing regular file; above `limit` bytes a FileError ending in `why`.

    The size is checked before reading and the read stops at `limit`, so a file that grows
    meanwhile costs no more memory than the limit.
    """
    st = regular_stat(t)
    if limit is not None and st.st_size > limit:
        raise FileError(f"{t.shown} is {_mb(st.st_size)}, above the {_mb(limit)} limit{why}")
    fd = open_regular(t)
    try:
        with os.fdopen(fd, "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError as exc:
        raise FileError(f"cannot read {t.shown}: {exc.strerror or exc}") from None
    if limit is not None and len(data) > limit:
        raise FileError(f"{t.shown} is above the {_mb(limit)} limit{why}")
    return data


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def decode_strict(data: bytes, shown: str) -> str:
    """UTF-8 text for an edit; anything else is refused rather than silently corrupted."""
    if is_binary(data):
        raise FileError(f"{shown} is a binary file; edit-file only changes text files")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise FileError(
            f"{shown} is not UTF-8 text; edit-file will not change it (that could corrupt it)"
        ) from None


def decode_loose(data: bytes) -> str:
    """Text for display and diffs, where a replacement character is harmless."""
    return data.decode("utf-8", errors="replace")


def newline_of(text: str) -> str:
    """The file's newline style: CRLF when most of its line ends are CRLF, else LF."""
    crlf = text.count("\r\n")
    return "\r\n" if crlf > text.count("\n") - crlf else "\n"


def with_newlines(text: str, newline: str) -> str:
    """`text` with every line end written as `newline`."""
    text = text.replace("\r\n", "\n")
    return text.replace("\n", newline) if newline != "\n" else text


def count_lines(text: str) -> int:
    """Lines as `wc -l` counts them, plus a last line without a newline."""
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


# -- writing ---------------------------------------------------------------------------------


async def write_off_loop(t: Target, data: bytes) -> None:
    """`atomic_write` in a worker thread that is waited for even when cancelled: a write is
    bounded (its content is in memory already) and must not go on after its lock is gone."""
    await anyio.to_thread.run_sync(atomic_write, t.path, data, t.shown)


def atomic_write(path: Path, data: bytes, shown: str) -> None:
    """Put `data` in the file at `path` (resolved, inside the workspace), keeping what it was.

    - A new file appears whole or not at all (O_TMPFILE linked in, or a temp file renamed).
    - An existing file is replaced through a temp file in its folder (so a crash or a full
      disk leaves the old or the new content, never half), with its mode, owner and group
      (when we may set them) and extended attributes carried over.
    - A file with several hard links, or in a folder we may not create files in, is written
      in place once the new content is ready, so the links stay joined and the edit works.
    - A read-only file is refused: its mode says nobody meant it to change.
    - Temp files are recorded under ~/.zen while they have a name (zen.tools.temp_journal).
    """
    t = Target(path, shown)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise FileError(f"cannot write {shown}: {exc.strerror or exc}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise FileError(f"{shown} is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise FileError(
                f"{shown} is {kind_of(st.st_mode)}, not a regular file; file tools only write "
                "regular files"
            )
        if _read_only(path, st):
            how = f"attrib -r {shown}" if os.name == "nt" else "chmod u+w"
            raise FileError(
                f"{shown} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); zen does not "
                "replace read-only files. If it should change, make it writable first "
                f"(e.g. {how} through bash), then try again"
            )
        if st.st_nlink > 1:
            _write_in_place(t, data)
            return
    else:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FileError(f"cannot write {shown}: {exc.strerror or exc}") from None
    try:
        _replace(path, data, st)
    except PermissionError as exc:
        if busy(exc):
            raise FileError(f"cannot write {shown}: {IN_USE}") from None
        if st is None:
            raise FileError(f"cannot write {shown}: permission denied") from None
        _write_in_place(t, data)  # a writable file in a folder we may not add files to
    except OSError as exc:
        raise FileError(f"cannot write {shown}: {exc.strerror or exc}") from None


def _read_only(path: Path, st: os.stat_result) -> bool:
    """No write bit for anyone (root would ignore it), or none for us."""
    return not st.st_mode & 0o222 or not os.access(path, os.W_OK)


def _write_in_place(t: Target, data: bytes) -> None:
    """Overwrite the file's own bytes: same inode, links, owner, mode and attributes."""
    fd = open_regular(t, os.O_WRONLY)
    try:
        view = memoryview(data)
        os.lseek(fd, 0, os.SEEK_SET)
        while view:
            view = view[os.write(fd, view) :]
        os.ftruncate(fd, len(data))
        os.fsync(fd)
    except OSError as exc:
        raise FileError(f"cannot write {t.shown}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _replace(path: Path, data: bytes, st: os.stat_result | None) -> None:
    """Prepare the content in an unnamed (O_TMPFILE) or recorded temp file, then move it in."""
    mode = 0o666 if st is None else stat.S_IMODE(st.st_mode)
    fd = _unnamed_temp(path.parent, mode)
    if fd is None:
        tmp, fd = _open_temp(path, mode)
        with temp_journal.recorded(tmp):
            try:
                try:
                    _fill(fd, data, path, st)
                finally:
                    os.close(fd)  # Windows renames no file that is still open
                retry_busy(os.replace, tmp, path)
            except BaseException:
                _discard(tmp)
                raise
        return
    try:
        _fill(fd, data, path, st)
        if st is None:  # a new file: link it in under its name, atomically, never replacing
            _link_fd(fd, path)
            return
        tmp = _temp_name(path)
        with temp_journal.recorded(tmp):
            _link_fd(fd, tmp)
            try:
                os.replace(tmp, path)
            except BaseException:
                _discard(tmp)
                raise
    finally:
        os.close(fd)


def _unnamed_temp(folder: Path, mode: int) -> int | None:
    """An O_TMPFILE fd in `folder` (Linux; nothing to clean up if we die), else None."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or _libc_linkat() is None or not Path("/proc/self/fd").is_dir():
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY | os.O_CLOEXEC, mode)
    except PermissionError:
        raise
    except OSError:  # the file system does not support it (EOPNOTSUPP, EISDIR on old kernels)
        return None


@functools.cache
def _libc_linkat() -> Any:
    """libc's linkat: os.link cannot follow /proc/self/fd/N (it calls link(2))."""
    try:
        import ctypes

        func = ctypes.CDLL(None, use_errno=True).linkat
    except (OSError, AttributeError, ImportError):
        return None
    func.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int]
    return func


_AT_FDCWD = -100
_AT_SYMLINK_FOLLOW = 0x400


def _link_fd(fd: int, dest: Path) -> None:
    """Give the unnamed file behind `fd` the name `dest` (fails if `dest` exists)."""
    import ctypes

    source = f"/proc/self/fd/{fd}".encode()
    if _libc_linkat()(_AT_FDCWD, source, _AT_FDCWD, os.fsencode(dest), _AT_SYMLINK_FOLLOW):
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), str(dest))


def _fill(fd: int, data: bytes, path: Path, st: os.stat_result | None) -> None:
    """Write the content and give the temp file the old file's metadata before it moves in."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    if st is not None:
        _copy_metadata(fd, path, st)
    os.fsync(fd)


def _copy_metadata(fd: int, path: Path, st: os.stat_result) -> None:
    """Owner, group, mode and extended attributes of the old file, where we are allowed to."""
    if hasattr(os, "fchown"):
        if os.geteuid() == 0:
            with contextlib.suppress(OSError):
                os.fchown(fd, st.st_uid, st.st_gid)
        elif st.st_gid != os.getegid():
            with contextlib.suppress(OSError):  # allowed when we are in that group
                os.fchown(fd, -1, st.st_gid)
    if hasattr(os, "fchmod"):  # not on Windows before 3.13 (only its read-only bit, unset here)
        os.fchmod(fd, stat.S_IMODE(st.st_mode))  # after chown, which clears set-id bits
    if hasattr(os, "listxattr"):
        with contextlib.suppress(OSError):
            for name in os.listxattr(path):
                with contextlib.suppress(OSError):
                    os.setxattr(fd, name, os.getxattr(path, name))


def _temp_name(path: Path) -> Path:
    """`.1a2b3c.zen-tmp`: 15 characters whatever the file's name (it used to add ~20 to it),
    so a temp path is longer than its file's by at most 14: Windows' 260-character limit."""
    return path.with_name(f".{secrets.token_hex(3)}.zen-tmp")


def _discard(tmp: Path) -> None:
    """Remove a temp file that will not be moved in, read-only or briefly held or not."""
    with contextlib.suppress(OSError):
        os.chmod(tmp, stat.S_IWRITE | stat.S_IREAD)  # Windows refuses to delete read-only files
    with contextlib.suppress(FileNotFoundError):
        retry_busy(tmp.unlink)


BUSY_WAITS = (0.05, 0.1, 0.2, 0.3, 0.4)
"""Seconds between tries while another program holds a file (about 1 s in all)."""
IN_USE = (
    "another program has it open (a sharing violation: an editor, antivirus or the indexer); "
    "close it or try again in a moment"
)
_BUSY_WINERRORS = (5, 32, 33)
"""ERROR_ACCESS_DENIED (a file pending delete), ERROR_SHARING_VIOLATION, ERROR_LOCK_VIOLATION."""


def busy(exc: OSError) -> bool:
    """A Windows file held by someone else for now: antivirus and indexers let go quickly."""
    return getattr(exc, "winerror", None) in _BUSY_WINERRORS


def retry_busy(fn: Callable[..., T], *args: Any) -> T:
    """`fn(*args)`, tried again for about a second while the file is busy (Windows only:
    elsewhere `winerror` is never set). Called off the event loop: it sleeps."""
    import time

    for delay in BUSY_WAITS:
        try:
            return fn(*args)
        except PermissionError as exc:
            if not busy(exc):
                raise
            time.sleep(delay)
    return fn(*args)


def _open_temp(path: Path, mode: int) -> tuple[Path, int]:
    """A new hidden file next to `path`, created with `mode` under the umask like a normal file."""
    while True:
        tmp = _temp_name(path)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return tmp, os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), mode)
        except FileExistsError:
            continue


@dataclass(frozen=True)
class Diff:
    text: str
    added: int
    removed: int

    @property
    def stat(self) -> str:
        return f"+{self.added} -{self.removed}"


def unified_diff(before: str, after: str, shown: str, context: int = 3) -> Diff:
    """A git-style diff of two texts, newline style ignored, with its `+N -M` counts.

    Only the part that differs (plus context) is split into lines and given to difflib: an
    edit of a 10 MB file changes a few lines, and splitting it all would cost most of the
    edit's time and memory.
    """
    a, b = before.replace("\r\n", "\n"), after.replace("\r\n", "\n")
    start, a_end, b_end = _changed_window(a, b, context)
    lines = list(
        difflib.unified_diff(
            _split(a[start:a_end]),
            _split(b[start:b_end]),
            f"a/{shown}",
            f"b/{shown}",
            n=context,
        )
    )
    offset = a.count("\n", 0, start)
    if offset:
        lines[2:] = [_shift(line, offset) if line.startswith("@@") else line for line in lines[2:]]
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    text = "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
    return Diff(text, added, removed)


_HUNK = re.compile(r"^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@")
_CHUNK = 1 << 15


def _shift(header: str, by: int) -> str:
    m = _HUNK.match(header)
    if not m:
        return header
    old, new = int(m[1]) + by, int(m[3]) + by
    return f"@@ -{old}{m[2] or ''} +{new}{m[4] or ''} @@" + header[m.end() :]


def _changed_window(a: str, b: str, context: int) -> tuple[int, int, int]:
    """(start, end in a, end in b): whole lines around where a and b differ, with `context`
    equal lines either side; what lies outside is equal in both."""
    limit = min(len(a), len(b))
    prefix = 0
    while prefix < limit and a[prefix : prefix + _CHUNK] == b[prefix : prefix + _CHUNK]:
        prefix += _CHUNK
    while prefix < limit and a[prefix] == b[prefix]:
        prefix += 1
    prefix = min(prefix, limit)
    room = limit - prefix  # the common suffix may not overlap the common prefix
    suffix = 0
    while suffix + _CHUNK <= room and (
        a[len(a) - suffix - _CHUNK : len(a) - suffix]
        == b[len(b) - suffix - _CHUNK : len(b) - suffix]
    ):
        suffix += _CHUNK
    while suffix < room and a[len(a) - suffix - 1] == b[len(b) - suffix - 1]:
        suffix += 1
    start = a.rfind("\n", 0, prefix) + 1
    for _ in range(context):
        if start == 0:
            break
        start = a.rfind("\n", 0, start - 1) + 1
    end = len(a) - suffix
    for _ in range(context + 1):
        nl = a.find("\n", end)
        if nl < 0:
            end = len(a)
            break
        end = nl + 1
    cut = len(a) - end
    return start, end, len(b) - cut


def _split(text: str) -> list[str]:
    """Lines with their `\\n`, split on `\\n` only (str.splitlines also splits on \\f, \\x1c…)."""
    parts = text.replace("\r\n", "\n").split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def remember(ctx: ToolContext, shown: str, content: str, summary: str) -> None:
    """Auto-memo: record what this agent just saw or did to a file under `file:<path>`."""
    if len(content) > MEMO_CAP:
        content = content[:MEMO_CAP] + f"\n… [{len(content) - MEMO_CAP} more chars]"
    ctx.memo.write(f"file:{shown}", content, summary, AUTO, run=ctx.run.id)


@asynccontextmanager
async def path_lock(ctx: ToolContext, path: str) -> AsyncIterator[None]:
    """Hold the session-wide lock of `path` so agents writing one file take turns.

    Check, write and re-stamp happen under it, so no agent writes between another's
    stale-read check and its write. A path that does not resolve takes no lock; the tool
    reports it.
    """
    try:
        real = ctx.workspace.resolve(path)
    except PathError:
        yield
        return
    async with ctx.workspace.lock(real):
        yield

"""Writing a file so it is never left half-written: `atomic_write` and its temp files, links,
copied metadata and retries, and `write_off_loop` to run it in a worker thread.

Kept in one place because every step depends on the others' guarantees (a temp file is
recorded while it has a name, an unnamed one is linked in, a hard-linked file is written in
place); the tools only call `write_off_loop`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import stat
from pathlib import Path
from typing import Any

import anyio.to_thread

from zen.tools import temp_journal
from zen.tools.files.regular import (
    IN_USE,
    FileError,
    Target,
    busy,
    kind_of,
    open_regular,
    retry_busy,
)


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
        _check_replaceable(t, st)
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


def _check_replaceable(t: Target, st: os.stat_result) -> None:
    """Refuse to replace what is not a regular file, or a read-only one."""
    if stat.S_ISDIR(st.st_mode):
        raise FileError(f"{t.shown} is a directory, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise FileError(
            f"{t.shown} is {kind_of(st.st_mode)}, not a regular file; file tools only write "
            "regular files"
        )
    if _read_only(t.path, st):
        how = f"attrib -r {t.shown}" if os.name == "nt" else "chmod u+w"
        raise FileError(
            f"{t.shown} is read-only (mode {stat.S_IMODE(st.st_mode):04o}); zen does not "
            "replace read-only files. If it should change, make it writable first "
            f"(e.g. {how} through bash), then try again"
        )


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


def _open_temp(path: Path, mode: int) -> tuple[Path, int]:
    """A new hidden file next to `path`, created with `mode` under the umask like a normal file."""
    while True:
        tmp = _temp_name(path)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
            return tmp, os.open(tmp, flags | getattr(os, "O_CLOEXEC", 0), mode)
        except FileExistsError:
            continue

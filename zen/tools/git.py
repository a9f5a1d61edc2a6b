"""git: run one git command in the workspace, never interactively.

Reading commands (`status`, `diff`, `log`, `show`, `blame` with allow-listed options and paths
inside the workspace: `git_readonly.py`) run at level auto; anything else (commit, checkout,
push, a path outside, `--output`...) asks first. Every git process runs with the repository's
own programs switched off (`git_process.py`); when its configuration names one no setting can
switch off, only reading commands run. A pager or editor would hang a run nobody can type
into, so both are disabled, stdin is closed and the process gets no terminal at all.
"""

from __future__ import annotations

import shlex
from typing import Any

from pydantic import Field

from zen.tools.base import Level, Params, Tool, ToolContext, ToolResult
from zen.tools.git_process import GitError, GitOutput, repo_config, run_git
from zen.tools.git_readonly import READ_ONLY, only_reads, option_ok, reading_flags

__all__ = ["Git", "GitError", "GitOutput", "GitParams", "run_git", "split_args"]


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
        raise GitError('no git command given; e.g. args: "status"')
    return parts


class GitParams(Params):
    args: str | list[str] = Field(description='e.g. "log --oneline -5"')


class Git(Tool):
    name = "git"
    Params = GitParams
    level = "confirm"
    acp_kind = "execute"
    needs = "git"

    def level_for(self, params: GitParams, ctx: ToolContext) -> Level:
        try:
            reading = only_reads(split_args(params.args), ctx.workspace)
        except GitError:
            return "auto"  # nothing will run: execute reports the problem
        return "auto" if reading else self.level

    def may_change_files(self, args: dict[str, Any]) -> bool:
        try:
            parts = split_args(args.get("args", ""))
        except GitError:
            return False  # nothing will run
        return (
            parts[0] not in READ_ONLY
            or any(  # an option off the list may write (--output)
                p.startswith("-") and not option_ok(parts[0], p) for p in parts[1:]
            )
        )

    def key_arg(self, args: dict[str, Any]) -> str:
        value = args.get("args", "")
        return " ".join(value) if isinstance(value, list) else str(value)

    async def preview(self, params: GitParams, ctx: ToolContext) -> str | ToolResult:
        try:
            return "git " + shlex.join(split_args(params.args))
        except GitError as exc:
            return ToolResult.error(str(exc))

    async def execute(self, params: GitParams, ctx: ToolContext) -> ToolResult:
        root = ctx.workspace.root
        try:
            parts = split_args(params.args)
            config = await repo_config(root)
            reading = only_reads(parts, ctx.workspace)
            if config.unsafe and not reading:
                return ToolResult.error(
                    "this repository's own git configuration names programs zen cannot switch "
                    f"off ({', '.join(config.unsafe)}); only reading commands run here "
                    "(status, diff, log, show, blame). Ask the user to run this command."
                )
            if reading:
                parts = [parts[0], *reading_flags(parts), *parts[1:]]
            result = await run_git(parts, root, limit=ctx.max_tool_output * 4, config=config)
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

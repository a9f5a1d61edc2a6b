"""git: run one git command in the workspace, never interactively.

Reading commands (`status`, `diff`, `log`, `show`, `blame` with allow-listed options and paths
inside the workspace: `git_readonly.py`) run at level auto; anything else (commit, checkout,
push, a path outside, `--output`...) asks first. Every git process runs with the repository's
own programs switched off (`git_process.py`); when its configuration names one no setting can
switch off, only reading commands run. Anything but a reading command runs in the sandbox
while it is active (`git_sandboxed.py`). A pager or editor would hang a run nobody can type
into, so both are disabled, stdin is closed and the process gets no terminal at all.
"""

from __future__ import annotations

import shlex
from typing import Any

from pydantic import Field

from zen.tools.base import Level, Params, Tool, ToolContext, ToolResult
from zen.tools.git_process import GitError, GitOutput, repo_config, run_git
from zen.tools.git_readonly import READ_ONLY, only_reads, option_ok, reading_flags
from zen.tools.git_sandboxed import INSIDE_FAILED, Ran, refused_on, run_writing
from zen.tools.sandbox.run import after_note

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
            parts = split_args(params.args)
        except GitError as exc:
            return ToolResult.error(str(exc))
        refusal = None if only_reads(parts, ctx.workspace) else await refused_on(ctx)
        return refusal or "git " + shlex.join(parts)

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
            limit = ctx.max_tool_output * 4
            ran: Ran | ToolResult
            if reading:
                parts = [parts[0], *reading_flags(parts), *parts[1:]]
                ran = Ran(await run_git(parts, root, limit=limit, config=config))
            else:  # it may write or start programs: in the sandbox (git_sandboxed.py)
                ran = await run_writing(parts, ctx, config, limit)
        except GitError as exc:
            return ToolResult.error(str(exc))
        if isinstance(ran, ToolResult):
            return ran
        result = _result(parts[0], ran.output)
        if ran.note:
            result.output = f"{ran.note}\n{result.output}"
        if ran.inside is not None:
            failed = not result.ok and not ran.inside.undone
            result.ok = result.ok and not ran.inside.undone
            result.output += after_note(ran.inside) + (f"\n{INSIDE_FAILED}" if failed else "")
        return result


def _result(sub: str, result: GitOutput) -> ToolResult:
    """The model's result: the output (cut, with a note) and stderr."""
    text = result.stdout
    if result.truncated:
        text += "\n[output cut: git was stopped; narrow the command (-n, a path, --stat)]"
    if result.stderr.strip():
        text = f"{text.rstrip()}\n{result.stderr.strip()}".strip()
    if result.code != 0 and not result.truncated:
        return ToolResult(
            ok=False,
            output=f"git {sub} exited with {result.code}\n{text}".rstrip(),
            summary=f"exit {result.code}",
        )
    lines = len(result.stdout.splitlines())
    return ToolResult(True, text or "(no output)", f"exit 0, {lines} lines")

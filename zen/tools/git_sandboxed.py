"""git calls that are not reading calls run in the sandbox while it is active.

Such a call can run any program: an alias (`-c alias.x='!cmd' x`), `--config-env`,
`--upload-pack`, `core.sshCommand`, `ext::`, `rebase -x`, `submodule foreach`, a hook, and the
next git release will add more. Listing them would always miss one, so the rule has no list:
whatever `only_reads` does not vouch for runs where bash's commands run, under the same undo
guard (`Prepared.finish`). `git push` and `fetch` therefore fail there (no network, no ssh
agent, no credentials): the user runs them. With the sandbox `off`, or `auto` where it cannot
run, they run outside as before; with `on` where it cannot run, not at all.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

from zen.settings.sandbox_options import SandboxOptions
from zen.tools.base import ToolContext, ToolResult
from zen.tools.git_process import (
    QUIET_ENV,
    TIMEOUT,
    GitOutput,
    RepoConfig,
    git_env,
    git_output,
    run_git,
)
from zen.tools.sandbox.environment import allowed
from zen.tools.sandbox.run import (
    Inside,
    SandboxError,
    run_sandboxed,
    unavailable,
    unsandboxed_note,
)
from zen.tools.sandbox.runner import ON_REFUSAL

_OVERRIDE = re.compile(r"GIT_CONFIG_(COUNT|KEY_\d+|VALUE_\d+)")


def sandbox_env(config: RepoConfig, options: SandboxOptions) -> dict[str, str]:
    """Of `git_env`, what reaches git through the sandbox's allow-list: the quiet variables,
    the numbered overrides (the user's own among them, so the count stays true), and the
    user's other `GIT_*` variables (identity, config paths: what git starts because of them
    runs inside too) but those that look secret or `options.hidden_env` names."""
    env = git_env(config)
    mine = SandboxOptions(env=["GIT_*"], hidden_env=options.hidden_env)
    own = allowed({k: v for k, v in env.items() if k.startswith("GIT_")}, mine)
    fixed = {k: v for k, v in env.items() if k in QUIET_ENV or _OVERRIDE.fullmatch(k)}
    return {**own, **fixed}


class Ran(NamedTuple):
    output: GitOutput
    note: str = ""
    """Said before the output: the sandbox could not run, so this ran outside it (or it ran
    without a missing `writable` folder)."""
    inside: Inside | None = None
    """How it ran in the sandbox (None: outside)."""


INSIDE_FAILED = (
    "[this ran in the sandbox: no network, no ssh agent or credentials, writes only in the "
    "workspace; if the command needs those (push, fetch), ask the user to run it]"
)


async def run_writing(
    parts: list[str], ctx: ToolContext, config: RepoConfig, limit: int
) -> Ran | ToolResult:
    """Run a call that may write or start programs, or say why it cannot run. GitError as
    `run_git`."""
    box, root = ctx.sandbox, ctx.workspace.root
    if box is None or box.mode == "off":
        return Ran(await run_git(parts, root, limit=limit, config=config))
    try:
        problem = await unavailable(box, TIMEOUT)
    except SandboxError as exc:
        return ToolResult.error(str(exc))
    if problem and box.mode == "on":
        return ToolResult.error(ON_REFUSAL.format(problem=problem))
    if problem:  # `auto` where the sandbox cannot run: as bash, said once
        note = unsandboxed_note(box, problem, ctx.run.emit, ctx.agent)
        return Ran(await run_git(parts, root, limit=limit, config=config), note)
    env = {k: v for k, v in os.environ.items() if k not in ctx.hidden_env}
    try:
        inside = await run_sandboxed(
            box,
            root,
            ["git", "--no-pager", *parts],
            env,
            add_env=sandbox_env(config, box.options),
            timeout=TIMEOUT,
            limit=limit,
            stop_at_limit=True,
        )
    except SandboxError as exc:
        return ToolResult.error(str(exc))
    return Ran(git_output(inside.done, TIMEOUT, parts[0]), "\n".join(inside.notes), inside)


async def refused_on(ctx: ToolContext) -> ToolResult | None:
    """The refusal of a writing call when the sandbox is `on` and cannot run here (before
    anyone is asked: nothing would run)."""
    box = ctx.sandbox
    if box is None or box.mode != "on":
        return None
    try:
        problem = await unavailable(box, TIMEOUT)
    except SandboxError as exc:
        return ToolResult.error(str(exc))
    return ToolResult.error(ON_REFUSAL.format(problem=problem)) if problem else None

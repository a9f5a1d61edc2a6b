"""Running one argv in the sandbox, for whoever needs it: bash, git's writing calls, and
`zen bench`'s check. The steps are always the same (prepare, run under the one rule for
children, undo what the command changed in the workspace's configuration, drop the temp
folder), so they live in one place.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from zen.tools.child import Finished, run_child
from zen.tools.sandbox.runner import Sandbox


class SandboxError(Exception):
    """The sandbox could not be prepared or started; the message says which, and why."""


async def unavailable(box: Sandbox, timeout: float) -> str:
    """Why `box` cannot run commands here ("" when it can), found out at first use within
    `timeout`: the one question callers outside bash (git, `zen bench`'s check) ask before
    `run_sandboxed`. SandboxError when it cannot tell in time: then nothing may run."""
    return box.problem()


async def run_sandboxed(
    box: Sandbox,
    root: Path,
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    add_env: Mapping[str, str] | None = None,
    **options: Any,
) -> tuple[Finished, list[str]]:
    """Run `argv` in `box` (which must be `active()`) with `root` as the workspace; how it
    finished, and what the sandbox undid after it. `env` is scrubbed by the sandbox; `add_env`
    is added after, for variables the caller vouches for (git's overrides, a check's paths).
    `options`: `run_child`'s (cwd defaults to `root`)."""
    try:
        ready = box.prepare(root, list(argv), env)
    except OSError as exc:
        raise SandboxError(f"cannot prepare the sandbox: {exc}") from None
    ready.env.update(add_env or {})
    options.setdefault("cwd", root)
    try:
        done = await run_child(ready.argv, env=ready.env, **options)
    except OSError as exc:
        raise SandboxError(f"cannot start the sandbox: {exc}") from None
    finally:
        undone = ready.finish()
    return done, undone


def undone_note(undone: Sequence[str]) -> str:
    """What the model is told when the sandbox undid changes ("" when it undid none)."""
    if not undone:
        return ""
    return (
        f"\n[the sandbox undid changes to {', '.join(undone[:10])}: the workspace's zen, git "
        "and shell configuration is read-only inside it]"
    )

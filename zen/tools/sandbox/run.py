"""Running one argv in the sandbox, for whoever needs it: bash, git's writing calls, and
`zen bench`'s check. The steps are always the same (ask whether the sandbox runs here, prepare,
run under the one rule for children with the sandbox's descriptors, refuse what never started,
undo what the command changed in the workspace's configuration, drop the temp folder), so they
live in one place.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.base import events as ev
from zen.tools.child import Finished, run_child
from zen.tools.sandbox.runner import NOT_STARTED, UNANSWERED, Sandbox

UNSANDBOXED = "[ran unsandboxed: no sandbox on this machine]"
"""The model's note, once, when `auto` runs commands outside."""


class SandboxError(Exception):
    """Nothing ran: the sandbox could not be checked, prepared or started; the message says
    which, and why."""


@dataclass
class Inside:
    """How a command run in the sandbox finished."""

    done: Finished
    undone: list[str] = field(default_factory=list)
    """What the sandbox undid after it (`Prepared.finish`)."""
    notes: list[str] = field(default_factory=list)
    """Lines for the model before the output (a `writable` folder left out)."""
    said: str = ""
    """Said after the output (the undo's walk for repositories stopped short)."""


async def unavailable(box: Sandbox, timeout: float) -> str:
    """Why `box` cannot run commands here ("" when it can), probed at first use within
    `timeout`. SandboxError when the probe did not answer in time: then nothing may run, not
    even outside (a slow probe never opens the sandbox)."""
    found = await box.settle(timeout)
    if found is None:
        raise SandboxError(UNANSWERED.format(timeout=f"{timeout:g}"))
    return found.problem if found.program is None else ""


def unsandboxed_note(box: Sandbox, problem: str, emit: ev.Emit, agent: str) -> str:
    """`auto` runs a command outside because the sandbox cannot run here: said once, to the
    model (the note returned, "" after the first) and to the user (an event, with why and
    the fix); never on Windows, which has no sandbox to miss. The model's note says no why:
    the fix ("apt-get install bubblewrap") is the user's to make, and a 1.5B model that read
    it set out to install bubblewrap instead of answering."""
    if box.told or os.name == "nt":
        box.told = True
        return ""
    box.told = True
    emit(
        ev.SandboxUnavailable(
            agent=agent, text=f"sandbox unavailable, so commands run unsandboxed: {problem}"
        )
    )
    return UNSANDBOXED


async def run_sandboxed(
    box: Sandbox,
    root: Path,
    argv: Sequence[str],
    env: Mapping[str, str],
    *,
    add_env: Mapping[str, str] | None = None,
    **options: Any,
) -> Inside:
    """Run `argv` in `box` (whose `unavailable` said "") with `root` as the workspace. `env`
    goes through the sandbox's allow-list; `add_env` is added after, for variables the caller
    vouches for (git's overrides, a check's paths). `options`: `run_child`'s (cwd defaults to
    `root`). SandboxError when it could not start: then nothing ran."""
    try:
        ready = box.prepare(root, list(argv), env)
    except OSError as exc:
        raise SandboxError(f"cannot prepare the sandbox: {exc}") from None
    ready.env.update(add_env or {})
    options.setdefault("cwd", root)
    try:
        done = await run_child(ready.argv, env=ready.env, pass_fds=ready.fds, **options)
    except OSError as exc:
        ready.abandon()
        raise SandboxError(NOT_STARTED.format(why=exc)) from None
    finally:
        undone = ready.finish()
    if not ready.started():
        said = (done.err.data() if done.err else b"") or done.out.data()
        lines = said.decode("utf-8", "replace").strip().splitlines()
        raise SandboxError(NOT_STARTED.format(why=lines[-1] if lines else f"exit {done.code}"))
    return Inside(done, undone, ready.notes, ready.watch.note)


def after_note(inside: Inside) -> str:
    """What the model is told after the output: the changes the sandbox undid, and what the
    undo itself said ("" when neither)."""
    text = ""
    if inside.undone:
        undone = inside.undone
        more = f" and {len(undone) - 10} more" if len(undone) > 10 else ""
        text += (
            f"\n[the sandbox undid changes to {', '.join(undone[:10])}{more}: the configuration "
            "of zen, git, editors and shells in the workspace is read-only inside it]"
        )
    if inside.said:
        text += f"\n[{inside.said}]"
    return text

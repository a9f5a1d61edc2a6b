"""What one line typed in the shell sets going, once the session is open.

A message goes to the model, a `/command` runs (and may hand back a message or work of its
own), `!cmd` runs in the workspace without the model. Each is supervised (Ctrl-C and Esc
cancel it; the conversation so far is kept), its failure reported in one line, and a message
ends with the status line (tokens, cost, context, time).
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any, Protocol

from zen.base.preamble import SHELL_CLOSE, SHELL_OPEN
from zen.ui import term
from zen.ui.commands.dispatch import is_command, run_command
from zen.ui.commands.registry import CommandContext, Prompt
from zen.ui.format import output_tail, status_line
from zen.ui.mentions import ATTACH_LIMIT, mentioned_files

if TYPE_CHECKING:
    from zen.agent.session import Session
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer

BANG_LINES = 40
"""Lines of a `!cmd`'s output printed; `/show` has the rest."""


class RunHost(Protocol):
    """What a run needs from the shell that starts it (zen/ui/shell.py's `Shell`)."""

    session: Session | None
    out: LogRenderer
    approver: ShellApprover
    simple: bool
    running: asyncio.Task[Any] | None
    keys: term.KeyWatcher | None
    typeahead: str
    bang_outputs: list[str]

    def cancel_run(self) -> None: ...


async def run_line(shell: RunHost, ctx: CommandContext, line: str) -> None:
    """What a line typed at the prompt sets going: `!cmd`, a `/command` (which may send a
    message or start work of its own), or a message for the model."""
    if line.startswith("!") and line[1:].strip():
        task = await supervise(shell, run_bang(shell, line[1:].strip()))
        if task.cancelled() or task.exception() is not None:
            report(shell, task, "!" + line[1:].split()[0])
        return
    if is_command(line):
        try:
            pending = run_command(ctx, line)
        except Exception as e:  # a command's bug must not end the shell
            shell.out.error(f"{line.split()[0]} failed: {type(e).__name__}: {e}")
            return
        if isinstance(pending, Prompt):
            await send(shell, pending)
        elif pending is not None:
            task = await supervise(shell, pending)
            if task.cancelled() or task.exception() is not None:
                report(shell, task, line.split()[0])
        return
    await run_task(shell, line)


async def send(shell: RunHost, prompt: Prompt) -> None:
    """A command's message for the model, on the command's own model and work mode for
    this one run."""
    assert shell.session is not None
    session = shell.session
    model, mode = session.config.model, session.work_mode
    try:
        if prompt.model:
            session.set_model(prompt.model)
        if prompt.work_mode:
            session.set_work_mode(prompt.work_mode)
        await run_task(shell, prompt.text)
    except ValueError as e:
        shell.out.error(str(e))
    finally:
        if prompt.model:
            session.set_model(model)
        if prompt.work_mode:
            session.set_work_mode(mode)


async def run_task(shell: RunHost, line: str) -> None:
    """One task: run it, let Ctrl-C cancel it, then print one status line."""
    assert shell.session is not None
    session = shell.session
    message = attach(shell, line)
    if shell.bang_outputs:  # `!cmd` output the user ran since the last message
        message = "\n\n".join([*shell.bang_outputs, message])
        shell.bang_outputs.clear()
    before = _usage_snapshot(session)
    started = time.monotonic()
    task = await supervise(shell, session.run(message, shell.out, shell.approver))
    report(shell, task)
    seconds = time.monotonic() - started
    if not task.cancelled():  # Ctrl-C: no wait for the server after it
        await session.learn_window()
    spent = _spent(before, _usage_snapshot(session))
    now = session.status()
    estimated = {role for role, u in now.usage.items() if u.estimated}
    shell.out.status(status_line(spent, seconds, estimated, cost=now.run_cost, context=now.context))


async def supervise(shell: RunHost, work: Any) -> asyncio.Task[Any]:
    """Run `work` (a task, or a command that talks to the model) until it ends; Ctrl-C
    cancels it. Returns the finished task."""
    task = asyncio.ensure_future(work)
    shell.running = task
    keys = None if shell.simple else term.KeyWatcher(shell.cancel_run)
    shell.keys = keys
    try:
        if keys is not None:
            keys.start()
        await asyncio.wait({task})
    except asyncio.CancelledError:
        # The shell itself is ending (SIGTERM/SIGHUP): stop the run first, so its tool
        # processes die and its calls are answered before the MCP servers are stopped.
        task.cancel()
        await asyncio.wait({task}, timeout=10)
        raise
    finally:
        shell.running = None
        shell.keys = None
        if keys is not None:
            keys.stop()
            shell.typeahead += "".join(keys.typed)
    shell.out.end_run()
    return task


def report(shell: RunHost, task: asyncio.Task[Any], command: str = "") -> None:
    from zen.agent.run_guards import RunLimit
    from zen.llm.types import LLMError
    from zen.settings.schema import ConfigError

    if task.cancelled():
        what = f"{command} was stopped" if command else "the run was stopped"
        shell.out.info(f"interrupted: {what}, the conversation so far is kept", "yellow")
        return
    error = task.exception()
    if isinstance(error, (LLMError, ConfigError, RunLimit)):  # /dual with no key, max_time
        shell.out.error(str(error))
        if not command and unanswered_dropped(shell):
            shell.out.info("your message got no answer and was not kept (↑ recalls it)", "dim")
    elif error is not None:
        what = f"{command} failed" if command else "internal error"
        shell.out.error(f"{what}: {type(error).__name__}: {error}")
    elif task.result().stop == "max_turns":
        result = task.result()
        shell.out.info(
            f"stopped after {result.turns} turns (max_turns); say `continue` to go on", "yellow"
        )


async def run_bang(shell: RunHost, command: str) -> None:
    """`!cmd`: run it in the workspace without the model, show it, and keep its output
    for the next message (the model sees what the user saw)."""
    assert shell.session is not None
    out = shell.out
    out.print(out.styled(("$ ", "bold magenta"), (command, "bold")))
    result = await shell.session.run_command(command)
    lines, more = output_tail(result.output, BANG_LINES)
    if more:
        out.info(f"… {more} lines above (/show)", "dim")
    for line in lines:
        out.print(out.styled((line, "")))
    out.info(
        f"{'✓' if result.ok else '✗'} {result.summary} · the output goes with your next message",
        "green" if result.ok else "red",
    )
    out.tools.outputs.append((f"$ {command}", result.output))
    shell.bang_outputs.append(
        f"{SHELL_OPEN}$ {command}\n{result.output.rstrip()}{SHELL_CLOSE.rstrip()}"
    )


def attach(shell: RunHost, line: str) -> str:
    """The message with each `@path` inside the workspace attached below it."""
    assert shell.session is not None
    files: list[str] = []
    for path, shown, content in mentioned_files(line, shell.session.workspace, shell.out.info):
        if len(content) <= ATTACH_LIMIT:
            shell.session.note_read(path)  # it saw the whole file: no re-read to edit it
        body = content[:-1] if content.endswith("\n") else content
        files.append(f'<file path="{shown}">\n{body}\n</file>')
    return line if not files else line.rstrip() + "\n\n" + "\n\n".join(files)


def unanswered_dropped(shell: RunHost) -> bool:
    """Did the failed run take its user message back? (It got no answer at all: the
    conversation ends as before it, with an answer or nothing.)"""
    history = shell.session.history if shell.session else []
    return not history or history[-1].get("role") == "assistant"


Tokens = tuple[int, int, int]


def _usage_snapshot(session: Session) -> dict[str, Tokens]:
    return {
        role: (u.prompt_tokens, u.completion_tokens, u.cached_tokens)
        for role, u in session.status().usage.items()
    }


def _spent(before: dict[str, Tokens], after: dict[str, Tokens]) -> dict[str, Tokens]:
    """What this run used, by role: prompt, completion and cached tokens."""
    spent = {}
    for role, (p, c, k) in after.items():
        p0, c0, k0 = before.get(role, (0, 0, 0))
        spent[role] = (p - p0, c - c0, k - k0)
    return spent

"""`zen` with no arguments: the interactive shell.

A prompt-toolkit prompt (persistent history, Alt+Enter for a new line, completion of slash
commands and of `@path` mentions) alternates with agent runs rendered by the log view. The
prompt and the run never draw at the same time: while a run streams, nothing but the log
writes to the terminal, and the only prompts (confirmations) go through `patch_stdout`.

Ctrl-C (or Esc): during a run it cancels the run (the core closes any open tool calls, the bash tool
kills its process tree) and the conversation is kept; with text typed it clears the text; at
an empty prompt it warns, and a second one (or Ctrl-D) exits.

`--simple`, TERM=dumb, input or output that is not a terminal, and any console prompt-toolkit
cannot drive (Windows `NoConsoleScreenBufferError` under mintty/Git Bash) use plain `input()`.

The prompt comes first (issue 20): the session opens in a task while the user types. The
shell's parts: `shell_state.py` (what they share), `shell_input.py` (reading a line, the
prompt, the banner), `shell_opening.py` (the session opened beside the prompt), this module
(the loop and Ctrl-C); how a line is read lives in `readers.py`, `@path` mentions in
`mentions.py`, what a line sets going in `runs.py` (slash commands: `commands/`), the
background imports in `preload.py`.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING

from zen.base import exits
from zen.base.terminal_safe import terminal_safe
from zen.ui import term
from zen.ui.shell_opening import ShellOpening

if TYPE_CHECKING:
    from collections.abc import Callable

    from zen.settings.schema import Config
    from zen.ui.commands.registry import CommandContext
    from zen.ui.shell_state import OpenSession

__all__ = ["Shell", "run_shell"]


def run_shell(
    load_config: Callable[[], Config],
    shown: dict[str, str],
    workspace: Path,
    open_session: OpenSession,
    *,
    imports: tuple[str, ...] = (),
    simple: bool = False,
    yes: bool = False,
    resume: str | None = None,
    continue_last: bool = False,
    keep: frozenset[str] = frozenset(),
) -> int:
    """`load_config` gives the config (checked before, or validated again: the CLI decides);
    `shown`: what the prompt and banner show until the session is open (`mode`,
    `collaboration`, `model`, `provider` when it is that provider's default model).
    `resume`: a session id, or "" to pick one from a list; `continue_last`: the latest.
    `open_session` is the composition root's (zen.app): the CLI hands it in, with the modules
    it needs (`imports`, loaded in the background), so the shell depends on the session,
    never on how one is put together."""
    caps = term.detect(sys.stdout)
    shell = Shell(load_config, shown, workspace, caps, open_session, simple=simple, yes=yes)
    shell.imports = imports
    try:
        return asyncio.run(shell.main(resume=resume, continue_last=continue_last, keep=keep))
    except KeyboardInterrupt:
        return exits.INTERRUPTED
    except Exception as e:
        from zen.settings.schema import ConfigError
        from zen.stores.session_db import SessionError

        if not isinstance(e, (ConfigError, SessionError)):
            raise
        print(terminal_safe(f"zen: {e}"), file=sys.stderr)
        return exits.USAGE


class Shell(ShellOpening):
    """The REPL. Its prompt comes first: the session (config validation, store, git facts,
    MCP servers) opens in a task while the user types, and the first line waits for it.
    Start-up is `ShellOpening`'s, reading and saying `ShellInput`'s, the state `ShellState`'s;
    this class is the loop and Ctrl-C."""

    async def main(
        self,
        *,
        resume: str | None = None,
        continue_last: bool = False,
        keep: frozenset[str] = frozenset(),
    ) -> int:
        from zen.ui.stop_signals import StopSignals

        self._loop = asyncio.get_running_loop()
        previous = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, self._on_sigint)
        # SIGTERM/SIGHUP: end like Ctrl-C at an empty prompt, after stopping any run.
        stop = StopSignals()
        main = asyncio.current_task()
        assert main is not None
        stop.install(main.cancel)
        opening = asyncio.ensure_future(
            self._hold_session(resume=resume, continue_last=continue_last, keep=keep)
        )
        opening.add_done_callback(self._opening_ended)
        try:
            self.reader = self._make_reader()
            if self.simple or resume is not None or continue_last:
                # input() blocks the loop, and a resumed session shows its history first:
                # the session opens before the prompt (and the banner shows its model)
                self.start_preload()
                await self._ready(opening)
            else:
                self._banner()
                self._report_tightened()
            await self._repl(opening, pick=resume == "")
        except asyncio.CancelledError:
            if stop.received is None:
                raise
            if sys.version_info >= (3, 11):  # 3.10 has no cancel count to undo
                main.uncancel()
            return stop.exit_code
        finally:
            if self._opened.is_set():
                self._greet()  # ended before a first line: what opening said still shows
            else:
                opening.cancel()  # Ctrl-D before it opened: do not finish opening it
            self._closing.set()
            await asyncio.wait({opening})
            stop.remove()
            signal.signal(signal.SIGINT, previous)
        return exits.DONE

    async def _pick(self, ctx: CommandContext) -> None:
        """`zen -r`: list this workspace's sessions and resume the one picked."""
        from zen.ui.commands.sessions import list_sessions, resume_session

        if not list_sessions(ctx):
            return
        try:
            answer = await self._ask("resume which? number or id (Enter: a new session) › ")
        except (KeyboardInterrupt, EOFError):
            answer = ""
        if answer.strip():
            resume_session(ctx, answer.strip())

    async def _repl(self, opening: asyncio.Task[None], *, pick: bool) -> None:
        if pick:
            await self._pick(await self._ready(opening))
        warned = False
        while self.ctx is None or not self.ctx.exit:
            try:
                line = await self._read(self._prompt())
            except KeyboardInterrupt:
                if warned:
                    break
                warned = True
                self._say(f"(Ctrl-C again or {self.eof_key} to exit)")
                continue
            except EOFError:
                break
            warned = False
            if not line.strip():
                continue
            ctx = await self._ready(opening)  # the first line waits for the session
            from zen.ui import runs  # imported by then (STARTUP)

            await runs.run_line(self, ctx, line)

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C outside prompt-toolkit's raw mode (which reads it as a key): interrupt a
        blocking input(), else cancel the run, else stop a start-up that hangs. One arriving
        just after a run ended (a second press) is dropped: it must not end the shell."""
        task = self.running
        if self.reading or self.session is None:
            raise KeyboardInterrupt
        if task is not None and not task.done() and self._loop:
            self._loop.call_soon_threadsafe(task.cancel)

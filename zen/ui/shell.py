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

The prompt comes first (issue 20): the session opens in a task while the user types. How a
line is read lives in `readers.py`, `@path` mentions in `mentions.py`, what a line sets going
in `runs.py`, the background imports in `preload.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

from zen import __version__
from zen.base import exits
from zen.base.terminal_safe import terminal_safe
from zen.ui import term
from zen.ui.preload import FIRST_ANSWER, preload
from zen.ui.readers import PlainReader, PromptReader, Reader

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractAsyncContextManager

    from zen.agent.session import Session
    from zen.settings.schema import Config
    from zen.ui.commands.registry import CommandContext
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer

    OpenSession = Callable[..., AbstractAsyncContextManager[Session]]


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


STARTUP = (
    "zen.settings.loading",
    "zen.agent.session",
    "zen.ui.render",
    "zen.ui.confirm",
    "zen.ui.commands.dispatch",
    "zen.ui.runs",
    "zen.settings.extensions",
    "rich.console",
    "rich.text",
)
"""What opening the session and printing its first lines import: loaded in the background
once the prompt is drawn (with the opener's own `imports`), then the first answer's."""


class Shell:
    """The REPL. Its prompt comes first: the session (config validation, store, git facts,
    MCP servers) opens in a task while the user types, and the first line waits for it."""

    out: LogRenderer
    approver: ShellApprover

    def __init__(
        self,
        load_config: Callable[[], Config],
        shown: dict[str, str],
        root: Path,
        caps: term.Caps,
        open_session: OpenSession,
        *,
        simple: bool,
        yes: bool,
    ) -> None:
        self.load_config = load_config
        self.shown = shown
        self.root = root
        self.caps = caps
        self.yes = yes
        self.open_session = open_session
        self.imports: tuple[str, ...] = ()
        self.simple = simple or not caps.live or not term.is_tty(sys.stdin)
        self.reader: Reader | None = None
        self.session: Session | None = None
        self.ctx: CommandContext | None = None
        self.user_commands: list[tuple[str, str]] = []
        """(name, summary) of the user's commands and skills, for completion."""
        self.running: asyncio.Task[Any] | None = None
        self.reading = False
        """A blocking input() is waiting: Ctrl-C must interrupt it."""
        self.keys: term.KeyWatcher | None = None
        """Watches for Esc while a run goes on."""
        self.typeahead = ""
        """Keys typed during a run: the next prompt starts with them."""
        self.bang_outputs: list[str] = []
        """`!cmd` runs not yet sent: they go before the next message."""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._imported = asyncio.Event()
        """Set from the preload thread once STARTUP is imported."""
        self._opened = asyncio.Event()
        self._closing = asyncio.Event()
        self._bannered = False
        self._greeting: list[Callable[[], None]] = []
        """What the session's opening said, printed when the first line comes (`_greet`)."""
        self._failed: BaseException | None = None
        """Why the session could not open (it ends the prompt that waits)."""

    # -- start-up -------------------------------------------------------------------------

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

    async def _hold_session(
        self, *, resume: str | None, continue_last: bool, keep: frozenset[str]
    ) -> None:
        """Open the session once the preload has imported what that takes, keep it open until
        the shell ends, then close it (MCP servers stop, the record is closed)."""
        from zen.ui.commands.notes import offered_notes
        from zen.ui.commands.sessions import resumed
        from zen.ui.confirm import ShellApprover
        from zen.ui.render import LogRenderer

        await self._imported.wait()
        config = self.load_config()
        self.out = LogRenderer(term.make_console(self.caps), self.caps)
        self.approver = ShellApprover(self.out, self._ask, yes=self.yes, interrupt=self.cancel_run)
        async with self.open_session(
            config,
            self.root,
            warn=self._warn,
            resume=resume or None,
            continue_last=continue_last,
            keep=keep,
        ) as session:
            self.session = session
            self.approver.always = session.always  # saved with the session, restored too
            try:
                self.ctx = ctx = self._command_context(session)
                completer = getattr(self.reader, "completer", None)
                if completer is not None:
                    completer.workspace, completer.user = session.workspace, self.user_commands
                greeting = self._greeting
                if not self._bannered:
                    greeting.append(self._banner)
                greeting.append(self._report_tightened)
                starting = session.mcp.starting() if session.mcp is not None else []
                if starting:  # they start in the background; failures are warned later
                    count = len(starting)
                    text = f"starting {count} MCP server{'s' if count > 1 else ''}…"
                    greeting.append(lambda: self.out.info(text, "dim"))
                if session.history:
                    greeting.append(lambda: resumed(ctx))
                elif resume != "":
                    greeting.append(lambda: offered_notes(ctx))
                self._opened.set()
                await self._closing.wait()
            finally:
                self.session = None  # Ctrl-C while servers stop must still work

    def _opening_ended(self, opening: asyncio.Task[None]) -> None:
        """The session could not open: end the prompt waiting for a line with the reason."""
        if opening.cancelled() or opening.exception() is None:
            return
        self._failed = opening.exception()
        abort = getattr(self.reader, "abort", None)
        if abort is not None:
            abort(self._failed)

    async def _ready(self, opening: asyncio.Task[None]) -> CommandContext:
        """The command context, once the session is open; its error if it cannot open."""
        if not self._opened.is_set():
            opened = asyncio.ensure_future(self._opened.wait())
            try:
                await asyncio.wait({opened, opening}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                opened.cancel()
            if not self._opened.is_set():
                opening.result()  # raises why
                raise RuntimeError("the session ended before it opened")
        self._greet()
        assert self.ctx is not None
        return self.ctx

    def _greet(self) -> None:
        """What opening the session had to say (notes, warnings, MCP servers starting), once
        the first line is in: printed while the prompt waited, it would redraw the prompt
        under the user's typing."""
        greeting, self._greeting = self._greeting, []
        for say in greeting:
            say()

    def start_preload(self) -> None:
        """Called once the prompt is on screen: import what opening the session takes, then
        what the first answer takes, in a thread."""
        preload((STARTUP + self.imports, self._imported_soon), (FIRST_ANSWER, self.warm_soon))

    def _imported_soon(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the shell has already ended
                self._loop.call_soon_threadsafe(self._imported.set)

    def _command_context(self, session: Session) -> CommandContext:
        """Built-in commands plus the user's commands and skills (a trusted project's too)."""
        from zen.settings.extensions import load_commands
        from zen.ui.commands.dispatch import user_listing
        from zen.ui.commands.registry import CommandContext

        root, trusted = session.workspace.root, session.config.project_trusted
        commands = {c.name: c for c in load_commands(root, trusted)}
        skills = {s.name: s for s in session.skills}
        ctx = CommandContext(session, self.out, self.approver, commands=commands, skills=skills)
        self.user_commands = user_listing(ctx)
        return ctx

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

    def cancel_run(self) -> None:
        if self.running is not None:
            self.running.cancel()

    # -- input ----------------------------------------------------------------------------

    def _make_reader(self) -> Reader:
        if self.simple:
            return PlainReader(self)
        try:
            return PromptReader(self)
        except Exception as e:  # NoConsoleScreenBufferError (mintty), odd consoles
            self.simple = True
            self._say(f"(plain input: the console cannot run the full prompt: {e})")
            return PlainReader(self)

    async def _read(self, prompt: str) -> str:
        return await self._input(prompt, question=False)

    async def _ask(self, question: str) -> str:
        return await self._input(question, question=True)

    async def _input(self, text: str, *, question: bool) -> str:
        try:
            return await self._input_once(text, question=question)
        finally:
            if question and self.keys is not None and self.running is not None:
                self.keys.start()

    async def _input_once(self, text: str, *, question: bool) -> str:
        """A line from the reader; if prompt-toolkit fails at run time, plain input() from now
        on, and the session goes on."""
        assert self.reader is not None
        keys = self.keys if question else None
        if keys is not None:  # the question reads stdin itself
            keys.stop()
        try:
            return await (self.reader.ask(text) if question else self.reader.read(text))
        except (KeyboardInterrupt, EOFError):
            raise
        except Exception as e:
            if isinstance(self.reader, PlainReader) or e is self._failed:
                raise
            self.simple = True
            self.reader = PlainReader(self)
            self.out.info(f"(plain input from now on: {type(e).__name__}: {e})", "dim")
            return await (self.reader.ask(text) if question else self.reader.read(text))

    @property
    def eof_key(self) -> str:
        """End of input at plain input() on a Windows console is Ctrl-Z then Enter (Ctrl-D
        would arrive as a ^D character); prompt-toolkit takes Ctrl-D everywhere."""
        return "Ctrl-Z then Enter" if self.simple and sys.platform == "win32" else "Ctrl-D"

    def _prompt(self) -> str:
        session = self.session
        if session is None:  # still opening: what the config says
            state, collaboration = self.shown["mode"], self.shown["collaboration"]
            yes_all = self.yes
        else:
            state, collaboration = session.mode, session.collaboration
            yes_all = self.approver.yes_all
        if state == "dual":
            state += f"·{collaboration}"
        if yes_all:
            state += "·yes"
        return f"zen {state}"

    def _banner(self) -> None:
        """The first line; before the session opens it comes from `shown` and is written
        without rich (which the preload imports after the prompt)."""
        self._bannered = True
        model, provider = self.shown["model"], self.shown.get("provider")
        asks = bool(self.shown.get("asks"))
        if self.session is not None:
            try:
                settings = self.session.settings()
                model = settings.model
                provider = settings.provider if settings.default_model else None
            except Exception:  # shown at the first task instead
                model, provider = "?", None
        if provider and asks:  # the endpoint lookup may replace it at the first message
            model += f" ({provider}'s default, or the one model the server serves)"
        elif provider:
            model += f" ({provider}'s default; /model to change)"
        self._say(
            f"zen {__version__} · {self.root} · {model} · /help for commands, {self.eof_key} "
            "to exit"
        )

    def _say(self, text: str, style: str = "dim") -> None:
        """A line from the shell (`dim` or `yellow`), with or without the log renderer."""
        out = getattr(self, "out", None)
        if out is not None:
            out.info(text, style)
            return
        text = terminal_safe(text)
        sgr = "33" if style == "yellow" and self.caps.colour else "2"
        print(f"\x1b[{sgr}m{text}\x1b[0m" if self.caps.styled else text, flush=True)

    def _report_tightened(self) -> None:
        """Before the prompt for what the start-up narrowed (it must not redraw the prompt
        unasked); once the session is open for what opening it narrowed."""
        from zen.base import paths

        for path in paths.tightened:
            self._say(f"note: {path} was readable by others; it is now private to you", "yellow")
        paths.tightened.clear()

    def _warn(self, message: str) -> None:
        if self._opened.is_set():
            self.out.info(f"warning: {message}", "yellow")
        else:  # while the session opens: with its greeting
            self._greeting.append(lambda: self.out.info(f"warning: {message}", "yellow"))

    def warm_soon(self) -> None:
        """From the preload thread: build the model client on the loop while the user types
        (its TLS context alone is ~40 ms), not in the first message."""
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the shell has already ended
                self._loop.call_soon_threadsafe(lambda: asyncio.ensure_future(self._warm()))

    async def _warm(self) -> None:
        """Once the session is open: its model client, and the tool schemas' first pass
        through pydantic's JSON schema generator."""
        await self._opened.wait()
        session = self.session
        if session is not None:
            with contextlib.suppress(Exception):  # e.g. a role without a key: the task says so
                session.warm()

    def _on_sigint(self, signum: int, frame: FrameType | None) -> None:
        """Ctrl-C outside prompt-toolkit's raw mode (which reads it as a key): interrupt a
        blocking input(), else cancel the run, else stop a start-up that hangs. One arriving
        just after a run ended (a second press) is dropped: it must not end the shell."""
        task = self.running
        if self.reading or self.session is None:
            raise KeyboardInterrupt
        if task is not None and not task.done() and self._loop:
            self._loop.call_soon_threadsafe(task.cancel)

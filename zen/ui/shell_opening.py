"""The shell's start-up: the session opens in a task while the user types (issue 20), and
what opening it said is held until the first line (`_greet`), so it never redraws the prompt
under the user's typing. The preload that readies it is `ShellState`'s.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from zen.ui import term
from zen.ui.shell_input import ShellInput

if TYPE_CHECKING:
    from zen.agent.session import Session
    from zen.ui.commands.registry import CommandContext


class ShellOpening(ShellInput):
    """Opening the session beside the prompt, holding it open, and closing it at the end."""

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

"""The shell's side that talks to the user: which reader reads a line (prompt-toolkit, or
input() when the console cannot drive it, falling back at run time too), the prompt, the
banner, and the shell's own dim or yellow lines (with or without the log renderer).
"""

from __future__ import annotations

import sys

from zen import __version__
from zen.base.terminal_safe import terminal_safe
from zen.ui.readers import PlainReader, PromptReader, Reader
from zen.ui.shell_state import ShellState


class ShellInput(ShellState):
    """Reading lines and answers, and saying the shell's own lines."""

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

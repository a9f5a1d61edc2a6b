"""How the shell reads a line: prompt-toolkit (history, key bindings, completion) or input().

The REPL (zen/ui/shell.py) asks a `Reader` for the next line or for the answer to a question;
which one it holds depends on the terminal: `--simple`, TERM=dumb, pipes and consoles
prompt-toolkit cannot drive get `PlainReader`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from zen.base.paths import private_file, zen_home
from zen.tools.workspace import Workspace
from zen.ui import term
from zen.ui.mentions import ShellCompleter

if TYPE_CHECKING:
    from prompt_toolkit.formatted_text import StyleAndTextTuples


class ReaderHost(Protocol):
    """What a reader needs from the shell that holds it (zen/ui/shell.py's `Shell`)."""

    caps: term.Caps
    root: Path
    reading: bool
    """A blocking input() is waiting: Ctrl-C must interrupt it."""
    typeahead: str
    """Keys typed during a run: the next prompt starts with them."""

    def start_preload(self) -> None: ...


class Reader(Protocol):
    async def read(self, prompt: str) -> str: ...

    async def ask(self, question: str) -> str: ...


class PlainReader:
    """input(): for --simple, pipes, TERM=dumb and consoles prompt-toolkit cannot drive.

    A line ending in a backslash continues on the next one.
    """

    def __init__(self, shell: ReaderHost) -> None:
        self.shell = shell
        if shell.caps.live and term.is_tty(sys.stdin):
            use_readline()

    async def read(self, prompt: str) -> str:
        lines = [self._input(f"{prompt} › ")]
        while lines[-1].endswith("\\"):
            lines[-1] = lines[-1][:-1]
            lines.append(self._input("… "))
        return "\n".join(lines)

    async def ask(self, question: str) -> str:
        return self._input(question)

    def _input(self, prompt: str) -> str:
        sys.stdout.flush()
        self.shell.start_preload()  # input() shows the prompt at once, waits outside the GIL
        self.shell.reading = True
        try:
            line = input(prompt)
        except KeyboardInterrupt:
            print(flush=True)  # the terminal echoed ^C: what comes next starts a new line
            raise
        finally:
            self.shell.reading = False
        return end_of_input(line)


def end_of_input(line: str) -> str:
    """A line that starts with ^D (U+0004: what a Windows console gives for Ctrl-D) ends the
    input like Ctrl-Z Enter; elsewhere the character is dropped: it never reaches the model."""
    if line.lstrip(" \t").startswith("\x04"):
        raise EOFError
    return line.replace("\x04", "")


def use_readline() -> None:
    """Line editing and Up/Down for plain input(), where the platform has readline."""
    try:
        import readline
    except ImportError:  # Windows without pyreadline: input() as it is
        return
    readline.parse_and_bind("set enable-bracketed-paste off")


class PromptReader:
    """prompt-toolkit: history, multi-line input, completion; output above it is patched."""

    def __init__(self, shell: ReaderHost) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory, History, InMemoryHistory
        from prompt_toolkit.key_binding import KeyBindings
        from prompt_toolkit.styles import Style

        self.shell = shell
        bindings = KeyBindings()

        @bindings.add("c-c")
        def _interrupt(event: Any) -> None:
            buffer = event.app.current_buffer
            if buffer.text:
                buffer.reset()
            else:
                event.app.exit(exception=KeyboardInterrupt, style="class:aborting")

        @bindings.add("escape", "enter")
        def _newline(event: Any) -> None:
            event.current_buffer.insert_text("\n")

        history: History
        try:
            history = FileHistory(str(private_file(history_path(shell.root))))
        except OSError:
            history = InMemoryHistory()
        self.completer = ShellCompleter(Workspace(shell.root))
        """The session's workspace (with its extra roots) replaces this one once it is open."""
        self.style = Style.from_dict({"state": "bold cyan", "arrow": "cyan", "question": ""})
        self.prompt: PromptSession[str] = PromptSession(
            history=history,
            completer=self.completer,
            complete_while_typing=True,
            reserve_space_for_menu=6,
            key_bindings=bindings,
            multiline=False,
            prompt_continuation=lambda width, line, wrap: "… ".rjust(width),
            style=self.style,
            include_default_pygments_style=False,
        )
        self.prompt.app.after_render += lambda _app: shell.start_preload()  # prompt drawn
        self.confirm: Any = None

    def abort(self, error: BaseException) -> None:
        """End the prompt now with `error` (the session could not open)."""
        if self.prompt.app.is_running:
            self.prompt.app.exit(exception=error)

    async def read(self, prompt: str) -> str:
        from prompt_toolkit.patch_stdout import patch_stdout

        message: StyleAndTextTuples = [("class:state", prompt), ("class:arrow", " › ")]
        typed, self.shell.typeahead = self.shell.typeahead, ""
        with patch_stdout(raw=True):
            return await self.prompt.prompt_async(message, handle_sigint=False, default=typed)

    async def ask(self, question: str) -> str:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.patch_stdout import patch_stdout

        if self.confirm is None:
            self.confirm = PromptSession(style=self.style, include_default_pygments_style=False)
        with patch_stdout(raw=True):
            return await self.confirm.prompt_async(
                [("class:question", question)], handle_sigint=False
            )


def history_path(workspace: Path) -> Path:
    """~/.zen/history/<workspace hash>: what was typed in this workspace (pasted tokens too),
    so private to the user; Up recalls this project's prompts, not every project's."""
    import hashlib

    digest = hashlib.sha256(os.fsencode(workspace)).hexdigest()[:16]
    return zen_home() / "history" / f"{workspace.name[:40] or 'root'}-{digest}"

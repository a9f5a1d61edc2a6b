"""What every part of the shell shares: its settings, the session once open, the reader, the
run going on, and the events that order start-up. The parts (`shell_input`, `shell_opening`,
`shell`) each add one job on top, in that order: each uses only what is below it.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zen.ui import term
from zen.ui.preload import FIRST_ANSWER, preload
from zen.ui.readers import Reader

if TYPE_CHECKING:
    from collections.abc import Callable
    from contextlib import AbstractAsyncContextManager

    from zen.agent.session import Session
    from zen.settings.schema import Config
    from zen.ui.commands.registry import CommandContext
    from zen.ui.confirm import ShellApprover
    from zen.ui.render import LogRenderer

    OpenSession = Callable[..., AbstractAsyncContextManager[Session]]


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


class ShellState:
    """The shell's state, and the background work that readies it: the preload (what opening
    the session imports, then the first answer's) and the model client warmed meanwhile."""

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

    def cancel_run(self) -> None:
        if self.running is not None:
            self.running.cancel()

    def start_preload(self) -> None:
        """Called once the prompt is on screen: import what opening the session takes, then
        what the first answer takes, in a thread."""
        preload((STARTUP + self.imports, self._imported_soon), (FIRST_ANSWER, self.warm_soon))

    def _imported_soon(self) -> None:
        if self._loop is not None:
            with contextlib.suppress(RuntimeError):  # the shell has already ended
                self._loop.call_soon_threadsafe(self._imported.set)

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

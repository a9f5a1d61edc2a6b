"""One open zen session per ACP session, each living in a task of its own.

`open_session` is an async context manager whose MCP servers and checkpoint work hold cancel
scopes and tasks: it must be entered and left in the same task. ACP requests each run in a
task of their own, so the session is opened by a host task that keeps it open until the
session is closed (or the connection ends), and requests use the session it hands out.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zen.app import open_session
from zen.settings.schema import Config


@dataclass
class Host:
    """A running zen session and what the ACP side keeps about it."""

    id: str
    root: Path
    session: Any = None
    notices: list[str] = field(default_factory=list)
    """Warnings from opening it (skipped project inputs, MCP servers that failed): the next
    prompt shows them."""
    running: asyncio.Task[Any] | None = None
    cancelled: bool = False
    _task: asyncio.Task[None] | None = None
    _close: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self, config: Config, *, resume: str | None = None) -> Any:
        """Open the session in a task of its own; its errors (SessionError, ConfigError)
        raise here."""
        ready: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._task = asyncio.ensure_future(self._hold(config, resume, ready))
        try:
            self.session = await ready
        except BaseException:
            await self.close()
            raise
        return self.session

    async def _hold(self, config: Config, resume: str | None, ready: asyncio.Future[Any]) -> None:
        try:
            async with open_session(
                config, self.root, warn=self.notices.append, resume=resume
            ) as session:
                ready.set_result(session)
                await self._close.wait()
                if self.running is not None:
                    self.running.cancel()
                    with contextlib.suppress(BaseException):
                        await self.running
                with contextlib.suppress(Exception):
                    session.discard_if_unused()  # named but never used
        except Exception as e:
            if not ready.done():
                ready.set_exception(e)
        finally:
            if not ready.done():
                ready.cancel()

    async def close(self) -> None:
        self._close.set()
        if self._task is not None:
            with contextlib.suppress(BaseException):
                await self._task

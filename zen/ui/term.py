"""What the terminal can do, decided once at start: colours, an in-place live line, VT mode.

Windows: nothing POSIX-only is imported at module level (termios is imported inside
`KeyWatcher` and only off win32). On win32, `enable_vt()` switches the console to VT
processing once, so rich emits ANSI instead of calling the Win32 console API (whose colour
calls would land on the wrong text when output goes through prompt-toolkit's `patch_stdout`).
Where VT cannot be enabled (pre-Windows-10 conhost) the output is plain: no colours and no
escape sequences at all; the live line is then overwritten with `\\r` and spaces.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from rich.console import Console

ENABLE_VIRTUAL_TERMINAL_PROCESSING = 0x0004
STD_OUTPUT_HANDLE = -11


@dataclass(frozen=True)
class Caps:
    """How output may look on this stream."""

    styled: bool
    """Bold/dim and escape codes: a terminal, not TERM=dumb, VT available."""
    live: bool
    """A partial line may be rewritten in place with a carriage return."""
    vt: bool
    """Erase-line (`ESC[2K`) works; otherwise the live line is blanked with spaces."""
    colour: bool = True
    """False under NO_COLOR: the same layout and emphasis, no colours."""


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def detect(stream: TextIO | None = None, env: dict[str, str] | None = None) -> Caps:
    """Decide once; on Windows this is where VT processing gets switched on."""
    stream = stream or sys.stdout
    env = dict(os.environ) if env is None else env
    tty = is_tty(stream)
    dumb = env.get("TERM", "").lower() == "dumb"
    vt = tty and not dumb and enable_vt()
    return Caps(styled=vt, live=tty and not dumb, vt=vt, colour=not env.get("NO_COLOR"))


_vt_result: bool | None = None


def enable_vt() -> bool:
    """Turn on ENABLE_VIRTUAL_TERMINAL_PROCESSING for stdout (win32); True elsewhere.

    Done once per process: prompt-toolkit's Windows10_Output only enables VT for the length
    of its own flush and then restores the previous mode, so rich would otherwise see a legacy
    console. Fails (returns False) on pre-Windows-10 conhost and when stdout is no console.
    """
    global _vt_result
    if _vt_result is None:
        _vt_result = _enable_vt_win32() if sys.platform == "win32" else True
    return _vt_result


def _enable_vt_win32() -> bool:
    try:
        import ctypes
        from ctypes import wintypes

        kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
        handle = kernel32.GetStdHandle(STD_OUTPUT_HANDLE)
        mode = wintypes.DWORD()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False  # not a console: mintty pipe, redirected output
        if mode.value & ENABLE_VIRTUAL_TERMINAL_PROCESSING:
            return True
        return bool(
            kernel32.SetConsoleMode(handle, mode.value | ENABLE_VIRTUAL_TERMINAL_PROCESSING)
        )
    except (AttributeError, OSError, ValueError):
        return False


def make_console(caps: Caps, file: TextIO | None = None, width: int | None = None) -> Console:
    """A rich Console that follows `caps`; `file=None` resolves sys.stdout at every print,
    so output still goes through prompt-toolkit's proxy while a prompt is shown."""
    from rich.console import Console

    return Console(
        file=file,
        force_terminal=caps.styled,
        color_system="auto" if caps.styled else None,
        no_color=not (caps.styled and caps.colour),
        legacy_windows=False,
        highlight=False,
        markup=False,
        emoji=False,
        width=width,
    )


KEY_SEQUENCE = re.compile(r"\x1b(?:\[[0-9;?]*[ -/]*[@-~]|O.|.)?")


class KeyWatcher:
    """While an agent runs: Esc alone interrupts it (like Ctrl-C); other keys are not echoed
    into the log but kept (`typed`) for the next prompt. POSIX terminals only.

    The terminal goes to cbreak mode (no echo, no line buffering; ISIG stays, so Ctrl-C still
    raises SIGINT) and stdin is watched on the running event loop. `stop()` before anything
    else reads stdin (a confirmation question), `start()` again after.
    """

    def __init__(self, on_escape: Callable[[], None], stream: TextIO | None = None) -> None:
        self.on_escape = on_escape
        self.stream = stream or sys.stdin
        self.typed: list[str] = []
        self._fd: int | None = None
        self._old: list[Any] | None = None  # termios attributes, set with _fd

    def start(self) -> None:
        if sys.platform == "win32" or self._fd is not None or not is_tty(self.stream):
            return
        import asyncio
        import termios

        fd = self.stream.fileno()
        try:
            old = termios.tcgetattr(fd)
        except termios.error:
            return
        new = list(old)
        new[3] = new[3] & ~(termios.ECHO | termios.ICANON)
        new[6] = list(old[6])
        new[6][termios.VMIN] = 1
        new[6][termios.VTIME] = 0
        try:
            termios.tcsetattr(fd, termios.TCSANOW, new)
            asyncio.get_running_loop().add_reader(fd, self._read)
        except (termios.error, RuntimeError, NotImplementedError, ValueError, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, old)
            return
        self._fd, self._old = fd, old

    def stop(self) -> None:
        if self._fd is None or self._old is None:
            return
        import asyncio
        import termios

        fd, self._fd = self._fd, None
        try:
            asyncio.get_running_loop().remove_reader(fd)
        except (RuntimeError, ValueError, OSError):
            pass
        try:
            termios.tcsetattr(fd, termios.TCSANOW, self._old)
        except termios.error:
            pass

    def _read(self) -> None:
        if self._fd is None:
            return
        try:
            data = os.read(self._fd, 1024)
        except OSError:
            return
        if data == b"\x1b":  # Esc alone; arrows and the like arrive as whole sequences
            self.on_escape()
            return
        text = KEY_SEQUENCE.sub("", data.decode("utf-8", "replace"))
        self.typed.append("".join(ch for ch in text if ch.isprintable()))

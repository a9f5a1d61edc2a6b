"""Windows console control events end zen like Ctrl-C: Ctrl-Break, the console window closing,
logoff and shutdown (zen/ui/stop_signals.py). The handler's logic runs on every OS; the real
Ctrl-Break needs Windows."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import text
from zen.base import exits
from zen.ui.stop_signals import StopSignals


async def test_closing_the_console_cancels_and_holds_windows_back_until_cleanup() -> None:
    loop = asyncio.get_running_loop()
    stop = StopSignals()
    stopped = asyncio.Event()
    answers: list[bool] = []
    handler = threading.Thread(  # Windows calls the handler on a thread of its own
        target=lambda: answers.append(stop.console_event(2, loop, stopped.set))
    )
    handler.start()
    await asyncio.wait_for(stopped.wait(), 5)
    await asyncio.sleep(0.2)
    assert handler.is_alive()  # returning would let Windows end zen before it cleaned up
    stop.remove()  # the cleanup is done
    await asyncio.to_thread(handler.join, 5)
    assert answers == [True]
    assert (stop.name, stop.exit_code) == ("the console window closing", exits.HANGUP)


async def test_ctrl_break_cancels_at_once_and_ctrl_c_is_left_to_python() -> None:
    loop = asyncio.get_running_loop()
    stop = StopSignals()
    calls: list[str] = []
    assert stop.console_event(0, loop, lambda: calls.append("c")) is False  # CTRL_C_EVENT
    assert stop.console_event(1, loop, lambda: calls.append("break")) is True
    assert stop.console_event(6, loop, lambda: calls.append("again")) is True  # first one wins
    stop.remove()
    await asyncio.sleep(0.05)
    assert calls == ["break"]
    assert (stop.name, stop.exit_code) == ("Ctrl-Break", exits.BREAK)


def under_wine() -> bool:
    import ctypes

    try:
        return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        return False


windows = pytest.mark.skipif(sys.platform != "win32", reason="a Windows console API")


@windows
async def test_the_console_handler_is_registered_and_removed() -> None:
    stop = StopSignals()
    stop.install(lambda: None)
    try:
        assert stop._console is not None  # SetConsoleCtrlHandler accepted it
    finally:
        stop.remove()
    assert stop._console is None


@windows
@pytest.mark.skipif(
    sys.platform == "win32" and under_wine(),
    reason="Wine cannot send console control events (GenerateConsoleCtrlEvent: invalid access)",
)
@pytest.mark.parametrize("output_format", ["text", "json"])
def test_ctrl_break_stops_a_run_cleanly(
    fake_llm: Any, home: Path, project: Path, output_format: str
) -> None:
    fake = fake_llm([text("late", delay=30)])
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "go", "--output-format", output_format]
        + ["--base-url", fake.base_url, "--api-key", "k"],
        cwd=project,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=zen_env(home),
        creationflags=subprocess.CREATE_NEW_PROCESS_GROUP,  # type: ignore[attr-defined]
    )
    try:
        deadline = time.monotonic() + 30
        while not fake.requests and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake.requests, "zen never asked the model"
        os.kill(proc.pid, signal.CTRL_BREAK_EVENT)  # type: ignore[attr-defined]
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == exits.BREAK, err
    assert "stopped by Ctrl-Break" in err.decode("utf-8")
    if output_format == "json":
        assert json.loads(out)["stop"] == "interrupted"

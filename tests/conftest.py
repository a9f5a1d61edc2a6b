"""Shared fixtures: a fake model server on 127.0.0.1 and a way to run `zen` as a user would."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tests.fakes.server import FakeLLM, fake_servers
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import ToolContext
from zen.tools.workspace import Workspace

collect_ignore = ["bench_solutions"]
"""Reference solutions of zen bench's tasks: data for test_bench_tasks.py, not tests."""

ROOT = Path(__file__).resolve().parent.parent
T = TypeVar("T")

# A suite started in the background by a non-interactive shell inherits SIGINT ignored, and so
# would every zen it starts (an inherited SIG_IGN is kept, by Python and by zen): the tests that
# send SIGINT need the default back. Tests of the ignored case set it in the child themselves.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# The same for SIGHUP under `nohup`: the SIGHUP tests need its default back.
if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _under_wine() -> bool:
    if sys.platform != "win32":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")


WINE = _under_wine()
"""Windows under Wine (the winpy harness, dev/winpy): for skips of what Wine does differently
from Windows, each naming Wine in its reason."""


E2E_FIXTURES = {"run_zen", "shell", "http_server"}
"""Fixtures that start `zen` (on a pipe, a pty) or a server as a process: a test using one
(directly or through another fixture) is end to end. A module-scoped server fixture starts
in whichever test comes first, so only the fixture can say it."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """End-to-end tests marked (`-m 'not e2e'` is the fast tier); on Windows, skip what cannot
    apply there, each with its reason (tests/windows_skips.py)."""
    for item in items:
        if E2E_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
    if sys.platform != "win32":
        return
    from tests import windows_skips

    symlinks = windows_skips._symlinks_work()
    for item in items:
        why = windows_skips.reason(item, symlinks)
        if why:
            item.add_marker(pytest.mark.skip(reason=why))


_BIN = Path(sys.executable).parent
_PYTHON = os.path.realpath(sys.executable)
_INTERPRETER = re.compile(r"python[0-9.]*(\.exe)?")
_started: list[str] | None = None
"""While a test not marked e2e runs: the processes it started that make it end to end."""


def _watch_processes(event: str, args: tuple[Any, ...]) -> None:
    """An audit hook: a Python child (zen, a server, a script), a program of this environment's
    (an MCP server's console script) or a pty is what makes a test end to end."""
    if _started is None:
        return
    if event == "os.forkpty":
        _started.append("a pty")
    elif event == "subprocess.Popen":
        program, raw = args[0], args[1]
        if isinstance(raw, list | tuple):
            argv = [os.fsdecode(a) for a in raw]
        else:  # Windows audits one command line, and often no executable
            argv = os.fsdecode(raw).split() if isinstance(raw, str | bytes) else []
        first = os.fsdecode(program) if program is not None else (argv[0] if argv else "")
        if first and (any(_is_python(a) for a in [first, *argv[:6]]) or _is_ours(first)):
            _started.append(" ".join(argv)[:120])


def _is_python(program: str) -> bool:
    """A Python interpreter: this one, or any other (run as another user, `setpriv ... python`)."""
    return os.path.realpath(program) == _PYTHON or bool(_INTERPRETER.fullmatch(Path(program).name))


def _is_ours(program: Any) -> bool:
    """A program of the test environment (an MCP server's console script; not ripgrep)."""
    path = Path(os.fsdecode(program))
    if os.sep not in str(path):
        path = Path(shutil.which(str(path)) or path)
    return path.parent == _BIN and path.name not in ("rg", "rg.exe")


sys.addaudithook(_watch_processes)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    global _started
    _started = None if item.get_closest_marker("e2e") else []


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """A test that starts zen, a server or a pty must be marked e2e, or the fast tier would
    not be fast (and a mark that lies would go unnoticed)."""
    global _started
    result = yield  # a failing test fails for its own reason first
    started, _started = _started, None
    if started:
        pytest.fail(f"it started {started[0]!r}: mark it @pytest.mark.e2e", pytrace=False)
    return result


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item: pytest.Item) -> None:
    global _started
    _started = None


@pytest.fixture
def fake_llm() -> Iterator[Callable[..., FakeLLM]]:
    """`fake = fake_llm([text("hi")])`: a started server, stopped after the test."""
    with fake_servers() as start:
        yield start


_open_clients: list[Any] = []


def closing(client: T) -> T:
    """`client` (a ChatClient, or a Session holding some) is closed when the test ends (a test
    module that uses this says `pytestmark = pytest.mark.usefixtures("close_clients")`): pooled
    connections must not outlive the test's event loop (unclosed sockets: ResourceWarning)."""
    _open_clients.append(client)
    return client


@pytest.fixture
async def close_clients() -> AsyncIterator[None]:
    yield
    while _open_clients:
        await _open_clients.pop().aclose()


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty HOME, so no user config or history leaks in."""
    path = tmp_path / "home"
    path.mkdir()
    return path


@pytest.fixture
def two_models(home: Path) -> Path:
    """Dual mode's orchestrated paths: the Coder on a model of its own (with one model for
    every role, triage starts a task direct instead: `zen/agent/handover.py`)."""
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("dual_agent:\n  coder: {model: fake-coder}\n")
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = tmp_path / "project"
    path.mkdir()
    return path


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    """A tool context on an empty workspace, with fresh stores: what one agent's tools get."""
    root = tmp_path / "ws"
    root.mkdir()
    return ToolContext(Workspace(root), "main", ReadTracker(), MemoStore(), TodoStore())


def zen_env(home: Path, **extra: str) -> dict[str, str]:
    """A clean environment: no provider keys from the developer's shell."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ZEN_", "OPENAI_", "DEEPSEEK_", "MOONSHOT_"))
    }
    env.update(HOME=str(home), USERPROFILE=str(home), PYTHONPATH=str(ROOT), NO_COLOR="1", **extra)
    return env


@dataclass
class Done:
    code: int
    out: str
    err: str


@pytest.fixture
def run_zen(home: Path, project: Path) -> Callable[..., Done]:
    """Run `python -m zen ARGS` in `project` as a subprocess, the way a user's shell would."""

    def run(
        *args: str,
        stdin: str = "",
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 60,
    ) -> Done:
        done = subprocess.run(
            [sys.executable, "-m", "zen", *args],
            cwd=cwd or project,
            input=stdin,
            capture_output=True,
            encoding="utf-8",  # what zen writes and reads on pipes, whatever the code page
            errors="replace",
            env={**zen_env(home), **(env or {})},
            timeout=timeout,
        )
        return Done(done.returncode, done.stdout, done.stderr)

    return run


def reap(proc: subprocess.Popen[Any]) -> None:
    """End a process a test started: kill it if it still runs, wait, close our pipe ends
    (never read: a killed zen's children may hold them open)."""
    if proc.poll() is None:
        proc.kill()
    proc.wait(timeout=30)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


@pytest.fixture
def var_tmp() -> Iterator[Path]:
    """A path outside /tmp (a sandboxed command's /tmp is its own) that no other run shares,
    removed afterwards: a leftover from an earlier run must not decide a test."""
    path = Path("/var/tmp") / f"zen-test-{uuid.uuid4().hex}"
    yield path
    path.unlink(missing_ok=True)

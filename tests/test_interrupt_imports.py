"""Ctrl-C while zen is still importing (the first seconds of a command on a loaded machine)
ends it with exit 130 and one line, never a traceback (issue 40, item 1).

As in `test_prompt_imports.py`, an audit hook finds the import phase: when the watched module
starts to import, it writes a mark and waits, so the signal lands inside that import however
loaded the machine is, never after a fixed delay.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import reap, zen_env

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child is POSIX's"),
]

MARK = b"[[importing]]"


def watcher(module: str) -> str:
    return textwrap.dedent(f"""
        import os, sys, time
        def hook(event, args):
            if event == "import" and args[0] == {module!r}:
                os.write(2, {MARK!r})
                time.sleep(60)  # Ctrl-C arrives here, inside the import
        sys.addaudithook(hook)
        import runpy
        runpy.run_module("zen", run_name="__main__")
    """)


SERVER = ["--base-url", "http://127.0.0.1:9/v1", "--api-key", "k", "--model", "m"]


def interrupted(
    home: Path, project: Path, module: str, argv: list[str]
) -> tuple[int, bytes, bytes]:
    """Run zen, send SIGINT once `module` starts importing; (exit code, stdout, stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", watcher(module), *argv],
        cwd=project,
        env=zen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stderr is not None
        seen = b""
        while MARK not in seen:
            chunk = proc.stderr.read1(4096)  # type: ignore[attr-defined]
            assert chunk, f"{module} was never imported: {seen!r}"
            seen += chunk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        reap(proc)
    return proc.returncode, out, seen + err


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("zen.cli.entry", ["-p", "go", *SERVER]),  # zen itself loading
        ("zen.cli.start", ["-p", "go", *SERVER]),
        ("pydantic", ["-p", "go", *SERVER]),  # the config, inside `start`
        ("sqlite3", ["sessions", "list"]),
    ],
)
def test_ctrl_c_during_imports_exits_130_without_a_traceback(
    home: Path, project: Path, module: str, argv: list[str]
) -> None:
    code, _, err = interrupted(home, project, module, argv)
    assert b"Traceback" not in err and b"KeyboardInterrupt" not in err, err.decode()
    assert code == 130, err.decode()


def test_json_still_ends_with_its_result(home: Path, project: Path) -> None:
    argv = ["-p", "go", "--output-format", "json", *SERVER]
    code, out, err = interrupted(home, project, "pydantic", argv)
    assert code == 130 and b"Traceback" not in err, err.decode()
    result = json.loads(out)
    assert result["stop"] == "interrupted" and result["is_error"]

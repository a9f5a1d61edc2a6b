"""Startup figures of the shell (issues 20, 13 item 7), measured in a pty as a person sees them.

  (a) time to a visible prompt: `zen --single` against a bare `PromptSession().prompt()`
      script, interleaved in one run (medians of 7), so both see the same machine load;
  (b) first-message vs second-message latency in one shell: Enter to the next prompt, against
      the fake server (it answers at once with a little markdown), medians over 7 shells;
      each message is sent 1 s after the prompt appears (a person typing it).

No network: the fake OpenAI-compatible server runs on 127.0.0.1, HOME is a temporary folder.
Run: python dev/bench/prompt_time.py [runs]
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pexpect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.server import FakeLLM, text  # noqa: E402

ARROW = " › ".encode()
PROMPT = re.compile(rb"zen single(?:\x1b\[[0-9;]*m)*" + re.escape(ARROW))
BARE = "from prompt_toolkit import PromptSession\nPromptSession().prompt('bare › ')\n"


def env(home: str) -> dict[str, str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ZEN_", "OPENAI_", "DEEPSEEK_", "MOONSHOT_", "NO_COLOR"))
    }
    clean.update(HOME=home, PYTHONPATH=str(ROOT), TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    return clean


def spawn(args: list[str], home: str, cwd: str) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable, args, env=env(home), cwd=cwd, dimensions=(40, 120), timeout=30
    )


def zen_args(base_url: str) -> list[str]:
    return [
        "-m",
        "zen",
        "--single",
        "--base-url",
        base_url,
        "--api-key",
        "bench-key",
        "--model",
        "fake-model",
    ]


def to_prompt(args: list[str], pattern: Any, home: str, cwd: str) -> tuple[float, float, Any]:
    """Wall time to the prompt, and the CPU time the main thread spent until then (less
    sensitive to other processes on a loaded machine; excludes zen's preload thread)."""
    start = time.perf_counter()
    child = spawn(args, home, cwd)
    child.expect(pattern)
    wall = time.perf_counter() - start
    return wall, cpu_seconds(child.pid), child


def cpu_seconds(pid: int) -> float:
    """Time on a CPU of the process's main thread (Linux schedstat), or NaN."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return float("nan")


TYPING = float(os.environ.get("BENCH_TYPING", "1.0"))
"""Seconds a person takes to type a message before pressing Enter (before each message)."""


def message(child: Any, line: str) -> float:
    """Enter to the next prompt: the whole turn as the user waits for it."""
    time.sleep(TYPING)
    start = time.perf_counter()
    child.send(line + "\r")
    child.expect(re.escape(b"\x1b[?2004l"))
    child.expect(PROMPT)
    return time.perf_counter() - start


def load() -> str:
    """The 1-minute load average, to print next to the figures."""
    try:
        return f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs"
    except OSError:
        return "unknown"


def stop(child: Any) -> None:
    child.terminate(force=True)
    child.close()


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    answer = "**Done.** Here is a list:\n\n- one\n- two\n\n```python\nprint('hi')\n```\n"
    fake = FakeLLM(lambda body: text(answer, usage="estimate")).start()
    bare, zen, bare_cpu, zen_cpu, first, second = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        # interleaved; the first round warms the disk cache and records the checked config
        for n in range(runs + 1):
            t_bare, c_bare, child = to_prompt(["-c", BARE], re.escape("bare ›".encode()), home, cwd)
            stop(child)
            t_zen, c_zen, child = to_prompt(zen_args(fake.base_url), PROMPT, home, cwd)
            t_first = message(child, "hello")
            t_second = message(child, "again")
            stop(child)
            if n:
                bare.append(t_bare)
                zen.append(t_zen)
                bare_cpu.append(c_bare)
                zen_cpu.append(c_zen)
                first.append(t_first)
                second.append(t_second)
    fake.stop()
    b, z = statistics.median(bare), statistics.median(zen)
    bc, zc = statistics.median(bare_cpu), statistics.median(zen_cpu)
    f, s = statistics.median(first), statistics.median(second)
    print(f"time to visible prompt (pty, medians of {runs}, interleaved; load {load()}):")
    print(f"  bare PromptSession().prompt()  {b * 1000:6.0f} ms wall  {bc * 1000:6.0f} ms CPU")
    print(
        f"  zen --single                   {z * 1000:6.0f} ms wall  {zc * 1000:6.0f} ms CPU"
        f"   ({z / b:.2f}x wall, {zc / bc:.2f}x CPU)"
    )
    print("message latency in the shell (Enter to next prompt, fake server):")
    print(f"  first message                  {f * 1000:6.0f} ms")
    print(f"  second message                 {s * 1000:6.0f} ms   (first/second {f / s:.2f}x)")


if __name__ == "__main__":
    main()

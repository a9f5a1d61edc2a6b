"""Check for the `env-var-override` task: exit 0 when solved.

Usage: python check.py WORKSPACE ANSWER_FILE (zen bench runs it after the agent ended).
"""

import sys
from pathlib import Path

ws = Path(sys.argv[1])
answer = Path(sys.argv[2]).read_text(encoding="utf-8", errors="replace")


def fail(why: str) -> None:
    print(why)
    sys.exit(1)


def broken(kind: type, error: BaseException, _tb: object) -> None:
    """The workspace's code raised (it may not even import): not solved, not a broken check."""
    fail(f"the workspace's code raised {kind.__name__}: {str(error)[:300]}")


sys.excepthook = broken


import os  # noqa: E402
import subprocess  # noqa: E402


def port_with(value: str | None) -> str:
    """What port() returns in a fresh interpreter, with APP_PORT set to `value` (or unset)."""
    env = {k: v for k, v in os.environ.items() if k != "APP_PORT"}
    if value is not None:
        env["APP_PORT"] = value
    done = subprocess.run(
        [sys.executable, "-c", "import server_config; print(repr(server_config.port()))"],
        cwd=ws, env=env, capture_output=True, text=True, timeout=30,
    )
    errors = done.stderr.strip().splitlines()
    return done.stdout.strip() or (errors[-1][:200] if errors else "")


for value, want in ((None, "8080"), ("9000", "9000"), ("443", "443")):
    got = port_with(value)
    if got != want:
        fail(f"with APP_PORT={value} port() gives {got}, not the int {want}")
done = subprocess.run(
    [sys.executable, "app.py"], cwd=ws, capture_output=True, text=True, timeout=30,
    env={**{k: v for k, v in os.environ.items() if k != "APP_PORT"}, "APP_PORT": "5000"},
)
if done.stdout != "serving on http://127.0.0.1:5000\n":
    fail(f"APP_PORT=5000 python app.py prints {done.stdout!r}")

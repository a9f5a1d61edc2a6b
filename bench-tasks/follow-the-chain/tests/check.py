"""Check for the `follow-the-chain` task: exit 0 when solved.

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


import subprocess  # noqa: E402

app = (ws / "app.py").read_text(encoding="utf-8")
if 'print(greet("world"))' not in app:
    fail("app.py was changed")
done = subprocess.run(
    [sys.executable, "app.py"], cwd=ws, capture_output=True, text=True, timeout=30
)
if done.stdout != "Hello, world!\n":
    fail(f"python app.py prints {done.stdout!r}")
sys.path.insert(0, str(ws))
import greeting  # noqa: E402

if greeting.greet("zen") != "Hello, zen!":
    fail("greet() does not end with !")

"""Check for the `add-test` task: exit 0 when solved.

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


import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

test = ws / "test_clamp.py"
if not test.is_file():
    fail("test_clamp.py does not exist")
GOOD = (ws / "clamp.py").read_text(encoding="utf-8")
MUTANTS = {
    "no lower bound": "def clamp(value, low, high):\n    if low > high:\n        raise ValueError\n    return min(value, high)\n",
    "no upper bound": "def clamp(value, low, high):\n    if low > high:\n        raise ValueError\n    return max(low, value)\n",
    "no range check": "def clamp(value, low, high):\n    return max(low, min(value, high))\n",
}


def passes(source: str) -> bool:
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(test, Path(tmp) / "test_clamp.py")
        (Path(tmp) / "clamp.py").write_text(source, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "unittest", "test_clamp"],
            cwd=tmp, capture_output=True, text=True, timeout=60,
        )
        return done.returncode == 0 and "Ran 0 tests" not in done.stderr


if "raise ValueError" not in GOOD or not passes(GOOD):
    fail("the tests do not pass on clamp.py as it is")
for what, source in MUTANTS.items():
    if passes(source):
        fail(f"the tests pass on a clamp with {what}")

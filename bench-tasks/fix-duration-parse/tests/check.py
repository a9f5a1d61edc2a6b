"""Check for the `fix-duration-parse` task: exit 0 when solved.

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


def shown(text: str, size: int) -> str:
    """The end of a child's output, its traceback header renamed (zen bench reads that header
    in a check's own output as the check crashing)."""
    return text.strip()[size:].replace("Traceback (most recent call last)", "traceback")


import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

# The tests as they were: the agent's copy may have been edited.
ORIGINAL = Path(__file__).resolve().parent / "test_duration.py"
if (ws / "test_duration.py").read_text(encoding="utf-8").strip() != ORIGINAL.read_text(encoding="utf-8").strip():
    fail("test_duration.py was changed")
with tempfile.TemporaryDirectory() as tmp:
    shutil.copy(ws / "duration.py", tmp)
    shutil.copy(ORIGINAL, tmp)
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "test_duration"],
        cwd=tmp, capture_output=True, text=True, timeout=60,
    )
if done.returncode != 0:
    fail("the tests fail: " + shown(done.stderr, -300))
sys.path.insert(0, str(ws))
from duration import describe, seconds  # noqa: E402

for text, want in (("120m", 7200), ("10h5m30s", 36330), (" 7s ", 7), ("100s", 100)):
    if seconds(text) != want:
        fail(f"seconds({text!r}) is {seconds(text)!r}, not {want}")
for bad in ("", "5", "1h 30m", "1d", "h"):
    try:
        seconds(bad)
    except ValueError:
        continue
    fail(f"seconds({bad!r}) does not raise ValueError")
if describe(36330) != "10h5m30s":
    fail("describe broke")

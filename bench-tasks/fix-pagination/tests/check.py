"""Check for the `fix-pagination` task: exit 0 when solved.

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
ORIGINAL = Path(__file__).resolve().parent / "test_paging.py"
if (ws / "test_paging.py").read_text(encoding="utf-8").strip() != ORIGINAL.read_text(encoding="utf-8").strip():
    fail("test_paging.py was changed")
with tempfile.TemporaryDirectory() as tmp:
    shutil.copy(ws / "paging.py", tmp)
    shutil.copy(ORIGINAL, tmp)
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "test_paging"],
        cwd=tmp, capture_output=True, text=True, timeout=60,
    )
if done.returncode != 0:
    fail("the tests fail: " + shown(done.stderr, -300))
sys.path.insert(0, str(ws))
from paging import page, page_count  # noqa: E402

for items, number, size, want in (
    (list(range(5)), 2, 2, [2, 3]),
    (list(range(5)), 3, 2, [4]),
    (list(range(5)), 4, 2, []),
    (list("abc"), 1, 10, ["a", "b", "c"]),
):
    got = page(items, number, size)
    if got != want:
        fail(f"page({items}, {number}, {size}) is {got!r}, not {want!r}")
if page_count(20) != 2 or page_count(21) != 3:
    fail("page_count broke")

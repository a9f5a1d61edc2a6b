"""Check for the `fix-version-sort` task: exit 0 when solved.

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
ORIGINAL = Path(__file__).resolve().parent / "test_releases.py"
if (ws / "test_releases.py").read_text(encoding="utf-8").strip() != ORIGINAL.read_text(encoding="utf-8").strip():
    fail("test_releases.py was changed")
with tempfile.TemporaryDirectory() as tmp:
    shutil.copy(ws / "releases.py", tmp)
    shutil.copy(ORIGINAL, tmp)
    done = subprocess.run(
        [sys.executable, "-m", "unittest", "test_releases"],
        cwd=tmp, capture_output=True, text=True, timeout=60,
    )
if done.returncode != 0:
    fail("the tests fail: " + shown(done.stderr, -300))
sys.path.insert(0, str(ws))
from releases import is_release, latest  # noqa: E402

for tags, want in (
    (["v2.0.0", "v10.0.0", "v9.9.9"], "v10.0.0"),
    (["v0.1.10", "v0.1.9"], "v0.1.10"),
    (["v3.1.4"], "v3.1.4"),
    (["v1.2.3", "v1.2.12", "v1.2.4"], "v1.2.12"),
):
    if latest(tags) != want:
        fail(f"latest({tags}) is {latest(tags)!r}, not {want!r}")
if not is_release("v1.0.0") or is_release("v1.0.0-beta"):
    fail("is_release broke")

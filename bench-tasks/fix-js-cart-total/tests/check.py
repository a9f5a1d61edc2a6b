"""Check for the `fix-js-cart-total` task: exit 0 when solved.

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


import json  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402

if shutil.which("node") is None:
    print("this check needs node (Node.js 18 or later)")
    sys.exit(2)
# The tests as they were: the agent's copy may have been edited.
ORIGINAL = Path(__file__).resolve().parent / "cart.test.js"
if (ws / "cart.test.js").read_text(encoding="utf-8").strip() != ORIGINAL.read_text(encoding="utf-8").strip():
    fail("cart.test.js was changed")
with tempfile.TemporaryDirectory() as tmp:
    shutil.copy(ws / "cart.js", tmp)
    shutil.copy(ORIGINAL, tmp)
    done = subprocess.run(
        ["node", "--test", "cart.test.js"], cwd=tmp, capture_output=True, text=True, timeout=60
    )
    if done.returncode != 0:
        fail("node --test fails: " + (done.stdout + done.stderr).strip()[-300:])
    cases = [
        ([{"price": 199, "quantity": 3}, {"price": 1}], 598),
        ([], 0),
        ([{"price": 5, "quantity": 10}, {"price": 7, "quantity": 1}], 57),
    ]
    script = (
        "const { total } = require('./cart.js');"
        f"const cases = {json.dumps(cases)};"
        "console.log(JSON.stringify(cases.map(([items]) => total(items))));"
    )
    done = subprocess.run(["node", "-e", script], cwd=tmp, capture_output=True, text=True, timeout=60)
try:
    got = json.loads(done.stdout)
except ValueError:
    fail("cart.js cannot be run: " + shown(done.stderr, -300))
for (items, want), value in zip(cases, got):
    if value != want:
        fail(f"total({json.dumps(items)}) is {value!r}, not {want}")

"""Check for the `rename-across-files` task: exit 0 when solved.

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


for path in sorted(ws.rglob("*.py")):
    if "calc_total" in path.read_text(encoding="utf-8"):
        fail(f"{path.name} still names calc_total")
sys.path.insert(0, str(ws))
import cart  # noqa: E402
import pricing  # noqa: E402
import report  # noqa: E402

if pricing.compute_total([10, 5], 0.2) != 18.0:
    fail("compute_total gives a wrong total")
c = cart.Cart()
c.add(10)
if c.total() != 12.0:
    fail("Cart.total broke")
if report.summary([1, 2]) != "2 items, 3.0 before tax":
    fail("report.summary broke")

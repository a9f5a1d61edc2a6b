"""Check for the `run-script` task: exit 0 when solved.

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


import hashlib  # noqa: E402
import json  # noqa: E402

prices = json.loads((ws / "prices.json").read_text(encoding="utf-8"))
if len(prices) != 5 or prices.get("fig") != 3.4:
    fail("prices.json was changed")
want = ["| item | price | code |", "|---|---|---|"]
for item in sorted(prices):
    code = hashlib.sha256(f"{item}:{prices[item]}".encode()).hexdigest()[:4]
    want.append(f"| {item} | {prices[item]:.2f} | {code} |")
table = ws / "TABLE.md"
got = table.read_text(encoding="utf-8").splitlines() if table.is_file() else []
if got != want:
    fail("TABLE.md is not what tools/make_table.py writes")

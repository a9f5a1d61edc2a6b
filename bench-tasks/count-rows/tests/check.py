"""Check for the `count-rows` task: exit 0 when solved.

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


import re  # noqa: E402

want = len((ws / "data" / "sales.csv").read_text(encoding="utf-8").splitlines()) - 1
if want != 1237:
    fail("data/sales.csv was changed")
if str(want) not in [n.replace(",", "") for n in re.findall(r"\d[\d,]*", answer)]:
    fail(f"the answer does not say {want}")

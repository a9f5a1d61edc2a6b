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


import re  # noqa: E402

want = len((ws / "data" / "sales.csv").read_text(encoding="utf-8").splitlines()) - 1
if want != 1237:
    fail("data/sales.csv was changed")
if str(want) not in [n.replace(",", "") for n in re.findall(r"\d[\d,]*", answer)]:
    fail(f"the answer does not say {want}")

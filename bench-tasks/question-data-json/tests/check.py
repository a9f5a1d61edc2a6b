"""Check for the `question-data-json` task: exit 0 when solved.

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
import re  # noqa: E402

data = ws / "data" / "users.json"
if not data.is_file() or hashlib.sha256(data.read_bytes()).hexdigest() != "b17dbef6137aa897e0d32e147651072933802ba431bd70928e091e0720d7f244":
    fail("data/users.json was changed")
if "7" not in re.findall(r"\d+", answer):
    fail("the answer does not say 7")

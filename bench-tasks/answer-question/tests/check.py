"""Check for the `answer-question` task: exit 0 when solved.

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

numbers = re.findall(r"\d[\d,]*", answer)
if "8437" not in [n.replace(",", "") for n in numbers]:
    fail("the answer does not say 8437")
if (ws / "settings.py").read_text(encoding="utf-8") != "BASE_PORT = 8000\nOFFSET = 437\n":
    fail("settings.py was changed")

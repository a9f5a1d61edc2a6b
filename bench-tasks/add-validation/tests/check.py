"""Check for the `add-validation` task: exit 0 when solved.

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


sys.path.insert(0, str(ws))
from users import User, create_user  # noqa: E402

for name, age in (("ada", 36), ("  Bo  ", 13), ("old", 120)):
    try:
        user = create_user(name, age)
    except ValueError:
        fail(f"create_user({name!r}, {age}) raises ValueError")
    if user != User(name.strip(), age):
        fail(f"create_user({name!r}, {age}) gives {user!r}")
for name, age in (("", 30), ("   ", 30), ("kid", 12), ("ghost", 121), ("neg", -1)):
    try:
        create_user(name, age)
    except ValueError:
        continue
    fail(f"create_user({name!r}, {age}) does not raise ValueError")

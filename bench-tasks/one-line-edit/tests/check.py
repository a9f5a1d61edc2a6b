"""Check for the `one-line-edit` task: exit 0 when solved.

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
import config  # noqa: E402

if config.MAX_RETRIES != 5:
    fail(f"MAX_RETRIES is {config.MAX_RETRIES!r}, not 5")
if config.TIMEOUT_SECONDS != 30 or config.USER_AGENT != "fetcher/1.0":
    fail("other settings changed")

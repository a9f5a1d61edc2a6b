"""Check for the `default-when-missing` task: exit 0 when solved.

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


import json  # noqa: E402
import tempfile  # noqa: E402

sys.path.insert(0, str(ws))
import settings  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    try:
        got = settings.load_settings(Path(tmp) / "missing.json")
    except Exception as e:
        fail(f"a missing file still raises {type(e).__name__}")
    if got != {"theme": "light", "font_size": 12}:
        fail(f"a missing file gives {got!r}")
    got["theme"] = "dark"
    if settings.DEFAULTS["theme"] != "light":
        fail("the caller can change DEFAULTS through the returned dict")
    present = Path(tmp) / "present.json"
    present.write_text(json.dumps({"theme": "dark"}), encoding="utf-8")
    if settings.load_settings(present) != {"theme": "dark"}:
        fail("an existing file is no longer read")

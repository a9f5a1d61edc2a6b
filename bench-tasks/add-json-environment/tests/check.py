"""Check for the `add-json-environment` task: exit 0 when solved.

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

try:
    envs = json.loads((ws / "config" / "environments.json").read_text(encoding="utf-8"))
except ValueError as e:
    fail(f"config/environments.json is not valid JSON: {e}")
DEVELOPMENT = {
    "url": "http://localhost:8000",
    "debug": True,
    "workers": 1,
    "database": "sqlite:///dev.db",
    "log_level": "debug",
}
PRODUCTION = {
    "url": "https://shop.example.com",
    "debug": False,
    "workers": 8,
    "database": "postgres://db.internal/shop",
    "log_level": "warning",
}
if not isinstance(envs, dict):
    fail("config/environments.json is no longer an object")
if envs.get("development") != DEVELOPMENT or envs.get("production") != PRODUCTION:
    fail("development or production was changed")
want = {**PRODUCTION, "url": "https://staging.shop.example.com", "workers": 2}
if envs.get("staging") != want:
    fail(f"staging is {envs.get('staging')!r}, not {want!r}")
if set(envs) != {"development", "production", "staging"}:
    fail(f"unexpected environments: {sorted(envs)}")

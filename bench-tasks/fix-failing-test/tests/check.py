"""Check for the `fix-failing-test` task: exit 0 when solved.

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


test = (ws / "test_stats.py").read_text(encoding="utf-8")
if "self.assertEqual(mean([2, 4, 6]), 4)" not in test:
    fail("the test was changed")
sys.path.insert(0, str(ws))
from stats import mean, spread  # noqa: E402

for values, want in (([2, 4, 6], 4), ([5], 5), ([1, 2], 1.5), ([-3, 3, 9, 11], 5)):
    if mean(values) != want:
        fail(f"mean({values}) is {mean(values)!r}, not {want}")
if spread([3, 9, 1]) != 8:
    fail("spread broke")

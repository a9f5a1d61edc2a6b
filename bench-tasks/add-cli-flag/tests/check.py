"""Check for the `add-cli-flag` task: exit 0 when solved.

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


import subprocess  # noqa: E402
import tempfile  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    sample = Path(tmp) / "sample.txt"
    sample.write_text("one two three\nfour five\n\nsix\n", encoding="utf-8")

    def run(*flags: str) -> str:
        done = subprocess.run(
            [sys.executable, str(ws / "count.py"), *flags, str(sample)],
            capture_output=True, text=True, timeout=30,
        )
        errors = done.stderr.strip().splitlines()
        return done.stdout.strip() or (errors[-1][:200] if errors else "")

    if run() != "6":
        fail(f"without --lines it prints {run()!r}, not 6 words")
    if run("--lines") != "4":
        fail(f"with --lines it prints {run('--lines')!r}, not 4 lines")

"""Check for the `fix-crash-report` task: exit 0 when solved.

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


def shown(text: str, size: int) -> str:
    """The end of a child's output, its traceback header renamed (zen bench reads that header
    in a check's own output as the check crashing)."""
    return text.strip()[size:].replace("Traceback (most recent call last)", "traceback")


import subprocess  # noqa: E402
import tempfile  # noqa: E402

CONTACTS = """name,email
Ada Lovelace,ADA@example.org
Alan Turing
Grace Hopper,grace@Example.org
Linus Torvalds,
Margaret Hamilton,margaret@example.org
"""
if (ws / "contacts.csv").read_text(encoding="utf-8") != CONTACTS:
    fail("contacts.csv was changed")
done = subprocess.run(
    [sys.executable, "mailing.py"], cwd=ws, capture_output=True, text=True, timeout=30
)
want = "Ada Lovelace <ada@example.org>\nGrace Hopper <grace@example.org>\nMargaret Hamilton <margaret@example.org>\n"
if done.stdout != want:
    fail(f"python mailing.py prints {done.stdout!r} {shown(done.stderr, -200)!r}")
sys.path.insert(0, str(ws))
from mailing import mailing_list  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    other = Path(tmp) / "other.csv"
    other.write_text("name,email\nBob,\nEve,EVE@X.ORG\nMallory\n", encoding="utf-8")
    got = mailing_list(str(other))
    if got != ["Eve <eve@x.org>"]:
        fail(f"mailing_list on another file gives {got!r}")

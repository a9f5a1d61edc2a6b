"""Check for the `question-which-function` task: exit 0 when solved.

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

if not re.search(r"\bremember\b", answer):
    fail("the answer does not name remember")
if not re.search(r"history(\.py)?\b", answer):
    fail("the answer does not name history.py")
WANT = {
    "app/__init__.py": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "app/paths.py": "9a2c2bfb65afd689b66041a7cd8c591329aa04c32bd1b63d9aaa4d5b091d243d",
    "app/history.py": "54bddd1dc05655c4da1c19259749e5d7c7d9676638968e370c22ff576d26121e",
    "app/notes.py": "5d93ed45a4f2f3d20a5abc5dcdfdf3b96d97a1942f1e7e7bd4a56b22b5d43a55",
    "app/maintenance.py": "0cc5c6a97cf50a752eef5d608eac69a7dc3a604c6030758d2e0312c10d126ed3",
}
for name, digest in WANT.items():
    path = ws / name
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        fail(f"{name} was changed")

"""Check for the `implement-from-docstring` task: exit 0 when solved.

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
from slug import slugify  # noqa: E402

cases = {
    "Hello, World!": "hello-world",
    "  Rust & Python 3.12  ": "rust-python-3-12",
    "already-a-slug": "already-a-slug",
    "---": "",
    "Café au lait": "caf-au-lait",
    "A__B": "a-b",
}
for title, want in cases.items():
    try:
        got = slugify(title)
    except Exception as e:
        fail(f"slugify({title!r}) raised {type(e).__name__}")
    if got != want:
        fail(f"slugify({title!r}) is {got!r}, not {want!r}")

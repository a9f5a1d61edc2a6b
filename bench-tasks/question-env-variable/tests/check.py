"""Check for the `question-env-variable` task: exit 0 when solved.

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

if "SHOP_WAIT_SECONDS" not in answer:
    fail("the answer does not name SHOP_WAIT_SECONDS")
if not re.search(r"(?<![\d.])2\.5(?![\d.])", answer):
    fail("the answer does not say 2.5 seconds")
WANT = {
    "shop/__init__.py": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "shop/settings.py": "09f2d6a18b89b2437d92d3bebf768c28ed0e08b288bd0c0bfca27c604abfc0b0",
    "shop/client.py": "b67cd40261ded5d1cd80d6ae3f8c2e3d7381e66d589be39ac372f96c3e31267e",
}
for name, digest in WANT.items():
    path = ws / name
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        fail(f"{name} was changed")

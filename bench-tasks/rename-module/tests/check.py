"""Check for the `rename-module` task: exit 0 when solved.

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


import ast  # noqa: E402

if (ws / "util.py").exists():
    fail("util.py still exists")
if not (ws / "text_tools.py").is_file():
    fail("text_tools.py does not exist")
for path in sorted(ws.rglob("*.py")):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        if "util" in names:
            fail(f"{path.name} still imports util")
sys.path.insert(0, str(ws))
import blog  # noqa: E402
import feed  # noqa: E402
import text_tools  # noqa: E402

if text_tools.slug("Hello Big World") != "hello-big-world":
    fail("text_tools.slug broke")
if blog.post_url("My First Post") != "/posts/my-first-post/":
    fail("blog.post_url broke")
if feed.summary("News", "x" * 30) != "News: " + "x" * 19 + "…":
    fail("feed.summary broke")

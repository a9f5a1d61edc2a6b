"""Check for the `move-duplicate` task: exit 0 when solved.

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


def defines(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


if not (ws / "names.py").is_file() or "normalize" not in defines(ws / "names.py"):
    fail("names.py does not define normalize")
for name in ("users.py", "teams.py"):
    if "normalize" in defines(ws / name):
        fail(f"{name} still defines normalize")
    if "names" not in (ws / name).read_text(encoding="utf-8"):
        fail(f"{name} does not import from names")
sys.path.insert(0, str(ws))
import teams  # noqa: E402
import users  # noqa: E402

if users.user_key("  Ada   LOVELACE ", "x.org") != "ada lovelace@x.org":
    fail("users.user_key broke")
if teams.team_members(["B  b", "a", "b B"]) != ["a", "b b"]:
    fail("teams.team_members broke")

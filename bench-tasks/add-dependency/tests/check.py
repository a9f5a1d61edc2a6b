"""Check for the `add-dependency` task: exit 0 when solved.

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


import re  # noqa: E402

if sys.version_info >= (3, 11):
    import tomllib
else:  # zen's own dependency on 3.10
    import tomli as tomllib

try:
    data = tomllib.loads((ws / "pyproject.toml").read_text(encoding="utf-8"))
except tomllib.TOMLDecodeError as e:
    fail(f"pyproject.toml does not parse: {e}")
project = data.get("project", {})
deps = project.get("dependencies", [])
if not isinstance(deps, list):
    fail("project.dependencies is not a list")
rich = [d for d in deps if isinstance(d, str) and re.match(r"rich\b(?![-_.])", d.strip(), re.I)]
if len(rich) != 1:
    fail(f"project.dependencies has {len(rich)} entries for rich: {deps}")
spec = re.sub(r"\s+", "", rich[0])
if not re.fullmatch(r"(?i)rich(\[[\w,]+\])?>=13(\.0)*(,<\d+(\.\d+)*)?", spec):
    fail(f"{rich[0]!r} does not ask for rich 13 or newer")
others = [d for d in deps if d not in rich]
if others != ["httpx>=0.27", "click>=8.1"]:
    fail(f"the other dependencies changed: {others}")
if project.get("name") != "weather-cli" or project.get("version") != "0.3.1":
    fail("the project's name or version changed")
if data.get("project", {}).get("optional-dependencies") != {"test": ["pytest>=8"]}:
    fail("the optional dependencies changed")
if "rich" in str(data.get("project", {}).get("optional-dependencies")):
    fail("rich went into the optional dependencies")

"""Check for the `print-to-logging` task: exit 0 when solved.

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
import contextlib  # noqa: E402
import io  # noqa: E402
import logging  # noqa: E402

tree = ast.parse((ws / "worker.py").read_text(encoding="utf-8"))
for node in ast.walk(tree):
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
        fail(f"worker.py still calls print (line {node.lineno})")
sys.path.insert(0, str(ws))
import worker  # noqa: E402

records: list[logging.LogRecord] = []


class Keep(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        records.append(record)


logging.getLogger().addHandler(Keep(logging.DEBUG))
logging.getLogger().setLevel(logging.DEBUG)
printed = io.StringIO()
with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
    failed = worker.run(["a", " ", "b"])
if failed != 1:
    fail(f"run returns {failed}, not 1 failure")
if printed.getvalue():
    fail(f"run still prints: {printed.getvalue()[:200]!r}")
got = [(r.levelname, r.getMessage(), r.name) for r in records]
want = [
    ("INFO", "running a", "worker"),
    ("INFO", "running  ", "worker"),
    ("ERROR", "job ' ' failed: empty job", "worker"),
    ("INFO", "running b", "worker"),
    ("INFO", "done: 2 ok, 1 failed", "worker"),
]
if got != want:
    fail(f"the log records are {got}, not {want}")

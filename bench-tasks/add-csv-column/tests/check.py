"""Check for the `add-csv-column` task: exit 0 when solved.

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


import csv  # noqa: E402
import io  # noqa: E402
from datetime import date  # noqa: E402

sys.path.insert(0, str(ws))
from export import to_csv  # noqa: E402
from orders import Order  # noqa: E402

orders = [
    Order(7, "Linus, T.", 3.456, date(2023, 12, 31)),
    Order(8, "Ada", 100.0, date(2024, 1, 5)),
]
text = to_csv(orders)
rows = list(csv.reader(io.StringIO(text)))
want = [
    ["id", "customer", "total", "placed"],
    ["7", "Linus, T.", "3.46", "2023-12-31"],
    ["8", "Ada", "100.00", "2024-01-05"],
]
if rows != want:
    fail(f"to_csv writes {rows!r}, not {want!r}")
if to_csv([]).strip() != "id,customer,total,placed":
    fail(f"the header alone is {to_csv([])!r}")

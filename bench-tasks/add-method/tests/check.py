"""Check for the `add-method` task: exit 0 when solved.

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
from inventory import Inventory  # noqa: E402

inv = Inventory()
inv.add("apple", 5)
inv.add("pear", 2)
if not hasattr(inv, "remove"):
    fail("Inventory has no remove method")
inv.remove("apple", 3)
if inv.counts != {"apple": 2, "pear": 2}:
    fail(f"after remove('apple', 3) counts is {inv.counts}")
inv.remove("pear")
if inv.counts != {"apple": 2, "pear": 1}:
    fail(f"remove('pear') without a count does not remove one: {inv.counts}")
inv.remove("pear")
if inv.counts != {"apple": 2}:
    fail(f"an item at 0 stays in counts: {inv.counts}")
for item, count in (("apple", 3), ("kiwi", 1), ("pear", 1)):
    try:
        inv.remove(item, count)
    except ValueError:
        pass
    else:
        fail(f"remove({item!r}, {count}) does not raise ValueError")
    if inv.counts != {"apple": 2}:
        fail(f"a refused remove({item!r}, {count}) changed counts: {inv.counts}")
if inv.total() != 2:
    fail("total broke")
inv.add("apple")
if inv.counts != {"apple": 3}:
    fail("add broke")

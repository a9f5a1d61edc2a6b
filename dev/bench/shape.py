"""The shape of the code, in the figures the restructuring issues quote.

    python dev/bench/shape.py

Files and lines under `zen/`, the largest file, files over 300 and 500 lines, functions over
50 lines, the class with the most methods, import circles between files (the same check as
`tests/test_layers.py`), modules loose at the top of `zen/`, and the lines of README and
DESIGN.md. Counts only; nothing is timed.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.test_layers import circles, module_graph  # noqa: E402

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
DOCS = ("README.md", "DESIGN.md")


def main() -> None:
    files = sorted((ROOT / "zen").rglob("*.py"))
    lines = {p.relative_to(ROOT).as_posix(): len(p.read_text("utf-8").splitlines()) for p in files}
    long_functions: list[tuple[int, str]] = []
    methods: list[tuple[int, str]] = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            name = f"{path.relative_to(ROOT).as_posix()}:{getattr(node, 'name', '')}"
            if isinstance(node, FUNCTIONS) and node.end_lineno:
                if node.end_lineno - node.lineno + 1 > 50:
                    long_functions.append((node.end_lineno - node.lineno + 1, name))
            elif isinstance(node, ast.ClassDef):
                methods.append((sum(isinstance(b, FUNCTIONS) for b in node.body), name))
    largest = max(lines, key=lines.__getitem__)
    found = circles(module_graph(ROOT))
    rows = [
        ("files", f"{len(files)} ({sum(lines.values())} lines)"),
        ("largest file", f"{largest} ({lines[largest]})"),
        ("files over 300 lines", str(sum(n > 300 for n in lines.values()))),
        ("files over 500 lines", str(sum(n > 500 for n in lines.values()))),
        ("functions over 50 lines", str(len(long_functions))),
        ("most methods in a class", "{} ({})".format(*max(methods))),
        ("import circles", str(len(found))),
        ("modules at the top", str(len(list((ROOT / "zen").glob("*.py"))))),  # with __init__
    ]
    rows += [(doc, str(len((ROOT / doc).read_text("utf-8").splitlines()))) for doc in DOCS]
    for label, value in rows:
        print(f"{label:<26} {value}")
    for group in found:
        print("  circle:", " <-> ".join(group))
    for size, name in sorted(long_functions, reverse=True):
        print(f"  {size:>4}  {name}")


if __name__ == "__main__":
    main()

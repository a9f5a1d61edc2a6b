"""Dependencies point one way: front-ends -> agents -> tools / llm / stores.

Checked on the source with `ast`, so a stray import anywhere (even inside a function) fails.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ZEN = Path(__file__).resolve().parent.parent / "zen"

# package -> zen packages it must never import
FORBIDDEN = {
    "stores": {"agent", "ui", "cli", "app", "tools", "llm", "mcp"},
    "llm": {"agent", "ui", "cli", "app", "tools", "stores", "mcp"},
    "tools": {"agent", "ui", "cli", "app"},
    "checkpoints": {"agent", "ui", "cli", "app", "llm", "mcp", "stores"},
    "mcp": {"agent", "ui", "cli", "app"},
    "agent": {"ui", "cli", "app"},
    "events": {"agent", "ui", "cli", "app", "tools", "llm", "stores", "mcp"},
    "terminal_safe": {
        "agent", "ui", "cli", "app", "tools", "llm", "stores", "mcp", "events", "config"
    },
}


def zen_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "zen" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_no_upward_imports(package: str) -> None:
    target = ZEN / package
    files = sorted(target.rglob("*.py")) if target.is_dir() else [ZEN / f"{package}.py"]
    assert files
    for path in files:
        bad = zen_imports(path) & FORBIDDEN[package]
        assert not bad, f"{path.relative_to(ZEN.parent)} imports zen.{sorted(bad)}"


def test_version_loads_nothing_heavy() -> None:
    """What `zen --version` actually imports, checked in a fresh interpreter."""
    code = (
        "import sys\n"
        "from zen.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'openai', 'mcp', 'rich', 'prompt_toolkit', 'pydantic', 'yaml', 'pathlib'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ZEN.parent, check=True)
    assert done.stdout.strip().endswith("[]"), done.stdout


def test_startup_modules_import_nothing_heavy() -> None:
    """`zen --version` / `--help` go through cli.py alone: it must import only the stdlib."""
    assert zen_imports(ZEN / "cli.py") - {"config", "ui", "app", "mcp", "terminal_safe"} == set()
    tree = ast.parse((ZEN / "cli.py").read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    modules = {getattr(n, "module", None) or n.names[0].name for n in top_level}
    assert modules <= {"__future__", "argparse", "sys", "zen"}

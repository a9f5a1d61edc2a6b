"""Dependencies point one way: front-ends -> app -> agents -> tools / mcp / llm / stores -> base.

Checked on the source with `ast`: every import of every module, relative ones and those inside
functions included, against one written table of layers. A module may import its own layer
and the layers below it, never one above.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ZEN = Path(__file__).resolve().parent.parent / "zen"

LAYERS: list[tuple[str, ...]] = [
    ("__init__", "base"),  # base: no zen imports above it
    ("settings",),
    ("stores",),
    ("llm",),
    ("tools",),
    ("mcp", "checkpoints"),
    ("agent",),
    ("app",),
    ("ui", "cli", "acp", "__main__"),  # front-ends
]
RANK = {unit: rank for rank, units in enumerate(LAYERS) for unit in units}
NEVER = {("ui", "app")}
"""Front-end modules get the session from the CLI; only `cli` composes through `app`."""


def unit_of(module: str) -> str:
    """`zen.agent.loop` -> `agent`; `zen.base.paths` -> `base`; a name from zen/__init__ -> that."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def imports_of(path: Path, root: Path = ZEN.parent) -> list[str]:
    """Every zen module `path` (under `root`) imports, relative imports resolved."""
    module = ".".join(path.relative_to(root).with_suffix("").parts)
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    package = package.removesuffix(".__init__")
    found: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            if target == "zen":  # `from zen import events`: the names are modules
                found += [f"zen.{alias.name}" for alias in node.names]
            else:
                found.append(target)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name for name in found if name.split(".")[0] == "zen" and name != "zen"]


def test_every_module_belongs_to_a_layer() -> None:
    units = {
        unit_of(".".join(p.relative_to(ZEN.parent).with_suffix("").parts))
        for p in ZEN.rglob("*.py")
    }
    assert units <= set(RANK), f"add to LAYERS: {sorted(units - set(RANK))}"


@pytest.mark.parametrize("path", sorted(ZEN.rglob("*.py")), ids=lambda p: str(p.relative_to(ZEN)))
def test_no_upward_imports(path: Path) -> None:
    me = unit_of(".".join(path.relative_to(ZEN.parent).with_suffix("").parts))
    for name in imports_of(path):
        other = unit_of(name)
        other = other if other in RANK else "__init__"  # e.g. `from zen import __version__`
        if other == me:
            continue
        assert RANK[other] <= RANK[me] and (me, other) not in NEVER, (
            f"{path.relative_to(ZEN.parent)} imports {name}: {me} may not depend on {other}"
        )


def test_the_checker_sees_relative_lazy_and_upward_imports(tmp_path: Path) -> None:
    """The planted imports the old test missed are found."""
    planted = tmp_path / "zen" / "stores" / "probe.py"
    planted.parent.mkdir(parents=True)
    planted.write_text(
        "def f():\n    from ..agent import loop\n    from . import memo\n    import zen.ui.shell\n"
    )
    assert imports_of(planted, tmp_path) == ["zen.agent", "zen.stores", "zen.ui.shell"]


def test_version_loads_nothing_heavy() -> None:
    """What `zen --version` actually imports, checked in a fresh interpreter."""
    code = (
        "import sys\n"
        "from zen.cli.entry import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'openai', 'mcp', 'rich', 'prompt_toolkit', 'pydantic', 'yaml', 'pathlib'}\n"
        "print(sorted(heavy & set(sys.modules)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ZEN.parent, check=True
    )
    assert done.stdout.strip().endswith("[]"), done.stdout


STARTUP = ("zen.cli.entry", "zen.cli.parser", "zen.cli.output")
"""The modules `zen --version` / `--help` load: the entry point and what it imports up front."""


@pytest.mark.parametrize("module", STARTUP)
def test_startup_modules_import_nothing_heavy(module: str) -> None:
    """Each start-up module imports only the stdlib, zen's light modules and the others."""
    path = ZEN.parent.joinpath(*module.split(".")).with_suffix(".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    modules = {getattr(n, "module", None) or n.names[0].name for n in top_level}
    assert modules <= {"__future__", "argparse", "sys", "zen", "zen.base", *STARTUP}

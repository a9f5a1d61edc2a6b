"""Dependencies point one way: front-ends -> app -> agents -> tools / mcp / llm / stores ->
settings -> base, and no two files import each other, however indirectly.

Checked on the source with `ast`: every import of every module, relative ones, those inside
functions and those under `TYPE_CHECKING` included (a type names what it depends on), against
one written table of layers. A module may import its own layer and the layers below it, never
one above; inside a layer, the files' imports form no circle.
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
    ("ui", "cli", "acp", "bench", "__main__"),  # front-ends
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
            for alias in node.names:  # `from zen.agent import loop`: the name is a module
                named = f"{target}.{alias.name}"
                is_module = _module_file(root, named) is not None
                found.append(named if is_module or target == "zen" else target)
        elif isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
    return [name for name in found if name.split(".")[0] == "zen" and name != "zen"]


def _module_file(root: Path, module: str) -> Path | None:
    """The file of `module` under `root` (a module or a package's __init__), if there is one."""
    base = root.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def module_graph(root: Path = ZEN.parent) -> dict[str, set[str]]:
    """Every zen module under `root` -> the zen modules (files) it imports, in any way."""
    paths = {
        ".".join(p.relative_to(root).with_suffix("").parts).removesuffix(".__init__"): p
        for p in (root / "zen").rglob("*.py")
    }
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        targets = set()
        for name in imports_of(path, root):
            while name not in paths and "." in name:  # `zen.x.y.Name` -> the module `zen.x.y`
                name = name.rsplit(".", 1)[0]
            if name in paths and name != module:
                targets.add(name)
                targets |= _packages_entered(module, name, paths)
        graph[module] = targets
    return graph


def _packages_entered(module: str, name: str, paths: dict[str, Path]) -> set[str]:
    """The packages whose `__init__` importing `name` runs first, from outside them: a circle
    through one (`edits.x` importing `protocols.y` while `protocols/__init__` imports, in the
    end, `edits.x`) fails at import as any other does."""
    parts = name.split(".")
    entered = {".".join(parts[:k]) for k in range(2, len(parts))}
    return {p for p in entered if p in paths and not (module + ".").startswith(p + ".")}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_circles() -> None:
    """No two files depend on each other, however indirectly: a circle is one room, not two."""
    found = circles(module_graph())
    assert not found, "import circles: " + "; ".join(" <-> ".join(group) for group in found)


def test_the_circle_check_sees_lazy_and_type_checking_imports(tmp_path: Path) -> None:
    """A circle closed by an import inside a function or under TYPE_CHECKING still counts."""
    pkg = tmp_path / "zen" / "agent"
    pkg.mkdir(parents=True)
    (tmp_path / "zen" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import b\n"
    )
    (pkg / "b.py").write_text("def f():\n    from zen.agent.c import g\n")
    (pkg / "c.py").write_text("from zen.agent.a import A\n")
    (pkg / "d.py").write_text("from zen.agent import a\n")
    graph = module_graph(tmp_path)
    assert graph["zen.agent.a"] == {"zen.agent.b"}
    assert circles(graph) == [["zen.agent.a", "zen.agent.b", "zen.agent.c"]]
    (pkg / "c.py").write_text("")
    assert circles(module_graph(tmp_path)) == []


def test_the_circle_check_sees_a_package_init_run_on_the_way(tmp_path: Path) -> None:
    """`edits.top` importing `protocols.parser` runs `protocols/__init__` first, which imports
    `protocols.apply`, which imports `edits.top`: a circle no file's own imports show (it hid
    in zen until a test imported `edits.fence_top` first). A package's own modules importing
    each other through it is no circle."""
    for package in ("edits", "protocols"):
        (tmp_path / "zen" / "agent" / package).mkdir(parents=True)
    (tmp_path / "zen" / "__init__.py").write_text("")
    (tmp_path / "zen" / "agent" / "__init__.py").write_text("")
    (tmp_path / "zen" / "agent" / "edits" / "__init__.py").write_text("")
    protocols = tmp_path / "zen" / "agent" / "protocols"
    (protocols / "__init__.py").write_text("from zen.agent.protocols.apply import run\n")
    (protocols / "apply.py").write_text("from zen.agent.protocols.parser import P\n")
    (protocols / "parser.py").write_text("P = 1\n")
    top = tmp_path / "zen" / "agent" / "edits" / "top.py"
    top.write_text("X = 1\n")
    assert circles(module_graph(tmp_path)) == []
    (protocols / "apply.py").write_text("from zen.agent.edits.top import X\n")
    top.write_text("from zen.agent.protocols.parser import P\n")
    assert circles(module_graph(tmp_path)) == [
        ["zen.agent.edits.top", "zen.agent.protocols", "zen.agent.protocols.apply"]
    ]


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


@pytest.mark.e2e
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

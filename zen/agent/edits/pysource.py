"""What Python's parser says about a file's lines, for the snippet merge: which statements
are definitions, where one starts (decorators, the comments above it), what a line's
indentation is, which names are defined under a condition."""

from __future__ import annotations

import ast
import textwrap

DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
IMPORTS = (ast.Import, ast.ImportFrom)
Def = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def parse(text: str) -> ast.Module | None:
    """The module, or None: it does not parse (or is too deep to)."""
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def renamed(old: str, new: str) -> dict[str, str]:
    """Top-level definitions of `old` that `new` has under another name and is otherwise the
    same, to that name (a rename's whole file: no definition lost, no snippet leaving one
    out)."""
    new = textwrap.dedent(new)
    o, n = parse(old), parse(new)
    if o is None or n is None:
        return {}
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    olds = {x.name: x for x in o.body if isinstance(x, DEFS)}
    news = {x.name: x for x in n.body if isinstance(x, DEFS)}
    fresh: dict[str, list[str]] = {}  # each new definition's text, its name masked
    for name, x in news.items():
        if name not in olds:
            fresh.setdefault(source(new_lines, x).strip().replace(name, "\0"), []).append(name)
    found = {}
    for name, x in olds.items():
        to = fresh.get(source(old_lines, x).strip().replace(name, "\0"), [])
        if name not in news and len(to) == 1:
            found[name] = to[0]
    return found


def bound(body: list[ast.stmt]) -> set[str]:
    """The names the top-level imports of `body` bind (`import a.b` binds `a`)."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, IMPORTS):
            for alias in node.names:
                if alias.name != "*":
                    found.add(alias.asname or alias.name.split(".")[0])
    return found


def conditional(body: list[ast.stmt]) -> set[str]:
    """Names defined inside a top-level `if`, `try`, `with`, loop: there may be two."""
    found: set[str] = set()
    for node in body:
        if isinstance(node, DEFS):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, DEFS):
                found.add(inner.name)
    return found


def partial(
    old: ast.ClassDef, new: ast.ClassDef, old_lines: list[str], new_lines: list[str]
) -> bool:
    """The snippet's class leaves out a member of the file's class."""
    have = {m.name for m in new.body if isinstance(m, DEFS)}
    text = source(new_lines, new)
    for member in old.body:
        if isinstance(member, DEFS):
            if member.name not in have:
                return True
        elif source(old_lines, member).strip() not in text:
            return True
    return False


def main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    sides = [node.test.left, *node.test.comparators]
    return any(isinstance(s, ast.Name) and s.id == "__name__" for s in sides)


def first_line(node: ast.stmt) -> int:
    """0-based index of a statement's first line, its decorators included."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno] + [d.lineno for d in decorators]) - 1


def comments_above(lines: list[str], start: int) -> int:
    while start > 0 and lines[start - 1].strip().startswith("#"):
        start -= 1
    return start


def comment_lines(lines: list[str]) -> int:  # how many comment lines open `lines`
    return next((k for k, x in enumerate(lines) if not x.strip().startswith("#")), len(lines))


def source(lines: list[str], node: ast.stmt) -> str:
    return "".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])


def reindent(lines: list[str], indent: str) -> list[str]:
    """Lines moved from their own indentation (the first line's) to `indent`; blank lines
    and lines indented less (a string's continuation) stay as they are."""
    first = next((x for x in lines if x.strip()), "")
    own = first[: len(first) - len(first.lstrip())]
    if own == indent:
        return list(lines)
    return [indent + x[len(own) :] if x.strip() and x.startswith(own) else x for x in lines]


def code(body: list[ast.stmt]) -> list[ast.stmt]:
    """Top-level statements that are neither definitions nor imports."""
    return [x for x in body if not isinstance(x, DEFS + IMPORTS)]


def statement(lines: list[str], node: ast.stmt) -> str:
    return source(lines, node).strip()


def statements(lines: list[str], body: list[ast.stmt]) -> set[str]:
    return {statement(lines, x) for x in code(body)}

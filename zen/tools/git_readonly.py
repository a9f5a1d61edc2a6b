"""Which git calls only read the repository, and so may run without asking.

A reading subcommand is not enough: `git diff /home/u/.ssh/id_rsa /dev/null` reads any file
(git switches to `--no-index` by itself when a path is outside the repository),
`git blame --ignore-revs-file=/etc/passwd f` and `git blame -S <file>` read files and echo
their lines, `--output` writes one, `--ext-diff`/`--textconv` run programs. So a call is
reading only when the subcommand comes first, every option is on its subcommand's allow-list
(exact names: git also accepts unique abbreviations, which are never on the list), and every
other argument (a revision or a path: they cannot be told apart without asking git) resolves,
symlinks followed, inside the workspace. Anything else is confirm-level: the user sees the
whole command and decides.
"""

from __future__ import annotations

import re

from zen.tools.workspace import Workspace

DIFF_FLAGS = frozenset(
    {
        "-p",
        "-u",
        "--patch",
        "-s",
        "--no-patch",
        "--raw",
        "--patch-with-raw",
        "--patch-with-stat",
        "--stat",
        "--numstat",
        "--shortstat",
        "--dirstat",
        "--summary",
        "--compact-summary",
        "-z",
        "--name-only",
        "--name-status",
        "--check",
        "--full-index",
        "--binary",
        "--abbrev",
        "--no-renames",
        "--find-renames",
        "--find-copies",
        "--find-copies-harder",
        "-D",
        "--irreversible-delete",
        "-R",
        "--text",
        "-a",
        "-w",
        "-b",
        "--ignore-all-space",
        "--ignore-space-change",
        "--ignore-space-at-eol",
        "--ignore-cr-at-eol",
        "--ignore-blank-lines",
        "-W",
        "--function-context",
        "--minimal",
        "--patience",
        "--histogram",
        "--diff-algorithm",
        "--indent-heuristic",
        "--no-indent-heuristic",
        "--no-color",
        "--color",
        "--word-diff",
        "--word-diff-regex",
        "--color-words",
        "--color-moved",
        "--no-color-moved",
        "--no-prefix",
        "--src-prefix",
        "--dst-prefix",
        "--line-prefix",
        "--relative",
        "--no-relative",
        "--unified",
        "--inter-hunk-context",
        "--diff-filter",
        "--pickaxe-all",
        "--pickaxe-regex",
        "--find-object",
        "--anchored",
        "--ignore-submodules",
        "--submodule",
        "--stat-width",
        "--stat-count",
        "--no-ext-diff",
        "--no-textconv",
        "--exit-code",
        "--quiet",
        "--ita-invisible-in-index",
        "--full-diff",
        "-S",
        "-G",
        "-M",
        "-B",
    }
)
"""Diff options (diff, log, show); `-S`, `-G`, `-U`, `-M`, `-l` take attached values."""

LOG_FLAGS = frozenset(
    {
        "--oneline",
        "--graph",
        "--all",
        "--branches",
        "--tags",
        "--remotes",
        "--decorate",
        "--no-decorate",
        "--decorate-refs",
        "--decorate-refs-exclude",
        "--abbrev-commit",
        "--no-abbrev-commit",
        "--pretty",
        "--format",
        "--date",
        "--relative-date",
        "--since",
        "--after",
        "--until",
        "--before",
        "--author",
        "--committer",
        "--grep",
        "--invert-grep",
        "-i",
        "--regexp-ignore-case",
        "-E",
        "--extended-regexp",
        "-F",
        "--fixed-strings",
        "--all-match",
        "--max-count",
        "--skip",
        "--reverse",
        "--first-parent",
        "--merges",
        "--no-merges",
        "--min-parents",
        "--max-parents",
        "--follow",
        "--full-history",
        "--simplify-by-decoration",
        "--topo-order",
        "--date-order",
        "--author-date-order",
        "--left-right",
        "--cherry-pick",
        "--cherry-mark",
        "--cherry",
        "--boundary",
        "--ancestry-path",
        "--parents",
        "--children",
        "--no-walk",
        "--do-walk",
        "--walk-reflogs",
        "-g",
        "--source",
        "--use-mailmap",
        "--mailmap",
        "--no-mailmap",
        "--log-size",
        "--notes",
        "--no-notes",
        "--show-notes",
        "--encoding",
        "--expand-tabs",
        "--no-expand-tabs",
        "--count",
        "-m",
        "--cc",
        "--diff-merges",
        "--exclude",
        "--glob",
        "--not",
        "-t",
        "-n",
    }
)

STATUS_FLAGS = frozenset(
    {
        "-s",
        "--short",
        "-b",
        "--branch",
        "--porcelain",
        "--long",
        "--untracked-files",
        "-u",
        "--ignored",
        "--ignore-submodules",
        "-z",
        "--column",
        "--no-column",
        "--ahead-behind",
        "--no-ahead-behind",
        "--renames",
        "--no-renames",
        "--find-renames",
        "--show-stash",
    }
)

BLAME_FLAGS = frozenset(
    {
        "-b",
        "--root",
        "--show-stats",
        "-l",
        "-t",
        "-s",
        "-e",
        "--show-email",
        "-f",
        "--show-name",
        "-n",
        "--show-number",
        "-p",
        "--porcelain",
        "--line-porcelain",
        "--incremental",
        "-w",
        "--abbrev",
        "--date",
        "--reverse",
        "--first-parent",
        "--score-debug",
        "--color-lines",
        "--color-by-age",
        "--minimal",
        "--encoding",
        "--ignore-rev",
        "--no-textconv",
        "--since",
    }
)

OPTIONS: dict[str, frozenset[str]] = {
    "status": STATUS_FLAGS,
    "diff": DIFF_FLAGS | {"--cached", "--staged", "--merge-base"},
    "log": DIFF_FLAGS | LOG_FLAGS,
    "show": DIFF_FLAGS | LOG_FLAGS,
    "blame": BLAME_FLAGS,
}
READ_ONLY = frozenset(OPTIONS)

ATTACHED: dict[str, str] = {
    "status": "u",
    "diff": "SGUMBl",
    "log": "SGUMBln",
    "show": "SGUMBln",
    "blame": "LMn",
}
"""Short options whose value may be attached (`-U3`, `-Sword`, `-uno`, `-L1,20`); blame has
no `-S` here: there it names a file to read."""

NUMBER = re.compile(r"-\d+")


def option_ok(sub: str, arg: str) -> bool:
    """Whether `arg` (starting with `-`) is an allowed option of `sub`."""
    allowed = OPTIONS[sub]
    if arg.startswith("--"):
        return arg.partition("=")[0] in allowed
    if NUMBER.fullmatch(arg):
        return sub in ("log", "show")  # -5: the last five
    letters = arg[1:]
    if not letters:
        return False  # `-`: stdin
    if letters[0] in ATTACHED[sub] and (
        len(letters) > 1 or f"-{letters}" in allowed or sub == "blame"
    ):
        return True
    return all(f"-{c}" in allowed for c in letters)  # a bundle such as -sb


def path_inside(arg: str, workspace: Workspace) -> bool:
    """Whether a revision-or-path argument, taken as a path relative to the workspace root
    (absolute ones as they are, symlinks followed), stays inside the workspace."""
    if "\0" in arg:
        return False
    try:
        real = (workspace.root / arg).resolve()
    except (OSError, RuntimeError, ValueError):
        return False
    return any(
        real == root or real.is_relative_to(root)
        for root in (workspace.root, *workspace.extra_roots)
    )


def only_reads(parts: list[str], workspace: Workspace) -> bool:
    """Whether `git <parts>` only reads the repository inside the workspace (module doc)."""
    sub = parts[0]
    if sub not in READ_ONLY:
        return False  # also every global option placed first: -C, -c, --git-dir, --exec-path
    paths_only = False
    for arg in parts[1:]:
        if not paths_only and arg == "--":
            paths_only = True
        elif not paths_only and arg.startswith("-"):
            if not option_ok(sub, arg):
                return False
        elif not path_inside(arg, workspace):
            return False
    return True


def reading_flags(parts: list[str]) -> list[str]:
    """Flags put right after a reading subcommand so no external diff or text conversion
    runs and no ignore-revs file is read, whoever configured them."""
    if parts[0] in ("diff", "log", "show"):
        return ["--no-ext-diff", "--no-textconv"]
    if parts[0] == "blame":
        return ["--no-textconv", "--no-ignore-revs-file"]
    return []

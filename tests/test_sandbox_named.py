"""What the guard reads from git's configuration as a path it must guard (`named`,
`command_paths`), without a sandbox: the fifth round's forms (docs/security.md) as units."""

from __future__ import annotations

from pathlib import Path

import pytest

from zen.tools.sandbox.command_paths import MAX_WORDS, command_paths
from zen.tools.sandbox.named import MAX_PATHS, named


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "t.sh").write_text("true\n")
    (tmp_path / "src").mkdir()
    return tmp_path


@pytest.mark.parametrize(
    "command",
    [
        "sh scripts/t.sh",
        "sh scri''pts/t.sh",
        "sh scr\\ipts/t.sh",
        "sh scripts/{t,u}.sh",
        'sh "$(git rev-parse --show-toplevel)/scripts/t.sh"',
        "sh $PWD/scripts/t.sh",
        "sh<scripts/t.sh",
        "f() { sh scripts/t.sh; }; f",
    ],
)
def test_a_script_in_any_shell_form_is_found(tree: Path, command: str) -> None:
    assert tree / "scripts" / "t.sh" in command_paths(command, tree)


def test_a_glob_gives_its_matches_and_its_folder(tree: Path) -> None:
    found = command_paths("sh scripts/t*.sh", tree)
    assert tree / "scripts" / "t.sh" in found and tree / "scripts" in found


def test_a_module_gives_its_package_and_file(tree: Path) -> None:
    found = command_paths("python3 -m tools.clean --all", tree)
    assert tree / "tools" in found and tree / "tools.py" in found


def test_never_the_tree_a_parent_or_a_folder_after_a_variable(tree: Path) -> None:
    """`. env.sh`'s dot and `$HOME/src` must not guard the work tree or its src/: every
    sandboxed write there would be undone."""
    found = command_paths(". ./env.sh; cd .. && ls $HOME/src", tree)
    assert tree not in found and tree.parent not in found and tree / "src" not in found


def test_unbalanced_quotes_and_huge_braces_still_end(tree: Path) -> None:
    assert tree / "scripts" / "t.sh" in command_paths("sh 'scripts/t.sh", tree)
    assert len(command_paths("x" + "{a,b}" * 40, tree)) < 5_000


def config(tree: Path, body: str) -> list[Path]:
    (tree / ".git").mkdir(exist_ok=True)
    (tree / ".git" / "config").write_text(body)
    return named(tree / ".git")


@pytest.mark.parametrize(
    "body",
    [
        "[pager]\n\tlog = sh scripts/t.sh\n",
        '[submodule "x"]\n\tupdate = !sh scripts/t.sh\n',
        '[gpg "ssh"]\n\tdefaultKeyCommand = sh scripts/t.sh\n',
        "[interactive]\n\tdiffFilter = sh scripts/t.sh\n",
        "[core]\n\talternateRefsCommand = sh scripts/t.sh\n",
        '[hook "lint"]\n\tcommand = sh scripts/t.sh\n',
        "\ufeff[alias]\n\tt = !sh scripts/t.sh\n",
        "[alias]\n\tt = !sh \\\n\t\tscripts/t.sh\n",
    ],
    ids=["pager", "submodule", "ssh key", "diff filter", "alternate refs", "hook", "bom", "cont"],
)
def test_keys_and_syntax_git_reads_are_read(tree: Path, body: str) -> None:
    assert tree / "scripts" / "t.sh" in config(tree, body)


def test_a_template_folder_is_named(tree: Path) -> None:
    assert tree / "tpl" in config(tree, "[init]\n\ttemplateDir = tpl\n")


def test_plain_settings_name_nothing(tree: Path) -> None:
    body = "[user]\n\tname = scripts\n[core]\n\tautocrlf = input\n[pager]\n\tbranch = false\n"
    assert config(tree, body) == []


def test_a_hostile_configuration_is_read_within_a_budget(tree: Path) -> None:
    """Thousands of brace tokens (each 2,048 paths) held every sandboxed command for minutes:
    expansions are counted per command and commands per configuration, and a script named
    first is still found."""
    token = "d/x" + "{a,b}" * 11
    assert len(command_paths(" ".join([token] * 1_000), tree)) <= 2 * MAX_WORDS
    junk = "".join(f"\ta{i} = !sh {' '.join([token] * 50)}\n" for i in range(400))
    found = config(tree, "[alias]\n\tt = !sh scripts/t.sh\n" + junk)
    assert tree / "scripts" / "t.sh" in found and len(found) <= 2 * MAX_WORDS * 2


def test_past_the_budgets_every_command_is_still_read(tree: Path) -> None:
    """The seventh round: the budgets dropped what came after them, so a script named after
    16 KB of (a person's, say gitalias') commands, after 4 KB of one command, or as the 33rd
    glob ran unguarded. Past them only the expansions stop."""
    (tree / "scripts").mkdir(exist_ok=True)
    (tree / "t1.sh").write_text("")
    padding = "".join(f"\ta{i} = !git log --oneline -n {i} --format=%h%x09%s\n" for i in range(600))
    assert len(padding) > 16_384
    found = config(tree, "[alias]\n" + padding + "\tt = !sh scripts/late.sh\n")
    assert tree / "scripts" / "late.sh" in found
    long = "echo " + "x " * 3_000 + "&& sh scripts/far.sh"
    assert tree / "scripts" / "far.sh" in command_paths(long, tree)
    globs = " ".join(f"d{i}/*.txt" for i in range(40))
    assert tree / "t1.sh" in command_paths(f"ls {globs}; sh t*.sh", tree)
    assert tree / "scripts" in command_paths(f"ls {globs}; sh scripts/t*.sh", tree)


def test_a_configuration_naming_thousands_of_paths_is_guarded_by_their_top_folders(
    tree: Path,
) -> None:
    """Read whole, a hostile file named 77,000 paths, one bind each: past MAX_PATHS the work
    tree's top entries they go through are guarded instead, the existing ones first."""
    many = " ".join(f"w{k}/f.sh" for k in range(MAX_PATHS))
    found = config(tree, f"[alias]\n\tt = !sh scripts/t.sh {many}\n\tu = !sh src/x.sh\n")
    assert len(found) <= MAX_PATHS
    assert tree / "scripts" in found and tree / "src" in found  # existing: never dropped
    assert tree / "scripts" / "t.sh" not in found  # its folder stands for it

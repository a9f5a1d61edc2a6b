"""Allow rules by command: `allow_commands: [pytest, npm test]` runs those without asking.

A rule is one or more plain words. It matches a simple command whose first words are exactly
those, written plainly (unquoted, no glob), whatever follows: a rule approves the program with
any arguments (`pytest` approves `pytest -p plugin`; `npm test` runs whatever package.json
says). A command line matches only when `command_words` reads all of it and every simple
command in it matches a rule: `pytest && npm test` with both rules; never `pytest; rm -rf ~`,
`pytest $(evil)`, `FOO=1 pytest`, `pytestx` or `./pytest`.

A rule may not name what would approve anything: a shell keyword, an assignment, a program
that runs another command (`eval`, `exec`, `env`, `sudo`, `xargs`, `time`, a shell...) or one
that changes what later commands run or where (`cd`, `export`, `alias`, `hash`, `source`...).
`find` matches only without `-exec`, `-execdir`, `-ok`, `-okdir`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from posixpath import basename

from zen.settings.command_words import Word, simple_commands

Rule = tuple[str, ...]

KEYWORDS = frozenset(
    {
        "!",
        "[[",
        "]]",
        "{",
        "}",
        "case",
        "coproc",
        "do",
        "done",
        "elif",
        "else",
        "esac",
        "fi",
        "for",
        "function",
        "if",
        "in",
        "select",
        "then",
        "time",
        "until",
        "while",
    }
)
RUNNERS = frozenset(
    {
        "eval",
        "exec",
        "command",
        "builtin",
        "env",
        "sudo",
        "doas",
        "su",
        "runuser",
        "xargs",
        "nohup",
        "timeout",
        "nice",
        "ionice",
        "stdbuf",
        "setsid",
        "chroot",
        "unbuffer",
        "watch",
        "parallel",
        "strace",
        "ltrace",
        "gdb",
        "nsenter",
        "flock",
        "script",
        "busybox",
        "bash",
        "sh",
        "zsh",
        "dash",
        "ksh",
        "mksh",
        "fish",
        "csh",
        "tcsh",
        "ssh",
    }
)
"""Programs whose arguments are another command: a rule for them would approve any."""
STATE = frozenset(
    {
        ".",
        "source",
        "cd",
        "pushd",
        "popd",
        "export",
        "alias",
        "unalias",
        "hash",
        "set",
        "shopt",
        "trap",
        "enable",
        "declare",
        "typeset",
        "local",
        "readonly",
        "unset",
        "let",
        "read",
        "mapfile",
        "readarray",
    }
)
"""Builtins that change what later commands run, or where (`hash -p`, `cd`, `export PATH`)."""
NEVER = KEYWORDS | RUNNERS | STATE
FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})

SUBCOMMANDS = frozenset(
    {
        "npm",
        "yarn",
        "pnpm",
        "bun",
        "npx",
        "pnpx",
        "bunx",
        "uvx",
        "cargo",
        "go",
        "uv",
        "poetry",
        "pipenv",
        "pdm",
        "hatch",
        "rye",
        "pip",
        "pip3",
        "make",
        "git",
        "docker",
        "podman",
        "kubectl",
        "dotnet",
        "mvn",
        "gradle",
        "gradlew",
        "bundle",
        "rake",
        "mix",
        "composer",
        "deno",
        "gh",
        "just",
        "tox",
        "nox",
        "swift",
        "flutter",
        "dart",
        "zig",
        "stack",
        "cabal",
        "bazel",
        "brew",
        "apt",
        "conda",
    }
)
"""Programs whose first argument names what they do (`npm test`): "always" keeps both words."""
RUN_WORDS = frozenset({"run", "exec", "dlx", "x"})
"""Their subcommands that run a named script or package: "always" keeps that name too."""
INTERPRETERS = frozenset(
    {
        "python",
        "python3",
        "node",
        "perl",
        "ruby",
        "php",
        "lua",
        "Rscript",
        "pwsh",
        "powershell",
        "osascript",
    }
)
"""Any code at all: "always" is offered only for `python -m module`."""
KEPT = "bash:"
"""How a rule chosen with "always" is kept among the session's always answers."""


def kept(rule: str) -> str:
    """How `rule`, chosen with "always", is kept among the session's always answers."""
    return KEPT + " ".join(rule_words(rule))


def always_names(rule: str | None, tool: str) -> str:
    """What an "always" answer to a question would allow, in the question's words ("" when
    none is offered: a bash command no rule fits)."""
    if rule is None:
        return tool
    return f"`{rule} …`" if rule else ""


def rule_words(text: str) -> Rule:
    """The rule `text` names; ValueError saying why it is not one."""
    parts = simple_commands(text) if isinstance(text, str) else None
    if not parts or len(parts) != 1 or not all(word.plain for word in parts[0]):
        raise ValueError(
            f"{text!r} is not a command rule: write the program and, if you like, its first "
            "arguments as plain words, e.g. `pytest` or `npm test` (no quotes, globs, "
            "operators or variables)"
        )
    words = tuple(word.text for word in parts[0])
    program = words[0]
    if "=" in program:
        raise ValueError(f"{text!r} starts with a variable assignment; name the program")
    if basename(program) in NEVER:
        raise ValueError(
            f"{text!r}: {program} runs or changes other commands, so a rule for it would "
            "approve any command; name the program it runs instead"
        )
    return words


def matches(part: list[Word], rule: Rule) -> bool:
    """Whether one simple command starts with the rule's words, written plainly."""
    head = part[: len(rule)]
    if len(head) < len(rule) or not all(word.plain for word in head):
        return False
    if any(word.text != wanted for word, wanted in zip(head, rule, strict=True)):
        return False
    program = basename(part[0].text)
    if "=" in part[0].text or program in NEVER:  # a rule never names these; checked again
        return False
    return program != "find" or not any(word.text in FIND_RUNS for word in part[1:])


def allowed(command: str, rules: Iterable[Rule]) -> bool:
    """Every simple command of `command` matches a rule, and all of it was read."""
    rules = list(rules)
    parts = simple_commands(command)
    if not parts or not rules:
        return False
    return all(any(matches(part, rule) for rule in rules) for part in parts)


def offered(command: str) -> str:
    """The rule "always" offers for `command` ("" when none fits): its program, with the
    subcommand of a multi-command tool (`npm test`, `uv run pytest`, `python -m pytest`)."""
    parts = simple_commands(command)
    if not parts or len(parts) != 1 or not parts[0][0].plain:
        return ""
    words = parts[0]
    try:
        rule_words(words[0].text)
    except ValueError:
        return ""
    program = basename(words[0].text)
    if program in INTERPRETERS:
        module = len(words) > 2 and words[1].plain and words[1].text == "-m" and _name(words[2])
        return _join(words[:3]) if module else ""
    if program not in SUBCOMMANDS:
        return words[0].text
    if len(words) < 2 or not _name(words[1]):
        return ""  # `npm --prefix x test`: the whole of npm is more than the user asked for
    if words[1].text in RUN_WORDS and len(words) > 2 and _name(words[2]):
        return _join(words[:3])
    return _join(words[:2])


def _name(word: Word) -> bool:
    """A word that names something: plain, and not an option."""
    return word.plain and not word.text.startswith("-")


def _join(words: list[Word]) -> str:
    return " ".join(word.text for word in words)


@dataclass
class CommandRules:
    """The rules a session's bash calls are matched against: the configuration's, and those the
    user chose with "always" (kept in the session's always answers, so saved and resumed)."""

    configured: tuple[Rule, ...] = ()
    kept: set[str] = field(default_factory=set)

    def allows(self, command: str) -> bool:
        return allowed(command, [*self.configured, *self._chosen()])

    def _chosen(self) -> list[Rule]:
        chosen = []
        for entry in self.kept:
            if entry.startswith(KEPT):
                try:
                    chosen.append(rule_words(entry[len(KEPT) :]))
                except ValueError:  # a kept rule zen no longer accepts: it approves nothing
                    continue
        return chosen

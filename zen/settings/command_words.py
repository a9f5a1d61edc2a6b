"""A bash command line split into simple commands and their words, or None: fail closed.

This is not a shell parser. It reads a small, safe subset of bash and refuses the rest, so an
allow rule (`command_rules.py`) is only ever matched against words bash would see the same way.
Accepted:

- words of ASCII letters, digits and `_-./:=+,@%^`, and `*?[]` (a glob: the word is marked,
  since bash may turn it into other words);
- single quotes (anything printable but a newline inside) and double quotes with no `$`, `` ` ``,
  `\\`, `!` inside: a quoted word is marked, since a rule never matches one;
- separators between simple commands: `;`, `&&`, `||`, `|`, `|&`, `&`, a newline;
- redirections that open no file: `2>&1`, `>&2`, `N>/dev/null`, `&>/dev/null` (and `>>`).

Anything else makes the whole command unparsed: `$` (variables, `$(...)`), backticks, `\\`,
`<` (input, here-documents, `<(...)`), other redirections, `(`, `)`, `{`, `}`, `~`, `#`, `!`,
control characters, non-ASCII outside quotes (lookalike letters), an empty command between
separators. Whether a word is a program, an assignment or a shell keyword is `command_rules`'s
business, not this module's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=+,@%^")
_GLOB = frozenset("*?[]")
_BLANK = " \t"
_REDIRECT = re.compile(r"(?:[0-2]?>&[0-2]|(?:[0-2]?|&)>>?[ \t]*/dev/null)(?=[ \t\n;&|]|$)")
"""The redirections that open no file: duplicating stdout/stderr, or discarding to /dev/null."""
_SEPARATORS = ("&&", "||", "|&", ";", "&", "|", "\n")
_FORBIDDEN_IN_DOUBLE = frozenset("$`\\!")
_MAY_END = (";", "&", "\n")
"""What may end a command line (`cmd &`); a trailing `|` or `&&` is bash's syntax error."""


@dataclass(frozen=True)
class Word:
    text: str
    """The word as bash passes it on (quotes removed)."""
    plain: bool = True
    """Neither quoted nor a glob: bash passes these characters as written."""


def simple_commands(command: str) -> list[list[Word]] | None:
    """The simple commands of `command` (between separators), each its words, redirections
    left out; None when any part is outside the subset above."""
    if any(ord(c) < 32 and c not in "\t\n" or ord(c) == 127 for c in command):
        return None
    parts: list[list[Word]] = []
    words: list[Word] = []
    redirected = False
    last = ""
    i, end = 0, len(command)
    while i < end:
        char = command[i]
        if char in _BLANK:
            i += 1
            continue
        redirect = _REDIRECT.match(command, i)
        if redirect:
            redirected, i = True, redirect.end()
            continue
        separator = next((s for s in _SEPARATORS if command.startswith(s, i)), None)
        if separator:
            if not words:  # `;;`, a leading `&&`, a redirection alone
                return None
            parts.append(words)
            words, redirected, last = [], False, separator
            i += len(separator)
            continue
        read = _word(command, i)
        if read is None:
            return None
        word, i = read
        words.append(word)
    if words:
        parts.append(words)
    elif redirected or not parts or last not in _MAY_END:
        return None
    return parts


def _word(command: str, i: int) -> tuple[Word, int] | None:
    """The word starting at `i` and where it ends; None if it has a character outside the
    subset."""
    text: list[str] = []
    plain = True
    end = len(command)
    while i < end:
        char = command[i]
        if char in _BLANK or char == "\n" or char in ";&|<>()":
            if char in "<>()":  # a redirection not in the safe list, a subshell, `<(...)`
                return None
            break
        if char == "'":
            close = command.find("'", i + 1)
            quoted = command[i + 1 : close]
            if close < 0 or "\n" in quoted:
                return None
            text.append(quoted)
            plain, i = False, close + 1
        elif char == '"':
            close = command.find('"', i + 1)
            quoted = command[i + 1 : close]
            if close < 0 or "\n" in quoted or _FORBIDDEN_IN_DOUBLE & set(quoted):
                return None
            text.append(quoted)
            plain, i = False, close + 1
        elif char in _PLAIN:
            text.append(char)
            i += 1
        elif char in _GLOB:
            text.append(char)
            plain, i = False, i + 1
        else:  # $ ` \ { } ~ # ! and anything non-ASCII
            return None
    return Word("".join(text), plain), i

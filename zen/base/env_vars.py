"""`${VAR}` in settings: the one rule for config files and `.mcp.json`.

- `$NAME` and `${NAME}` are the variable's value; a name is ASCII letters, digits and `_`,
  not starting with a digit.
- `${NAME:-default}` is `default` when NAME is unset or empty.
- `$$` is a literal `$`; a `$` followed by anything else stays as it is.
- An unset NAME without a default stays as written, and its name is reported: the caller
  decides what that costs (a config file: an error; an MCP server: that server).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

VAR = re.compile(r"\$(?:(\$)|\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand(text: str, env: Mapping[str, str]) -> tuple[str, list[str]]:
    """`text` with its variables replaced from `env`, and the names that were not set."""
    missing: list[str] = []

    def substitute(match: re.Match[str]) -> str:
        if match[1]:
            return "$"
        name = match[2] or match[4]
        value = env.get(name)
        if match[3] is not None and not value:
            return match[3][2:]
        if value is None:
            missing.append(name)
            return match[0]
        return value

    return VAR.sub(substitute, text), missing


def names(text: str) -> set[str]:
    """The variables `text` refers to (`$$` is none)."""
    return {m[2] or m[4] for m in VAR.finditer(text) if not m[1]}


def is_reference(text: str) -> bool:
    """Whether `text` is exactly one variable (`${KEY}`), not a literal value."""
    match = VAR.fullmatch(text)
    return match is not None and not match[1]

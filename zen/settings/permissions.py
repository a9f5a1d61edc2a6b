"""The `permissions` setting's keys and levels, checked so that a misspelt key fails closed.

Apart from `schema.py` so the config schema stays one screenful of fields.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from typing import Annotated, Literal

from pydantic import AfterValidator

from zen.settings.command_rules import rule_words
from zen.settings.prompts import tool_names

Level = Literal["auto", "confirm", "deny"]
PermissionLevel = Literal["auto", "confirm", "deny", "sandboxed"]
"""`sandboxed` (bash only): auto when the command runs in the sandbox, else confirm."""

_MCP_KEY = re.compile(r"mcp__(\*|[^\s*]+?(__(\*|[^\s*]+))?)")


def _permission_key(key: str) -> str:
    """Fail closed: a misspelt key (`Bash`, `"bash "`, `bsh`) would be silently ignored and
    leave the tool at its default, so it is an error with a did-you-mean."""
    names = tool_names()
    if key in names or _MCP_KEY.fullmatch(key):
        return key
    close = get_close_matches(key.strip().lower(), names, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise ValueError(
        f"unknown tool {key!r}{hint}; use a built-in tool name ({', '.join(names)}) "
        "or mcp__*, mcp__<server>, mcp__<server>__<tool>"
    )


PermissionKey = Annotated[str, AfterValidator(_permission_key)]


def _command_rule(rule: str) -> str:
    """An `allow_commands` rule, its words normalised; a rule zen cannot read is an error, so
    no half-understood rule approves anything."""
    return " ".join(rule_words(rule))


CommandRule = Annotated[str, AfterValidator(_command_rule)]

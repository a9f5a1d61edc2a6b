"""The `permissions` setting's keys and levels, checked so that a misspelt key fails closed.

Apart from `schema.py` so the config schema stays one screenful of fields.
"""

from __future__ import annotations

import re
from difflib import get_close_matches
from typing import Annotated, Literal

from pydantic import AfterValidator

Level = Literal["auto", "confirm", "deny"]
PermissionLevel = Literal["auto", "confirm", "deny", "sandboxed"]
"""`sandboxed` (bash only): auto when the command runs in the sandbox, else confirm."""

BUILTIN_TOOLS = (
    "read-file",
    "write-file",
    "edit-file",
    "glob",
    "grep",
    "bash",
    "memo",
    "todo",
    "send-to-coder",
    "revert-coder",
    "spawn-agents",
    "git",
)
"""The names `permissions` may use besides MCP forms (a test keeps it equal to the catalog)."""
_MCP_KEY = re.compile(r"mcp__(\*|[^\s*]+?(__(\*|[^\s*]+))?)")


def _permission_key(key: str) -> str:
    """Fail closed: a misspelt key (`Bash`, `"bash "`, `bsh`) would be silently ignored and
    leave the tool at its default, so it is an error with a did-you-mean."""
    if key in BUILTIN_TOOLS or _MCP_KEY.fullmatch(key):
        return key
    close = get_close_matches(key.strip().lower(), BUILTIN_TOOLS, n=1, cutoff=0.6)
    hint = f" (did you mean {close[0]}?)" if close else ""
    raise ValueError(
        f"unknown tool {key!r}{hint}; use a built-in tool name ({', '.join(BUILTIN_TOOLS)}) "
        "or mcp__*, mcp__<server>, mcp__<server>__<tool>"
    )


PermissionKey = Annotated[str, AfterValidator(_permission_key)]

"""The tools zen ships, found by name: `prompts/tools/<name>.md` and the one tool class of
`zen/tools/<name>.py` (dashes as underscores).

Adding a tool is its module, its description and one line in a role (`zen/agent/roles.py`):
what the rest of zen needs to know about it (permission level, whether it writes, its Claude
Code name, its ACP kind, whether it nests agents, what it needs) is on its class, and every
table that used to repeat it is read from here.
"""

from __future__ import annotations

import inspect
from functools import cache
from importlib import import_module

from zen.settings.prompts import tool_names
from zen.tools.base import Tool


@cache
def tool_classes() -> dict[str, type[Tool]]:
    """Every shipped tool's class, by name."""
    return {name: _class_of(name) for name in tool_names()}


def _class_of(name: str) -> type[Tool]:
    module = import_module(f"zen.tools.{name.replace('-', '_')}")
    found = [
        value
        for value in vars(module).values()
        if inspect.isclass(value)
        and issubclass(value, Tool)
        and value.__module__ == module.__name__
        and not inspect.isabstract(value)
    ]
    if len(found) != 1 or found[0].name != name:
        shown = ", ".join(f"{c.__name__} ({c.name})" for c in found) or "none"
        raise LookupError(f"{module.__name__} must define one tool named {name!r}; it has {shown}")
    return found[0]


def builtin_tools() -> dict[str, Tool]:
    """One instance of each tool, by name: tools are stateless, so one serves every agent."""
    return {name: cls() for name, cls in tool_classes().items()}


def described(name: str) -> type[Tool] | None:
    """The class of the shipped tool `name` (None: an MCP tool, or no tool) for what front-ends
    show of its calls."""
    return tool_classes().get(name)


def shell_name() -> str:
    from zen.tools.bash import shell_description

    return shell_description()

"""A server's `tools/list`, bounded: pagination that loops or never ends, duplicate names and
tools zen cannot call are stopped or dropped here, each with a note saying what and how much.

A hostile or buggy server must not be able to put 100 copies of one tool, or an unbounded
number of tools, into every request zen sends.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from zen.mcp.tool import RemoteTool

MAX_PAGES = 100
MAX_TOOLS = 1000
"""Per server; beyond it tools are dropped with a note (bounded memory and requests)."""


@dataclass
class Listing:
    tools: list[RemoteTool] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What was stopped or dropped, for the user (one line each)."""
    hidden: int = 0
    """Tools that need MCP Tasks, which zen does not support: never offered to the model."""


async def list_tools(client: Any) -> Listing:
    listing = Listing()
    names: set[str] = set()
    cursors: set[str] = set()
    repeated = 0
    cursor: str | None = None
    for page_number in range(1, MAX_PAGES + 1):
        page = await client.list_tools(cursor=cursor)
        fresh = 0
        for tool in page.tools:
            if tool.name in names:
                repeated += 1
                continue
            fresh += 1
            names.add(tool.name)
            if _needs_tasks(tool):
                listing.hidden += 1
                continue
            if len(listing.tools) < MAX_TOOLS:
                listing.tools.append(_remote(tool))
        cursor = page.next_cursor
        if cursor is None:
            break
        if cursor in cursors or (page.tools and not fresh):
            listing.notes.append(
                f"tools/list pagination loops (page {page_number} repeats an earlier "
                f"{'cursor' if cursor in cursors else 'page'}); stopped there"
            )
            break
        cursors.add(cursor)
    else:
        listing.notes.append(f"tools/list still had more pages after {MAX_PAGES}; stopped there")
    if repeated and not listing.notes:
        listing.notes.append(f"{repeated} repeated tool name(s) ignored")
    if len(names) - listing.hidden > MAX_TOOLS:
        listing.notes.append(
            f"{len(names) - listing.hidden} tools listed; only the first {MAX_TOOLS} are used"
        )
    return listing


def _needs_tasks(tool: Any) -> bool:
    execution = getattr(tool, "execution", None)
    return getattr(execution, "task_support", None) == "required"


def _remote(tool: Any) -> RemoteTool:
    annotations = tool.annotations
    return RemoteTool(
        name=tool.name,
        description=tool.description or "",
        input_schema=dict(tool.input_schema or {}),
        read_only=bool(annotations and annotations.read_only_hint),
    )

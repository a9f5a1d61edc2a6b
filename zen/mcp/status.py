"""What `/mcp` and `zen mcp list` say about each server: its status, as plain text."""

from __future__ import annotations

from dataclasses import dataclass, field

from zen.mcp.connection import State
from zen.mcp.servers import Kind


@dataclass(frozen=True)
class ServerStatus:
    name: str
    kind: Kind
    state: State
    error: str | None = None
    tools: list[str] = field(default_factory=list)
    """zen's names for the server's tools (`mcp__<server>__<tool>`), while it runs."""
    restarts: int = 0
    """How often the server was restarted (a call found it gone, or `/mcp restart`)."""
    notes: list[str] = field(default_factory=list)
    """What listing its tools stopped or dropped, and tools hidden because they need Tasks."""


def format_status(statuses: list[ServerStatus]) -> str:
    """Plain text for `zen mcp list` and the shell's `/mcp`."""
    if not statuses:
        return "No MCP servers configured."
    lines: list[str] = []
    for status in statuses:
        head = f"{status.name} ({status.kind}): {status.state}"
        if status.error:
            head += f": {status.error}"
        elif status.state == "running":
            count = len(status.tools)
            head += f", {count} tool{'' if count == 1 else 's'}"
        if status.restarts:
            head += f" (restarted {status.restarts}x)"
        lines.append(head)
        lines.extend(f"    note: {note}" for note in status.notes)
        lines.extend(f"    {name}" for name in status.tools)
    return "\n".join(lines)

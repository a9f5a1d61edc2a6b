"""Who may use which tool: roles are data, not classes.

The single agent holds every built-in tool. In dual mode the Orchestrator scouts and delegates
and never holds write-file / edit-file except in `controlled` mode, where the Coder has no tools
and answers with code the Orchestrator applies.
"""

from __future__ import annotations

SCOUT = ["read-file", "glob", "grep", "memo", "todo", "bash"]
WRITE = ["write-file", "edit-file"]
EXTRA = ["spawn-agents", "git"]
"""Held by the agent the user talks to, when their feature is on (the session filters)."""

SINGLE = ["read-file", "write-file", "edit-file", "glob", "grep", "bash", "memo", "todo", *EXTRA]

ORCHESTRATOR: dict[str, list[str]] = {
    "delegated": [*SCOUT, "send-to-coder", "revert-coder", *EXTRA],
    "autonomous": [*SCOUT, "send-to-coder", "revert-coder", *EXTRA],
    "controlled": [*SCOUT, "send-to-coder", "revert-coder", *WRITE, *EXTRA],
}

CODER: dict[str, list[str]] = {
    "delegated": ["read-file", *WRITE, "memo"],
    "autonomous": ["read-file", *WRITE, "memo", "glob", "grep", "bash", "todo"],
    "controlled": [],
}

SUBAGENT: dict[str, list[str]] = {
    "explore": ["read-file", "glob", "grep", "memo"],
    "plan": ["read-file", "glob", "grep", "memo"],
    "code": CODER["delegated"],
}

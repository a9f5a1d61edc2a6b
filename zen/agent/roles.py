"""Who may use which tool: roles are data, not classes.

The single agent holds every built-in tool. In dual mode the Orchestrator scouts and delegates
and never holds write-file / edit-file except in `controlled` mode, where the Coder has no tools
and answers with code the Orchestrator applies.
"""

from __future__ import annotations

SCOUT = ["read-file", "glob", "grep", "memo", "todo", "bash"]
WRITE = ["write-file", "edit-file"]

SINGLE = ["read-file", "write-file", "edit-file", "glob", "grep", "bash", "memo", "todo"]

ORCHESTRATOR: dict[str, list[str]] = {
    "delegated": [*SCOUT, "send-to-coder"],
    "autonomous": [*SCOUT, "send-to-coder"],
    "controlled": [*SCOUT, "send-to-coder", *WRITE],
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

OPTIONAL = {"todo", "spawn-agents", "git"}
"""Tools that a feature flag can take away."""

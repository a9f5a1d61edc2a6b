"""zen's MCP client: configured servers' tools become zen tools named `mcp__<server>__<tool>`.

Importing this package is cheap: the `mcp` SDK (~0.6 s to import) loads only when a server
actually starts.
"""

from __future__ import annotations

from zen.mcp.manager import McpManager, ServerStatus, default_log_path, format_status, mcp_list
from zen.mcp.servers import collect_servers, mcp_enabled, read_mcp_json
from zen.mcp.tool import McpTool, mcp_level

__all__ = [
    "McpManager",
    "McpTool",
    "ServerStatus",
    "collect_servers",
    "default_log_path",
    "format_status",
    "mcp_enabled",
    "mcp_level",
    "mcp_list",
    "read_mcp_json",
]

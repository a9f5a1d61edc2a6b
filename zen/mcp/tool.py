"""An MCP server's tool as a zen `Tool`, and an MCP result as a `ToolResult`.

The server owns its tools' schemas and validates their arguments, so zen passes the schema
through and accepts any JSON object (`McpParams`). Results are read by duck typing on the
content blocks' `type`, which keeps this module free of the `mcp` import.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from zen.tools.base import Level, Tool, ToolContext, ToolResult, clean_schema

PREFIX = "mcp__"
MAX_NAME = 64
MAX_DESCRIPTION = 600
DEFAULT_LEVEL: Level = "confirm"
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


@dataclass(frozen=True)
class RemoteTool:
    """What a server's `tools/list` said about one tool."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = field(default_factory=dict)
    read_only: bool = False


class Caller(Protocol):
    """The connection a tool calls through (it restarts a dead server behind the scenes)."""

    name: str

    async def call(self, tool: str, args: dict[str, Any]) -> ToolResult: ...


class McpParams(BaseModel):
    """Any JSON object: the server validates its own arguments and says what is wrong."""

    model_config = ConfigDict(extra="allow")


def safe(part: str) -> str:
    return _UNSAFE.sub("_", part)


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp__<server>__<tool>` within `^[a-zA-Z0-9_-]{1,64}$`, unique among `taken` (updated).

    A name that is too long or clashes after sanitising keeps its readable start and gets a
    short hash of the original pair, so it stays stable from run to run.
    """
    name = base = f"{PREFIX}{safe(server)}__{safe(tool)}"
    if len(name) > MAX_NAME or name in taken:
        digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()
        for n in range(8, len(digest) + 1):  # lengthen the hash on the rare shared prefix
            name = f"{base[: MAX_NAME - n - 1]}_{digest[:n]}"
            if name not in taken:
                break
    taken.add(name)
    return name


def mcp_level(permissions: Mapping[str, Level], server: str, name: str) -> Level:
    """A tool's permission: its full name, else `mcp__<server>__*` / `mcp__<server>`, else
    `mcp__*`, else `confirm`. Server keys may use the raw or the sanitised server name."""
    keys = [name]
    for srv in dict.fromkeys((safe(server), server)):
        keys += [f"{PREFIX}{srv}__*", f"{PREFIX}{srv}"]
    keys.append(f"{PREFIX}*")
    for key in keys:
        if key in permissions:
            return permissions[key]
    return DEFAULT_LEVEL


class McpTool(Tool):
    """One tool of one MCP server. Name, level and schema are per instance, not per class."""

    Params = McpParams

    def __init__(self, name: str, remote: RemoteTool, caller: Caller, level: Level) -> None:
        # Instance attributes shadow Tool's ClassVars: every MCP tool is an instance of this class.
        self.name = name
        self.level = level
        self.read_only = remote.read_only
        self.remote = remote
        self.server = caller.name
        self.caller = caller

    @property
    def description(self) -> str:
        text = " ".join(self.remote.description.split())
        if not text:
            return f"Tool {self.remote.name!r} of the MCP server {self.server!r}."
        if len(text) > MAX_DESCRIPTION:
            text = text[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0] + "…"
        return text

    def schema(self) -> dict[str, Any]:
        parameters = clean_schema(dict(self.remote.input_schema))
        parameters.setdefault("type", "object")
        if parameters["type"] == "object":
            parameters.setdefault("properties", {})
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": parameters,
            },
        }

    def key_arg(self, args: dict[str, Any]) -> str:
        return super().key_arg(args) or _clip(_compact(args), 80)

    async def preview(self, params: Any, ctx: ToolContext) -> str:
        args = json.dumps(_arguments(params), ensure_ascii=False, indent=2, default=str)
        return f"MCP server {self.server!r}, tool {self.remote.name!r}:\n{args}"  # whole

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return await self.caller.call(self.remote.name, _arguments(params))


def render_result(result: Any) -> ToolResult:
    """A `CallToolResult` as zen reads it: text joined, structured content as compact JSON,
    binaries described, `is_error` as a failed result."""
    structured = getattr(result, "structured_content", None)
    parts: list[str] = []
    shown = structured is None
    for block in getattr(result, "content", None) or []:
        if getattr(block, "type", "") != "text":
            parts.append(_describe_block(block))
            continue
        text = str(getattr(block, "text", ""))
        # Servers repeat structured content as text (spec SHOULD): show it once, compactly.
        if not shown and _parses_to(text, structured):
            text, shown = _compact(structured), True
        elif not shown and structured == {"result": text}:  # the SDK's wrapped plain value
            shown = True
        parts.append(text)
    if not shown:
        parts.append(_compact(structured))
    output = "\n".join(part for part in parts if part)
    if getattr(result, "is_error", False):
        return ToolResult.error(output or "the tool reported an error without a message")
    first = next((line for line in output.splitlines() if line.strip()), "(no output)")
    return ToolResult(ok=True, output=output, summary=_clip(first.strip(), 100))


def _describe_block(block: Any) -> str:
    kind = getattr(block, "type", "")
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", None) or "unknown type"
        return f"[{kind}: {mime}, {_decoded_size(getattr(block, 'data', ''))} bytes]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        uri = getattr(resource, "uri", "")
        text = getattr(resource, "text", None)
        if text is not None:
            return f"[resource {uri}]\n{text}"
        mime = getattr(resource, "mime_type", None) or "unknown type"
        size = _decoded_size(getattr(resource, "blob", ""))
        return f"[resource {uri}: {mime}, {size} bytes]"
    if kind == "resource_link":
        name, uri = getattr(block, "name", ""), getattr(block, "uri", "")
        mime = getattr(block, "mime_type", None)
        return f"[resource link: {name} {uri}" + (f" ({mime})]" if mime else "]")
    return f"[{kind or 'unknown'} content]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _parses_to(text: str, value: Any) -> bool:
    try:
        return bool(json.loads(text) == value)
    except ValueError:
        return False


def _arguments(params: Any) -> dict[str, Any]:
    return params.model_dump() if isinstance(params, BaseModel) else dict(params)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

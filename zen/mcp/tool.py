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

from zen.base.text import clip
from zen.settings.schema import PermissionLevel
from zen.tools.base import Level, Params, Tool, ToolContext, ToolResult
from zen.tools.schemas import clean_schema

PREFIX = "mcp__"
MAX_NAME = 64
MAX_DESCRIPTION = 600
_SHORT_SERVER = 16
"""Length of a long server name's part (hash included) when a tool's name must shrink."""
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


class McpParams(Params):
    """Any JSON object: the server validates its own arguments and says what is wrong."""

    model_config = ConfigDict(extra="allow")


def safe(part: str) -> str:
    return _UNSAFE.sub("_", part)


def tool_name(server: str, tool: str, taken: set[str]) -> str:
    """`mcp__<server>__<tool>` within `^[a-zA-Z0-9_-]{1,64}$`, unique among `taken` (updated).

    A long name loses server characters first (the model tells tools apart by the tool
    part), keeping a short hash of the full server name; only a tool name too long by
    itself is cut too. A name that clashes after sanitising gets a short hash of the
    original pair. Every name is stable from run to run.
    """
    srv, part = safe(server), safe(tool)
    room = MAX_NAME - len(PREFIX) - 2
    if len(srv) + len(part) > room and len(srv) > _SHORT_SERVER:
        srv = f"{srv[: _SHORT_SERVER - 5]}_{_digest(server)[:4]}"
    if len(srv) + len(part) > room:
        part = f"{part[: room - len(srv) - 9]}_{_digest(server, tool)[:8]}"
    name = base = f"{PREFIX}{srv}__{part}"
    if name in taken:
        digest = _digest(server, tool)
        for n in range(8, len(digest) + 1):  # lengthen the hash on the rare shared prefix
            name = f"{base[: MAX_NAME - n - 1]}_{digest[:n]}"
            if name not in taken:
                break
    taken.add(name)
    return name


def _digest(*parts: str) -> str:
    return hashlib.sha1("\0".join(parts).encode()).hexdigest()


def mcp_level(
    permissions: Mapping[str, PermissionLevel], server: str, name: str, approved: bool = False
) -> Level:
    """A tool's permission: its full name, else `mcp__<server>__*` / `mcp__<server>`, else
    `mcp__*`, else `auto` when the server's entry approves the tool (`autoApprove`), else
    `confirm`. Server keys may use the raw or the sanitised server name."""
    keys = [name]
    for srv in dict.fromkeys((safe(server), server)):
        keys += [f"{PREFIX}{srv}__*", f"{PREFIX}{srv}"]
    keys.append(f"{PREFIX}*")
    for key in keys:
        level = permissions.get(key)
        if level is not None:
            return "confirm" if level == "sandboxed" else level  # (bash only: never here)
    return "auto" if approved else DEFAULT_LEVEL


class McpTool(Tool):
    """One tool of one MCP server. Name, level and schema are per instance, not per class, and
    so is `writes`: a server's tool writes unless it says it only reads. Its Claude Code name is
    its own (`mcp__<server>__<tool>` there too); its ACP kind `other`."""

    Params = McpParams

    def __init__(self, name: str, remote: RemoteTool, caller: Caller, level: Level) -> None:
        self.name = name
        self.level = level
        self.read_only = remote.read_only
        self.writes = not remote.read_only
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
        parameters = clean_schema(_without_meta(dict(self.remote.input_schema)))
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
        return super().key_arg(args) or clip(_compact(args), 80)

    async def preview(self, params: Any, ctx: ToolContext) -> str:
        args = json.dumps(_arguments(params), ensure_ascii=False, indent=2, default=str)
        return f"MCP server {self.server!r}, tool {self.remote.name!r}:\n{args}"  # whole

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return await self.caller.call(self.remote.name, _arguments(params))


def render_result(result: Any) -> ToolResult:
    """A `CallToolResult` as zen reads it: text once, binaries described (never their bytes),
    structured content only where it says something the text does not, `is_error` as a
    failed result.

    Servers repeat structured content as text (the spec's SHOULD), and wrap it in shapes of
    their own: server-filesystem sends `{"content": <the text>}`, the Python SDK
    `{"result": <value>}`. Showing those again would double every result.
    """
    structured = getattr(result, "structured_content", None)
    parts: list[str] = []
    shown = structured is None
    for block in getattr(result, "content", None) or []:
        if getattr(block, "type", "") != "text":
            parts.append(_describe_block(block))
            continue
        text = str(getattr(block, "text", ""))
        if not shown and _parses_to(text, structured):
            text, shown = _compact(structured), True  # the same data, compactly
        parts.append(text)
    if not shown:
        stripped = _without_binary(structured)
        if not _told_by(stripped, "\n".join(parts)):
            parts.append(_compact(stripped))
    output = "\n".join(part for part in parts if part)
    if getattr(result, "is_error", False):
        return ToolResult.error(output or "the tool reported an error without a message")
    first = next((line for line in output.splitlines() if line.strip()), "(no output)")
    return ToolResult(ok=True, output=output, summary=clip(first.strip(), 100))


_BINARY_KEYS = ("data", "blob")
_LONG_BASE64 = re.compile(r"[A-Za-z0-9+/=\s]{1000,}")


def _without_binary(value: Any) -> Any:
    """Structured content with base64 payloads (`data`, `blob`, or any long base64 string)
    replaced by their size: bytes a model cannot read cost thousands of tokens each."""
    if isinstance(value, dict):
        return {
            key: _size_note(item)
            if key in _BINARY_KEYS and isinstance(item, str) and len(item) > 64
            else _without_binary(item)
            for key, item in value.items()
        }
    if isinstance(value, list):
        return [_without_binary(item) for item in value]
    if isinstance(value, str) and _LONG_BASE64.fullmatch(value):
        return _size_note(value)
    return value


def _size_note(data: str) -> str:
    return f"[binary data, {_decoded_size(data)} bytes]"


def _told_by(value: Any, text: str) -> bool:
    """Whether every value in `value` already appears in `text` (then it adds nothing)."""
    if isinstance(value, dict):
        return all(_told_by(item, text) for item in value.values())
    if isinstance(value, list):
        return all(_told_by(item, text) for item in value)
    if value is None or (isinstance(value, str) and value.startswith("[binary data, ")):
        return True
    needle = value if isinstance(value, str) else json.dumps(value)
    return needle.strip() in text


_META_KEYS = frozenset({"$schema", "$id", "$comment"})


def _without_meta(schema: Any) -> Any:
    """A schema without the keys that mean nothing to a model (`$schema` alone cost one
    server 676 characters a request)."""
    if isinstance(schema, list):
        return [_without_meta(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    return {
        key: _without_meta(value)
        for key, value in schema.items()
        if not (key in _META_KEYS and isinstance(value, str))
    }


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

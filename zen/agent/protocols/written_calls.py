"""Tool calls a model wrote as text instead of sending them natively: found, or not.

Small local models (Qwen2.5-Coder on llama.cpp or Ollama) often answer with the call as text:
Hermes `<tool_call>` tags, Qwen3's `<function=…>` markup, a fenced or bare JSON object, even
doubled braces. `parse_written_calls` is the one pure function that decides; `ToolProtocol.recover`
(`base.py`) makes what it returns native calls, in either protocol, and the loop runs them like
any other (the registry then checks names and arguments).

The line, after goose ran an example from an explanation as a real call (goose#1857): a reply
that is nothing but call-shaped text (whitespace around, a leading `<think>` block) is a call
attempt, even with an unknown name; call-shaped text anywhere in prose is text. An echo of the
tool list (schemas: a `description`, `parameters` that are a JSON schema, the
`{"type": "function", "function": {...}}` wrapper) makes the whole reply text: nothing runs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_TEXT = 1_000_000
"""A longer reply is not parsed (memory and time stay bounded)."""
MAX_CALLS = 16
"""A reply holding more calls than this is text: a dump, not a turn's calls."""

_KEYS = {"name", "arguments", "parameters", "id", "type"}
"""All a call object may hold; any other key means it is data, not a call."""
_FENCE_LANGS = {"", "json", "tool_call", "tool_code"}
_TAGS = (("<tool_call>", "</tool_call>"), ("<tools>", "</tools>"))
_FUNCTION = re.compile(r"<function=([^>\n]{1,200})>(.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER = re.compile(
    r"<parameter=([^>\n]{1,200})>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL
)


@dataclass(frozen=True)
class WrittenCall:
    """One call found in a reply's text."""

    name: str
    arguments: str
    """The arguments as JSON text, as a native call carries them: the registry parses and
    judges them (a string that is not JSON stays as it was, so the model reads why)."""


class _NotCalls(Exception):
    """The text is not only tool calls (prose, data, an echo of the tool list)."""


def parse_written_calls(text: str, tools: list[dict[str, Any]]) -> list[WrittenCall] | None:
    """The calls `text` attempts, when it is nothing but call-shaped text; else None.

    `tools`: the schemas zen sent (OpenAI's `{"type": "function", "function": {...}}`); they
    type Qwen3's `<parameter=…>` values and tell an echo of themselves from a call. No tools
    sent: no call is possible, None.
    """
    if not tools or len(text) > MAX_TEXT:
        return None
    params = _parameters(tools)
    body = _before_invented_results(_without_think(text.strip()))
    try:
        calls = list(_segments(body, params)) if body else []
    except (_NotCalls, RecursionError):
        return None
    return calls if 0 < len(calls) <= MAX_CALLS else None


def _parameters(tools: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each sent tool's parameters schema, by name."""
    found: dict[str, dict[str, Any]] = {}
    for tool in tools:
        fn = tool.get("function") if isinstance(tool, dict) else None
        if isinstance(fn, dict) and isinstance(fn.get("name"), str):
            schema = fn.get("parameters")
            found[fn["name"]] = schema if isinstance(schema, dict) else {}
    return found


def _without_think(body: str) -> str:
    """A leading `<think>…</think>` block dropped: reasoning some servers leave in the text."""
    if body.startswith("<think>"):
        end = body.find("</think>")
        if end >= 0:
            return body[end + len("</think>") :].strip()
    return body


def _before_invented_results(body: str) -> str:
    """What comes before the first `<tool_response>`: a small model that writes a call often
    goes on to invent its result in the template's own tags (Qwen2.5-Coder-1.5B did). Nothing
    it wrote there was seen; the call before it is still a call attempt, and prose before it
    still makes the reply text."""
    cut = body.find("<tool_response>")
    return body[:cut].strip() if cut >= 0 else body


def _segments(body: str, params: dict[str, dict[str, Any]]) -> Iterator[WrittenCall]:
    """Every call in `body`, which must consist of call segments and whitespace only."""
    i, n = 0, len(body)
    while True:
        while i < n and body[i].isspace():
            i += 1
        if i >= n:
            return
        for start, end in _TAGS:
            if body.startswith(start, i):
                inner, i = _until(body, i + len(start), end)
                yield from _inner(inner, params)
                break
        else:
            if body.startswith("<function=", i):
                inner, i = _until(body, i, "</function>")
                yield from _functions(inner + "</function>", params)
            elif body.startswith("```", i):
                inner, i = _fence(body, i)
                yield from _inner(inner, params)
            elif body[i] in "{[":
                calls, i = _json_at(body, i, params)
                yield from calls
            else:
                raise _NotCalls


def _until(body: str, i: int, end: str) -> tuple[str, int]:
    """The text from `i` to the closing tag, and the index after it; unclosed, to the end."""
    j = body.find(end, i)
    return (body[i:], len(body)) if j < 0 else (body[i:j], j + len(end))


def _fence(body: str, i: int) -> tuple[str, int]:
    """A fenced block's contents (```json, ``` or ```tool_call only) and the index after."""
    line_end = body.find("\n", i)
    if line_end < 0 or body[i + 3 : line_end].strip().lower() not in _FENCE_LANGS:
        raise _NotCalls
    close = body.find("\n```", line_end)
    if close < 0:
        raise _NotCalls
    after = close + 4
    if after < len(body) and body[after] not in "\r\n \t":
        raise _NotCalls  # ```` or ```python: not this fence's end
    return body[line_end + 1 : close], after


def _inner(text: str, params: dict[str, dict[str, Any]]) -> Iterator[WrittenCall]:
    """Inside tags or a fence: Qwen3 function markup, or JSON values separated by space."""
    text = text.strip()
    if not text:
        raise _NotCalls
    if text.startswith("<function="):
        yield from _functions(text, params)
        return
    i = 0
    while i < len(text):
        calls, i = _json_at(text, i, params)
        yield from calls
        while i < len(text) and text[i].isspace():
            i += 1


def _json_at(text: str, i: int, params: dict[str, dict[str, Any]]) -> tuple[list[WrittenCall], int]:
    """The calls of the JSON value at `i` and the index after it; doubled braces
    (`{{"name": ...}}`, a template's escaping) are read as single ones to the end."""
    try:
        value, end = json.JSONDecoder().raw_decode(text, i)
    except json.JSONDecodeError:
        if not text.startswith("{{", i):
            raise _NotCalls from None
        rest = text[i:].replace("{{", "{").replace("}}", "}")
        try:
            value, end = json.JSONDecoder().raw_decode(rest)
        except json.JSONDecodeError:
            raise _NotCalls from None
        if rest[end:].strip():
            raise _NotCalls from None
        end = len(text)
    return _from_value(value, params), end


def _from_value(value: Any, params: dict[str, dict[str, Any]]) -> list[WrittenCall]:
    items = value if isinstance(value, list) else [value]
    if not items:
        raise _NotCalls
    return [_from_object(item, params) for item in items]


def _from_object(item: Any, params: dict[str, dict[str, Any]]) -> WrittenCall:
    """One `{"name", "arguments"}` object (or `parameters`, or OpenAI's wrapper) as a call."""
    if not isinstance(item, dict):
        raise _NotCalls
    fn = item.get("function")
    if isinstance(fn, dict) and set(item) <= {"function", "type", "id"}:
        item = fn  # {"type": "function", "function": {...}}: a call only with arguments
    name = item.get("name")
    if not isinstance(name, str) or not name.strip() or not set(item) <= _KEYS:
        raise _NotCalls  # a description or other keys: a schema, or just data
    if ("arguments" in item) == ("parameters" in item):
        raise _NotCalls
    args = item["arguments"] if "arguments" in item else item["parameters"]
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except json.JSONDecodeError:
            return WrittenCall(name, args)
        if isinstance(parsed, dict):
            args = parsed
    if args is None:
        args = {}
    if isinstance(args, dict) and _is_schema(args, params.get(name)):
        raise _NotCalls
    return WrittenCall(name, json.dumps(args, ensure_ascii=False))


def _is_schema(args: dict[str, Any], sent: dict[str, Any] | None) -> bool:
    """Arguments that are a JSON schema (the tool's own, or any `object` with properties,
    unless the tool really takes a parameter called `properties`): an echo of the tools."""
    if sent is not None and args == sent:
        return True
    takes = isinstance(sent, dict) and "properties" in (sent.get("properties") or {})
    return args.get("type") == "object" and isinstance(args.get("properties"), dict) and not takes


def _functions(text: str, params: dict[str, dict[str, Any]]) -> Iterator[WrittenCall]:
    """Qwen3's `<function=NAME><parameter=KEY>value</parameter></function>`, one or more."""
    i = 0
    for match in _FUNCTION.finditer(text):
        if text[i : match.start()].strip():
            raise _NotCalls
        name = match.group(1).strip()
        yield WrittenCall(name, json.dumps(_function_args(match.group(2), params.get(name))))
        i = match.end()
    if i == 0 or text[i:].strip():
        raise _NotCalls


def _function_args(body: str, schema: dict[str, Any] | None) -> dict[str, Any]:
    """The parameters of one function block, typed by the tool's schema (strings stay
    strings; numbers, booleans, objects and lists are read as JSON when they parse)."""
    props = (schema or {}).get("properties") or {}
    args: dict[str, Any] = {}
    i = 0
    for match in _PARAMETER.finditer(body):
        if body[i : match.start()].strip():
            raise _NotCalls
        key, value = match.group(1).strip(), match.group(2)
        value = value[1:] if value.startswith("\n") else value
        value = value[:-1] if value.endswith("\n") else value
        kind = (props.get(key) or {}).get("type") if isinstance(props, dict) else None
        args[key] = _typed(value, kind)
        i = match.end()
    if body[i:].strip():
        raise _NotCalls
    return args


def _typed(value: str, kind: Any) -> Any:
    kinds = kind if isinstance(kind, list) else [kind]
    if None in kinds or "string" in kinds:
        return value
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        return value

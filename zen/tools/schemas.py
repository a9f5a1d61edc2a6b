"""Tool schemas made lean: every request repeats them, so what the model does not need goes.

Apart from `base.py` (the tool interface) so each stays small; MCP tools use `clean_schema`,
built-in ones `lean_schema` too.
"""

from __future__ import annotations

from typing import Any


def clean_schema(schema: Any) -> Any:
    """Pydantic's schema minus what the model does not need: fewer prompt tokens, same meaning.

    Drops `title`s, `additionalProperties: false` (the registry rejects unknown keys anyway)
    and `default: null`, and turns `anyOf: [X, null]` (an optional field) into plain X.
    """
    if isinstance(schema, list):
        return [clean_schema(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    options = schema.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options and len(options) == 2:
        (kept,) = [o for o in options if o != {"type": "null"}]
        schema = {**{k: v for k, v in schema.items() if k != "anyOf"}, **kept}
    return {
        k: clean_schema(v)
        for k, v in schema.items()
        if not (k == "title" and isinstance(v, str))
        and not (k == "additionalProperties" and v is False)
        and not (k == "default" and v is None)
    }


CHECKED = frozenset({"minimum", "minLength", "minItems"})
"""Limits the registry checks on every call: a model that misses one gets an error it can read."""


def lean_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A built-in tool's schema, leaner still (every request repeats it): nested models inlined
    (no `$defs`/`$ref`, which some small servers' grammars mishandle), and `CHECKED` limits and
    false or zero defaults (what an omitted argument means anyway) left out. Only for zen's own
    schemas: inlining a hostile server's `$ref`s could grow without bound."""
    defs = schema.get("$defs", {})

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(v) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            return walk(defs[ref.removeprefix("#/$defs/")])
        return {
            k: {name: walk(s) for name, s in v.items()} if k == "properties" else walk(v)
            for k, v in node.items()
            if k != "$defs" and k not in CHECKED and not (k == "default" and v in (False, 0))
        }

    return walk(schema)

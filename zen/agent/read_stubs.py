"""A scout's raw reads become one-line stubs once it has noted the file.

An explore sub-agent reads whole files, writes a `file:*` note about each, then reports. From
the request after the note on, the raw text is only weight: the note says what the report
needs. `dev/bench/tokens.py --stub` measured it: 4-5 % of a scouted task with one model, never a
loss for scouts; for every role it cost 6 % on a Coder's small change (its notes come last, so
the stub breaks its prefix cache), so only scouts do it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def stub_for(path: str) -> str:
    return f"[read-file {path}: see memo file:{path}]"


def stubbed(
    messages: list[dict[str, Any]], noted: Callable[[str], bool] = lambda _: True
) -> list[dict[str, Any]]:
    """`messages` with each read-file result whose file this conversation wrote a `file:*`
    note about (and `noted(key)` confirms: the memo holds it) replaced by a stub."""
    calls: dict[str, dict[str, Any]] = {}
    for m in messages:
        for c in m.get("tool_calls") or []:
            try:
                args = json.loads(c["function"]["arguments"])
            except (KeyError, TypeError, ValueError):
                continue
            if isinstance(args, dict):
                calls[str(c.get("id", ""))] = args | {"tool": c["function"].get("name")}
    keys = {
        key
        for a in calls.values()
        if a["tool"] == "memo" and a.get("action") == "write"
        for key in [str(a.get("key", ""))]
        if key.startswith("file:")
    }
    noted_paths = {k[len("file:") :] for k in keys if noted(k)}
    out = []
    for m in messages:
        args = calls.get(str(m.get("tool_call_id", "")), {})
        path = args.get("path")
        if args.get("tool") == "read-file" and isinstance(path, str) and path in noted_paths:
            m = {**m, "content": stub_for(path)}
        out.append(m)
    return out

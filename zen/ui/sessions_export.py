"""`zen sessions export`: a saved session as the events `--output-format stream-json` prints.

Rebuilt from the saved messages (a user message is a `UserMessage` line), with the Coder's and
sub-agents' runs inline after the call that started them. Secrets are redacted by default
(`redact`: API keys, Authorization and other credential values), tool outputs too, unless
`raw_tools` keeps tool outputs exactly as saved.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from zen.stores.session_rows import SessionInfo
from zen.stores.sessions import SessionStore

SECRET = re.compile(
    r"(?P<kv>(?:authorization|api[_-]?key|x-api-key|token|secret|password)"
    r"[\"']?\s*[:=]\s*[\"']?(?:bearer\s+)?)(?P<v1>[^\s\"',;]{4,})"
    r"|(?P<v2>\b(?:sk|pk|rk|ghp|gho|github_pat|xox[bap]|AKIA)[-_A-Za-z0-9]{12,})",
    re.IGNORECASE,
)


def redact(text: str) -> str:
    """API keys and credential values replaced by `…last4` style marks (the keys zen knows
    were already scrubbed when the session was saved; this catches the ones it does not)."""

    def mark(match: re.Match[str]) -> str:
        value = match.group("v1") or match.group("v2") or ""
        head = match.group("kv") or ""
        return f"{head}[redacted …{value[-4:]}]" if len(value) > 8 else f"{head}[redacted]"

    return SECRET.sub(mark, text)


def runs_by_call(store: SessionStore, info: SessionInfo) -> dict[str | None, list[SessionInfo]]:
    """The child runs (Coder, sub-agents) of a session by the call that started them."""
    runs: dict[str | None, list[SessionInfo]] = {}
    for child in store.children(info.id):
        runs.setdefault(child.parent_call, []).append(child)
    return runs


def agent_name(info: SessionInfo) -> str:
    if info.parent_id is None:
        return "orchestrator" if info.agent_mode == "dual" else "main"
    return info.agent


def export_events(
    store: SessionStore, info: SessionInfo, *, raw_tools: bool = False
) -> Iterator[dict[str, Any]]:
    yield {
        "type": "Session",
        "id": info.id,
        "title": redact(info.title),
        "workspace": info.workspace,
        "created": info.created,
        "updated": info.updated,
        "agent_mode": info.agent_mode,
        "collaboration": info.collaboration,
        "models": info.models,
        "memo": [
            {
                "key": m.key,
                "summary": redact(m.summary),
                "author": m.author,
                "content": redact(m.content),
            }
            for m in store.memo(info.id)
        ],
        "todos": info.state.get("todos", []),
        "usage": info.state.get("usage", {}),
    }
    yield from _events(store, info, raw_tools)


def _events(store: SessionStore, info: SessionInfo, raw_tools: bool) -> Iterator[dict[str, Any]]:
    agent = agent_name(info)
    runs = runs_by_call(store, info)
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    turn = 0
    for m in store.messages(info.id):
        role, content = m.get("role"), str(m.get("content") or "")
        if role == "user":
            turn = 0
            yield {"type": "UserMessage", "agent": agent, "text": redact(content)}
        elif role == "assistant":
            turn += 1
            tool_calls = m.get("tool_calls") or []
            yield from _turn_events(agent, turn, content, len(tool_calls))
            for c in tool_calls:
                yield _call_running(agent, c, calls)
                for child in runs.get(c.get("id"), []):
                    yield from _events(store, child, raw_tools)
        elif role == "tool":
            yield _call_finished(agent, str(m.get("tool_call_id", "")), content, calls, raw_tools)


def _turn_events(agent: str, turn: int, content: str, calls: int) -> Iterator[dict[str, Any]]:
    yield {"type": "TurnStarted", "agent": agent, "turn": turn}
    if content:
        yield {"type": "TextDelta", "agent": agent, "text": redact(content)}
    yield {
        "type": "TurnEnded",
        "agent": agent,
        "turn": turn,
        "text": redact(content),
        "tool_calls": calls,
        "finish_reason": "",
    }


def _call_running(
    agent: str, call: dict[str, Any], calls: dict[str, tuple[str, dict[str, Any]]]
) -> dict[str, Any]:
    """The call's event; its name and arguments are kept in `calls` for its result's event."""
    fn = call.get("function", {})
    try:
        args = json.loads(redact(fn.get("arguments") or "{}"))
    except ValueError:
        args = {}
    calls[call.get("id", "")] = (fn.get("name", ""), args)
    return {
        "type": "ToolCallRunning",
        "agent": agent,
        "call_id": call.get("id"),
        "name": fn.get("name"),
        "args": args,
        "detail": "",
    }


def _call_finished(
    agent: str,
    call_id: str,
    content: str,
    calls: dict[str, tuple[str, dict[str, Any]]],
    raw_tools: bool,
) -> dict[str, Any]:
    name, args = calls.get(call_id, ("", {}))
    output = content if raw_tools else redact(content)
    return {
        "type": "ToolCallFinished",
        "agent": agent,
        "call_id": call_id,
        "name": name,
        "args": args,
        "ok": not content.startswith("Error:"),
        "summary": "",
        "output": output,
        "diff": "",
        "detail": "",
    }

"""`session/load`: a resumed session's conversation sent back as updates, so the editor shows
it as it was (user messages, answers, tool calls with their results)."""

from __future__ import annotations

import json
from typing import Any

from acp import helpers

from zen.acp.updates import kind_of, text_content, title_of
from zen.base.preamble import asked


def replay_updates(history: list[dict[str, Any]]) -> list[Any]:
    """The updates that show `history` (zen's stored messages), in order."""
    out: list[Any] = []
    names: dict[str, str] = {}
    for message in history:
        role = message.get("role")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user" and text:
            out.append(helpers.update_user_message_text(asked(text)))
        elif role == "assistant":
            if text:
                out.append(helpers.update_agent_message_text(text))
            for call in message.get("tool_calls") or []:
                function = call.get("function") or {}
                name, call_id = str(function.get("name", "")), str(call.get("id", ""))
                names[call_id] = name
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except (ValueError, RecursionError):
                    args = {}
                detail = (
                    args.get("path") or args.get("command") or "" if isinstance(args, dict) else ""
                )
                out.append(
                    helpers.start_tool_call(
                        call_id,
                        title_of(name, str(detail)),
                        kind=kind_of(name),
                        status="in_progress",
                    )
                )
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            failed = text.startswith(("Error:", "Cancelled", "The user declined"))
            out.append(
                helpers.update_tool_call(
                    call_id,
                    status="failed" if failed else "completed",
                    content=[text_content(text)] if text else None,
                )
            )
    return out


async def replay(conn: Any, session_id: str, session: Any) -> None:
    for update in replay_updates(session.history):
        await conn.session_update(session_id=session_id, update=update)

"""What the session store reads and writes, as Python values: the records it returns
(`SessionInfo`, `StoredMemo`, `Note`) and how a row or a message maps to and from its columns.

A message is stored as JSON with its long content (`BLOB_MIN` characters or more) moved to
`blobs` under its hash, so branches that share a message share its text. Known secrets are
scrubbed on the way in: they never reach the disk.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from zen.base.redaction import scrub

BLOB_MIN = 256
"""Contents this long or longer go to `blobs`, stored once whatever points at them."""


@dataclass
class SessionInfo:
    id: str
    workspace: str
    title: str
    created: float
    updated: float
    agent_mode: str
    collaboration: str
    models: dict[str, str | None]
    state: dict[str, Any]
    branch: int = 0
    agent: str = "main"
    parent_id: str | None = None
    parent_call: str | None = None
    owner: str = ""
    turns: int = 0
    """User messages on the active branch."""


@dataclass
class StoredMemo:
    key: str
    content: str
    summary: str
    author: str
    time: float
    run: str = field(default="", kw_only=True)
    """The run that wrote it; '' in sessions saved before runs had ids."""


@dataclass
class Note(StoredMemo):
    """A project note: a `file:*` memo entry kept for the workspace, with its file's stamp."""

    stamp: str = ""
    session_id: str = ""


SELECT_SESSIONS = (
    "SELECT s.id, s.workspace, s.title, s.created, s.updated, s.agent_mode, s.collaboration,"
    " s.models, s.state, s.branch, s.agent, s.parent_id, s.parent_call, s.owner,"
    " (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id AND m.branch = s.branch"
    "  AND m.role = 'user') FROM sessions s"
)
"""The columns `session_info` reads, in its order; callers add the WHERE."""


def session_info(row: tuple[Any, ...]) -> SessionInfo:
    """A row of `SELECT_SESSIONS` as a SessionInfo (its JSON columns decoded)."""
    (
        sid,
        workspace,
        title,
        created,
        updated,
        mode,
        collab,
        models,
        state,
        branch,
        agent,
        parent_id,
        parent_call,
        owner,
        turns,
    ) = row
    return SessionInfo(
        sid,
        workspace,
        title,
        created,
        updated,
        mode,
        collab,
        json_dict(models),
        json_dict(state),
        branch,
        agent,
        parent_id,
        parent_call,
        owner,
        turns,
    )


def json_dict(text: str) -> dict[str, Any]:
    """A JSON object column; {} for anything else (a damaged row must not stop a listing)."""
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def pack(message: dict[str, Any]) -> tuple[str, str | None, str]:
    """(body JSON, blob hash or None, blob text): a long content goes to `blobs` once.

    Known secrets (the model keys, MCP env and header values) never reach the disk."""
    content = message.get("content")
    if isinstance(content, str) and len(content) >= BLOB_MIN:
        content = scrub(content)
        digest = hashlib.sha256(content.encode("utf-8", "surrogatepass")).hexdigest()
        rest = {k: v for k, v in message.items() if k != "content"}
        return scrub(json.dumps(rest, ensure_ascii=False)), digest, content
    return scrub(json.dumps(message, ensure_ascii=False)), None, ""


def unpack(body: str, text: str | None) -> dict[str, Any]:
    """The message `pack` stored: its body, with its blob's text back as its content."""
    message = json_dict(body)
    if text is not None:
        message["content"] = text
    return message

"""What an HTTP MCP server said when it answered with an error status.

The SDK turns most error statuses into "Server returned an error response" and drops both the
status and the server's own words; an httpx response hook keeps them, per request, so a failed
call can say `HTTP 503 Service Unavailable: database is down`. It also tells an unknown-session
error (404, or a 400 that talks about the session, on a request that carried a session id)
from the rest: the server ran nothing, so re-initialising and sending the call again is safe.
"""

from __future__ import annotations

import contextlib
import json
import re
from dataclasses import dataclass
from typing import Any

from zen.base.text import clip

MAX_BODY = 4096
"""Bytes of an error body read for its message; the rest is never read."""
_MAX_MESSAGE = 300
_CONTROL = re.compile(r"[\x00-\x1f\x7f\x9b]+")
SESSION_HEADER = "mcp-session-id"


@dataclass(frozen=True)
class HttpProblem:
    text: str
    """`HTTP 404 Not Found: Session not found`."""
    session_gone: bool
    """The server does not know the session: nothing ran, re-initialise and retry."""


class HttpProblems:
    """The last error answer per request key (the tool name of a `tools/call`, else the
    method), filled by the response hook and taken by the call that made the request."""

    def __init__(self) -> None:
        self.last: HttpProblem | None = None
        self._by_key: dict[str, HttpProblem] = {}

    def take(self, key: str) -> HttpProblem | None:
        return self._by_key.pop(key, None)

    async def hook(self, response: Any) -> None:
        """httpx2 response hook: never raises, reads at most MAX_BODY bytes of an error body."""
        if response.status_code < 400:
            return
        try:
            message = await _message(response)
            text = f"HTTP {response.status_code} {response.reason_phrase or ''}".strip()
            if message:
                text += f": {message}"
            request = response.request
            had_session = SESSION_HEADER in request.headers
            gone = had_session and (
                response.status_code == 404
                or (response.status_code == 400 and "session" in message.lower())
            )
            problem = HttpProblem(text, gone)
            self.last = problem
            self._by_key[_key(request)] = problem
        except Exception:  # a hook that raises would break the SDK's request handling
            return


async def _message(response: Any) -> str:
    body = b""
    async with contextlib.aclosing(response.aiter_bytes()) as parts:
        async for part in parts:
            body += part
            if len(body) >= MAX_BODY:
                break
    body = body[:MAX_BODY]
    response._content = body  # what the SDK reads next, instead of an exhausted stream
    text = body.decode("utf-8", errors="replace").strip()
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        error = data.get("error")
        found = error.get("message") if isinstance(error, dict) else error
        found = found if isinstance(found, str) else data.get("message")
        if isinstance(found, str):
            text = found
    first = next((line for line in text.splitlines() if line.strip()), "")
    first = _CONTROL.sub(" ", first).strip()
    return clip(first, _MAX_MESSAGE)


def _key(request: Any) -> str:
    try:
        data = json.loads(request.content or b"{}")
    except (ValueError, RuntimeError):
        return ""
    if not isinstance(data, dict):
        return ""
    params = data.get("params")
    if data.get("method") == "tools/call" and isinstance(params, dict):
        return str(params.get("name", ""))
    return str(data.get("method", ""))

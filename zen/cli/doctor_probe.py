"""`zen doctor`'s one network question: does the endpoint answer a free `GET /models`?

Listing models costs nothing on every OpenAI-compatible server, so it tells reachable, key
rejected and down apart without spending a token. The whole question has one short deadline
(the body too): a slow or hostile server makes it "unreachable", never a hang.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Any

DEADLINE = 4.0
"""Seconds for the whole request: connect, answer and body."""


@dataclass(frozen=True)
class Answer:
    """What `GET /models` gave: a status (0: no answer, `error` says why) and its JSON body."""

    status: int
    body: Any = None
    error: str = ""
    seconds: float = 0.0


def probe(base_url: str, api_key: str | None, deadline: float = DEADLINE) -> Answer:
    """`GET {base_url}/models` with the role's key, under `deadline`."""
    try:
        return asyncio.run(asyncio.wait_for(_get(base_url, api_key), deadline))
    except asyncio.TimeoutError:
        return Answer(0, error=f"no answer within {deadline:g}s")
    except Exception as e:  # refused, DNS, TLS, a broken answer: the reason, in one line
        return Answer(0, error=_reason(e))


async def _get(base_url: str, api_key: str | None) -> Answer:
    import time

    import openai  # the SDK's own HTTP stack, as every request zen sends

    client = openai.AsyncOpenAI(api_key=api_key or "no-key", base_url=base_url, max_retries=0)
    started = time.monotonic()
    try:
        body = await client.get(f"{base_url.rstrip('/')}/models", cast_to=object)
    except openai.APIStatusError as e:
        return Answer(e.status_code, seconds=time.monotonic() - started)
    finally:
        await client.close()
    if isinstance(body, (str, bytes)):  # some servers do not label their JSON
        try:
            body = json.loads(body)
        except ValueError:
            body = None
    return Answer(200, body, seconds=time.monotonic() - started)


def _reason(e: BaseException) -> str:
    """The innermost cause ("Connection refused"), not the SDK's "Connection error." """
    while e.__cause__ is not None and str(e.__cause__).strip():
        e = e.__cause__
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0][:200]


def listed(body: Any) -> list[str] | None:
    """The model ids of an OpenAI-style list, None when the body is not one."""
    entries = body.get("data") if isinstance(body, dict) else None
    if not isinstance(entries, list):
        return None
    return [str(e["id"]) for e in entries if isinstance(e, dict) and "id" in e]

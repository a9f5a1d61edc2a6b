"""What an MCP failure was: the leaf exceptions inside the SDK's exception groups, and
whether the connection itself was lost (as opposed to the server refusing a request).

The SDK and anyio wrap the cause in (nested) exception groups and cancellation echoes; the
at-most-once rule and the one-line reasons shown to the user both need the cause itself.
`mcp` and `httpx2` are imported inside the functions: importing `zen.mcp` stays cheap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import anyio


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """The exceptions inside (nested) exception groups, without needing Python 3.11."""
    inner = getattr(exc, "exceptions", None)
    if isinstance(inner, (list, tuple)) and all(isinstance(e, BaseException) for e in inner):
        for item in inner:
            yield from leaves(item)
    else:
        yield exc


def cause(exc: BaseException) -> BaseException:
    """The first leaf that is not a cancellation: the cause, not its echoes."""
    found = list(leaves(exc))
    for one in found:
        if not isinstance(one, (asyncio.CancelledError, anyio.get_cancelled_exc_class())):
            return one
    return found[0]


def is_lost(exc: BaseException) -> bool:
    """Whether the connection itself failed (as opposed to the server refusing a request)."""
    import httpx2
    from mcp.shared.exceptions import MCPError
    from mcp.types import CONNECTION_CLOSED

    lost = (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError)
    for one in leaves(exc):
        if isinstance(one, MCPError):
            if one.code == CONNECTION_CLOSED:
                return True
        elif isinstance(one, (*lost, httpx2.TransportError)):
            return True
    return False


def is_refusal(exc: BaseException) -> bool:
    """Whether an HTTP connection failed before reaching the server (connect refused or
    timed out): the server provably ran nothing."""
    import httpx2

    return any(isinstance(one, (httpx2.ConnectError, httpx2.ConnectTimeout)) for one in leaves(exc))


def known(exc: BaseException) -> bool:
    """Failures whose one-line reason says it all: no traceback needed in the log."""
    from mcp.shared.exceptions import MCPError

    return isinstance(cause(exc), (OSError, MCPError)) or is_lost(exc)


MCP_INSTALL = "pip install 'mcp>=2.3,<3'"
"""What puts the SDK back when an install lost it (it is one of zen's dependencies)."""


def sdk_problem() -> str | None:
    """Why the MCP SDK cannot be used, in one line with the install command, or None. A broken
    install must cost each server a line saying so, never a traceback or a silent drop."""
    try:
        import mcp.client.stdio  # noqa: F401
        import mcp.client.streamable_http  # noqa: F401
    except ImportError as e:
        return f"the MCP SDK cannot be imported ({one_line(e)}): {MCP_INSTALL}"
    return None


def one_line(exc: BaseException) -> str:
    """The first line of what `exc` says, or its type's name when it says nothing."""
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__

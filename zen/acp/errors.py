"""The JSON-RPC errors zen answers an editor with: bad parameters, or a failure to show as it is.

The message is what the editor shows, so a failure's is scrubbed of secrets first.
"""

from __future__ import annotations

from acp import RequestError

from zen.base.redaction import scrub


def bad_params(message: str) -> RequestError:
    """A request the editor got wrong (JSON-RPC "invalid params")."""
    return RequestError.invalid_params({"message": message})


def failure(message: str) -> RequestError:
    """An error the editor shows as it is: the message is the JSON-RPC message."""
    return RequestError(-32603, scrub(message))

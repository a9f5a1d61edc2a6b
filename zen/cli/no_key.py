"""No key and no provider: before stopping, look for a model server on this machine.

A newcomer with Ollama or llama.cpp running, and no OpenAI key, should not be told only to set
one: the error keeps its words and gains the one line that uses the server found
(`zen/llm/local_servers.py`). Only then, never before a prompt: start-up stays network-free.
"""

from __future__ import annotations


def explained(error: Exception) -> str:
    """`error`'s message, plus the line that uses a local model server when the error is a
    missing key for the endpoint nobody chose and such a server answers."""
    from zen.settings.model_roles import MissingKey

    text = str(error)
    if not (isinstance(error, MissingKey) and error.defaulted):
        return text
    found = local_servers()
    return f"{text}\nzen: {found}" if found else text


def local_servers() -> str:
    """`a model server runs here …; to use it: zen --provider ollama`, or "" when none does."""
    import asyncio

    from zen.llm.local_servers import command, find
    from zen.llm.served import describe

    try:
        found = asyncio.run(find())
    except Exception:  # a probe must never turn one clear error into a traceback
        return ""
    if not found:
        return ""
    first = found[0]
    more = f" ({len(found) - 1} more answered)" if len(found) > 1 else ""
    return (
        f"a model server answers on this machine, without a key: {describe(first)} at "
        f"{first.base_url}{more}; to use it: {command(first)}"
    )

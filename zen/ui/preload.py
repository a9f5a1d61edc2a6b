"""Load what the first answer needs while the user types its question.

The shell draws its prompt before importing the model client (`openai`, ~0.4 s with httpx)
and the markdown renderer (`rich.markdown`, markdown-it, pygments): nothing at the prompt
needs them. Waiting for the first message to import them made it ~0.6 s slower than later
ones, so a thread imports them as soon as the prompt is on screen. Python's import lock makes
this safe: a first message sent before the thread is done simply waits for the same import.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

FIRST_ANSWER = (
    "openai",
    "jiter",
    "anyio._backends._asyncio",
    "markdown_it",
    "rich.markdown",
    "rich.syntax",
)
"""Modules the first answer imports (the SDK's JSON parser, the HTTP transport's event-loop
backend, the markdown renderer); none of them is needed to show the prompt."""

_started = False

Stage = tuple[tuple[str, ...], "Callable[[], None] | None"]


def preload(*stages: Stage) -> None:
    """Import each stage's modules in a background thread, once per process; after each stage
    call its callback (in that thread: it must hand work to its own loop thread-safely).

    Not a daemon thread: ending the interpreter in the middle of an import is what daemon
    threads risk; the most this costs is a Ctrl-D in the first second waiting for the rest.
    """
    global _started
    if _started:
        return
    _started = True
    threading.Thread(target=_load, args=(stages,), name="zen-preload").start()


def _load(stages: tuple[Stage, ...]) -> None:
    for modules, then in stages:
        for name in modules:
            try:
                __import__(name)  # (import_module skips the audit event the test watches)
            except Exception:  # noqa: S112 - the real import, at first use, reports it
                continue
        if "openai" in modules:
            _warm_sdk()
        if then is not None:
            then()


def _warm_sdk() -> None:
    """The SDK imports its transport and resources lazily: make a client, never used."""
    try:
        import openai

        client = openai.AsyncOpenAI(api_key="preload", base_url="http://127.0.0.1:9/")
        client.chat.completions  # noqa: B018 - the attribute imports the chat resource
    except Exception:  # noqa: S110 - only a warm-up; the real client reports its errors
        pass

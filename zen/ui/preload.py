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
        if "rich.markdown" in modules:
            _warm_markdown()
        if then is not None:
            then()


def _warm_sdk() -> None:
    """The SDK imports its transport and resources lazily: make a client, never used."""
    try:
        import openai

        client = openai.AsyncOpenAI(api_key="preload", base_url="http://127.0.0.1:9/")
        client.chat.completions  # noqa: B018 - the attribute imports the chat resource
        # the first request's parameters go through typing introspection the SDK caches
        from openai._utils import maybe_transform
        from openai.types.chat import completion_create_params as params

        call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        messages = [
            {"role": "system", "content": "s"},
            {"role": "user", "content": "u"},
            {"role": "assistant", "content": "a", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c", "content": "t"},
        ]
        tool = {"type": "function", "function": {"name": "f", "parameters": {}}}
        request = {"messages": messages, "model": "m", "stream": True, "tools": [tool]}
        maybe_transform(request, params.CompletionCreateParamsStreaming)
    except Exception:  # noqa: S110 - only a warm-up; the real client reports its errors
        pass


WARM_MARKDOWN = (
    "**b** `c`\n\n- i\n\n```python\nx = 1\n```\n\n```bash\nls\n```\n\n```json\n{}\n```\n"
)
"""An answer's usual blocks: the first code block of a language compiles its lexer's regular
expressions (~60 ms for Python), once per process."""


def _warm_markdown() -> None:
    """Render a sample answer into a throw-away console."""
    import io

    try:
        from zen.ui.markdown_stream import render_block
        from zen.ui.term import Caps, make_console

        console = make_console(Caps(styled=True, live=True, vt=True), file=io.StringIO(), width=80)
        for block in WARM_MARKDOWN.split("\n\n"):
            render_block(console, block)
    except Exception:  # noqa: S110 - only a warm-up; the real answer reports its errors
        pass

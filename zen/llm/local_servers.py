"""Model servers already running on this machine, for a user with no key and no provider.

Ollama (11434), llama.cpp (8080), LM Studio (1234) and vLLM (8000) listen on their usual ports
of 127.0.0.1. They are asked concurrently, without a key or a proxy, within `DEADLINE` in
all; only an OpenAI-shaped `/v1/models` answer listing a model counts, since 8000 and 8080
are every development web server's ports too. Nothing is started or changed: the caller
suggests the one line that uses what was found.
"""

from __future__ import annotations

import asyncio
import os

from zen.llm.served import Served

PORTS = (11434, 8080, 1234, 8000)
DEADLINE = 0.3
"""Seconds for the whole probe: it runs only when zen is about to stop for want of a key."""
PORTS_VARIABLE = "ZEN_TEST_LOCAL_PORTS"
"""For tests only: other ports of 127.0.0.1 to probe (a test cannot own the usual ones). The
host stays this machine's and no key is ever sent, so it cannot send anything elsewhere."""
PRESETS = {
    "ollama": "ollama",
    "llama-server": "llamacpp",
    "llama-cpp-python": "llamacpp",
    "lmstudio": "lmstudio",
    "vllm": "vllm",
}


def ports() -> tuple[int, ...]:
    """The usual ports, or the test's (at most 8, each a valid port; anything else: ignored)."""
    text = os.environ.get(PORTS_VARIABLE, "")
    chosen = tuple(int(p) for p in text.split(",") if p.strip().isdigit())
    if chosen and len(chosen) <= 8 and all(0 < p < 65536 for p in chosen):
        return chosen
    return PORTS


async def find(deadline: float = DEADLINE) -> list[Served]:
    """The servers that answered with a model list, in port order."""
    from zen.llm.lookup import look_up

    asked = [
        look_up(
            f"http://127.0.0.1:{port}/v1",
            None,
            None,
            deadline=deadline,
            extras=False,
            trust_env=False,
        )
        for port in ports()
    ]
    found = await asyncio.gather(*asked)
    return [served for served in found if served.listed and served.models]


def command(served: Served) -> str:
    """The one line that uses `served`: its preset where it listens on that preset's port,
    else its URL; `--model` unless the one model it serves is picked without it."""
    from zen.settings.providers import PROVIDERS, owns

    preset = PROVIDERS.get(PRESETS.get(served.server, ""))
    words = ["zen"]
    if (
        preset is not None
        and owns(preset, served.base_url)
        and _port(preset.base_url) == _port(served.base_url)
    ):
        words += ["--provider", preset.name]
    else:
        words += ["--base-url", served.base_url]
        preset = None
    needs_default = preset is not None and preset.default_model is None
    if needs_default or served.only is None:
        assert served.models
        words += ["--model", served.only or served.models[0]]
    return " ".join(_quoted(w) for w in words)


def _port(url: str) -> int | None:
    from urllib.parse import urlparse

    return urlparse(url).port


def _quoted(word: str) -> str:
    import shlex

    return shlex.quote(word)

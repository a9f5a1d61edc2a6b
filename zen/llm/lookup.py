"""The endpoint lookup: ask a server what it serves, once, cheaply and safely.

`look_up` reads `GET /models` (every OpenAI-compatible server answers it for free), tells the
server apart by the list's own marks (llama-server's `owned_by: llamacpp`, llama-cpp-python's
`me`, vLLM's `vllm`, LM Studio's `organization_owner`, Ollama's port or `library`), then asks
that server's own route for what the list lacks: llama.cpp's `/props` (the runtime context
and the model file), Ollama's `/api/show` (family, size, num_ctx), LM Studio's
`/api/v0/models/{id}`. A `/models` that answers 404 on a URL without `/v1` is tried once
with it, so the user can be told which URL works.

The server is untrusted: every body is read once, at most `MAX_BODY` bytes (a 400 MB model
list is refused after 4 MB, not read twice), the whole lookup has one deadline, redirects
are not followed, the key goes only to the host it was given for, and whatever goes wrong is
a `Served` saying so, never an exception.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from typing import Any

from zen.llm import model_names
from zen.llm.served import Served, ServerKind
from zen.llm.window import sane, window_in_entry

DEADLINE = 2.0
"""Seconds for the whole lookup of a session (doctor allows more)."""
MAX_BODY = 4 * 1024 * 1024
MAX_MODELS = 1000
"""Ids kept from a list (a hostile server may list millions)."""
OWNERS: dict[str, ServerKind] = {
    "llamacpp": "llama-server",
    "me": "llama-cpp-python",
    "vllm": "vllm",
    "organization_owner": "lmstudio",
    "library": "ollama",
    "ollama": "ollama",
}


NO_LIST = "the answer is no model list"


class TooLarge(Exception):
    """A body over MAX_BODY: not read further."""


async def look_up(
    base_url: str,
    api_key: str | None,
    model: str | None,
    *,
    deadline: float = DEADLINE,
    extras: bool = True,
    trust_env: bool = True,
) -> Served:
    """What `base_url` serves. `extras`: also ask the server's own routes; `trust_env`: use
    the environment's proxy settings, as the SDK does (the local probe does not)."""
    import httpx2

    await _warm()
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    started = time.monotonic()
    client = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(deadline),
        trust_env=trust_env,
        verify=_verify(base, trust_env),
    )
    async with client as http:
        try:
            status, body = await asyncio.wait_for(_get(http, f"{base}/models"), deadline)
        except asyncio.TimeoutError:
            return Served(base_url, error=f"no answer within {deadline:g}s")
        except TooLarge:
            return Served(base_url, 200, f"the model list is larger than {MAX_BODY >> 20} MB")
        except Exception as e:  # refused, DNS, TLS, a broken answer: the reason, in one line
            return Served(base_url, error=reason(e))
        served = _from_models(base_url, status, body, model, time.monotonic() - started)
        if extras:
            left = deadline - (time.monotonic() - started)
            try:
                served = await asyncio.wait_for(_ask_more(http, served, body), max(left, 0.01))
            except Exception:  # asyncio.TimeoutError included: what /models said stands
                pass
    return served


async def _warm() -> None:
    """Load the HTTP stack the first request would load (h11, httpcore2, anyio's asyncio
    backend) before the clock starts: 0.1-1.2 s of imports on a loaded machine, which ate the
    local probe's 0.3 s and found no server. They are loaded at most once, and a request
    needs them anyway."""
    import contextlib
    import importlib

    import anyio

    for name in ("httpcore2", "h11"):  # httpx2's transport and its HTTP/1.1
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    await anyio.sleep(0)


def _from_models(base_url: str, status: int, body: Any, model: str | None, took: float) -> Served:
    entries = body.get("data") if isinstance(body, dict) else None
    if status != 200 or not isinstance(entries, list):
        error = "" if status == 200 else f"GET /models answered {status}"
        return Served(base_url, status, error or NO_LIST, round(took, 3))
    entries = [e for e in entries if isinstance(e, dict) and isinstance(e.get("id"), str)]
    ids = tuple(e["id"][:200] for e in entries[:MAX_MODELS])
    owners = {str(e.get("owned_by")) for e in entries[:MAX_MODELS]}
    kind = next((OWNERS[o] for o in OWNERS if o in owners), None)
    if kind is None:
        kind = "ollama" if _port(base_url) == 11434 else "unknown"
    served = Served(base_url, 200, "", round(took, 3), ids, kind)
    chosen = model if model and served.serves(model) else served.only
    if chosen is None:
        return served
    entry: dict[str, Any] = next(
        (e for e in entries if e["id"] in (chosen, f"{chosen}:latest")), {}
    )
    meta = _dict(entry.get("meta"))
    window = _int(meta.get("n_ctx")) or window_in_entry(entry)
    return _named(served, chosen, window, model_names.from_count(meta.get("n_params")))


def _named(
    served: Served,
    model: str,
    window: int | None,
    params_b: float | None,
    file: str = "",
    template: Any = None,
) -> Served:
    """`served` with the model's name, window, and what its name, file or chat template says."""
    from dataclasses import replace

    name = file or model
    said = model_names.family(name)
    family = said or served.family or model_names.from_template(template, (model, name))
    source = "name" if said else (served.family_from if served.family else "template")
    return replace(
        served,
        model=model,
        context_window=window or served.context_window,
        family=family,
        family_from=source if family else None,
        params_b=params_b or served.params_b or model_names.size_b(name),
        quant=model_names.quantization(name) or served.quant,
    )


async def _ask_more(http: Any, served: Served, body: Any) -> Served:
    """What the server's own routes add: llama.cpp's /props, Ollama's /api/show, LM Studio's
    /api/v0/models; a /v1-less URL's /v1 twin."""
    from dataclasses import replace

    base = served.base_url.rstrip("/")
    root = base[: -len("/v1")] if base.endswith("/v1") else base
    if served.status == 404 and not base.endswith("/v1"):
        status, twin = await _get(http, f"{base}/v1/models")
        if status == 200 and isinstance(twin, dict) and isinstance(twin.get("data"), list):
            return replace(served, v1_url=f"{base}/v1")
        return served
    if not served.listed:
        return served
    model = served.model
    if served.server in ("llama-server", "unknown"):
        return _props(served, (await _get(http, f"{root}/props"))[1])
    if served.server == "ollama" and model:
        return _show(served, (await _get(http, f"{root}/api/show", {"model": model}))[1])
    if served.server == "lmstudio" and model:
        return _lmstudio(served, (await _get(http, f"{root}/api/v0/models/{model}"))[1])
    return served


def _props(served: Served, props: Any) -> Served:
    """llama.cpp's /props: the runtime n_ctx, the model file, the template's tool support."""
    from dataclasses import replace

    settings = _dict(props).get("default_generation_settings")
    if not isinstance(settings, dict):  # not llama.cpp's: nothing to add
        return served
    window = next((int(v) for v in (props.get("n_ctx"), settings.get("n_ctx")) if sane(v)), None)
    caps = props.get("chat_template_caps")
    tools = caps.get("supports_tools") if isinstance(caps, dict) else None
    path = props.get("model_path")
    path = path if isinstance(path, str) else ""
    served = replace(
        served,
        server="llama-server",
        tool_template=tools if isinstance(tools, bool) else served.tool_template,
    )
    model = served.model or (served.only or "")
    template = props.get("chat_template")
    return _named(served, model, window, served.params_b, path, template) if model else served


def _show(served: Served, show: Any) -> Served:
    """Ollama's /api/show: family, size and quantization, num_ctx when a Modelfile sets it,
    and whether the model's template takes tools."""
    from dataclasses import replace

    if not isinstance(show, dict):
        return served
    details = _dict(show.get("details"))
    window = None
    params = show.get("parameters")
    if isinstance(params, str):
        for line in params.splitlines():
            key, _, value = line.strip().partition(" ")
            if key == "num_ctx" and value.strip().isdigit() and sane(int(value)):
                window = int(value)
    caps = show.get("capabilities")
    quant = details.get("quantization_level")
    served = replace(
        served,
        tool_template=("tools" in caps) if isinstance(caps, list) else served.tool_template,
        quant=quant if isinstance(quant, str) and quant else served.quant,
    )
    assert served.model is not None
    size = model_names.parse_size(details.get("parameter_size"))
    return _named(served, served.model, window, size, template=show.get("template"))


def _lmstudio(served: Served, entry: Any) -> Served:
    """LM Studio's /api/v0/models/{id}: the loaded context length and the quantization."""
    from dataclasses import replace

    if not isinstance(entry, dict):
        return served
    quant = entry.get("quantization")
    if isinstance(quant, str) and quant:
        served = replace(served, quant=quant)
    assert served.model is not None
    return _named(served, served.model, window_in_entry(entry), None)


async def _get(http: Any, url: str, post: dict[str, Any] | None = None) -> tuple[int, Any]:
    """Status and JSON body (None when it is not JSON); TooLarge past MAX_BODY."""
    method = "POST" if post is not None else "GET"
    async with http.stream(method, url, json=post) as response:
        size, parts = 0, []
        async for piece in response.aiter_bytes():
            size += len(piece)
            if size > MAX_BODY:
                raise TooLarge
            parts.append(piece)
    try:
        return response.status_code, json.loads(b"".join(parts))
    except ValueError:  # some servers do not label their JSON; others send HTML
        return response.status_code, None


def _verify(base: str, trust_env: bool) -> Any:
    """The TLS context: none for plain HTTP that no proxy carries (building one costs 30 ms
    to 300 ms, which a one-turn `zen -p` would pay twice), else one per process."""
    import os

    proxies = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
    if base.startswith("http://") and not (trust_env and any(os.environ.get(p) for p in proxies)):
        return False
    return _tls()


@functools.cache
def _tls() -> Any:
    import httpx2

    return httpx2.create_ssl_context()


def _port(base_url: str) -> int | None:
    from urllib.parse import urlparse

    try:
        return urlparse(base_url).port
    except ValueError:
        return None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return int(value) if sane(value) else None


def reason(e: BaseException) -> str:
    """The innermost cause ("Connection refused"), not a wrapper's "Connection error." """
    while e.__cause__ is not None and str(e.__cause__).strip():
        e = e.__cause__
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0][:200]

"""`zen doctor`'s lines for one model role: endpoint, server, key, model and context window,
each with one verdict, from one endpoint lookup (`role_lines`) or, for `/status` without
`--check`, from the configuration alone (`unchecked_lines`)."""

from __future__ import annotations

from typing import Any

OK, WARN, FAIL, NOTE = "ok", "warn", "FAIL", "note"
DEADLINE = 4.0
"""Seconds for one endpoint's lookup: connect, answers and bodies."""
Line = tuple[str, str, str]
"""(mark, item, what was found)."""


def role_lines(
    settings: Any, label: str, missing: Exception | None = None, own: Any = ()
) -> list[Line]:
    """One line each for the role's endpoint, server, key, model and window, from one
    lookup (the same facts `/model` shows), each with one verdict. `missing`: the error of a
    key the endpoint needs and nobody gave (`MissingKey`), which is then the key line; `own`:
    the user's model profiles, tried before zen's."""
    import asyncio

    from zen.llm.lookup import look_up
    from zen.llm.served import applied, asks_server, describe, profile_note

    url = settings.base_url
    extras = asks_server(url)
    served = asyncio.run(
        look_up(url, settings.api_key, settings.model, deadline=DEADLINE, extras=extras)
    )
    lines = [endpoint_line(served)]
    if extras and served.listed:
        protocol = applied(settings, served, own).protocol
        no_tools = served.tool_template is False and protocol == "native"
        fix = ": tools need --tool-protocol text|auto, or a template with them" if no_tools else ""
        lines.append((WARN if no_tools else OK, "server", describe(served) + fix))
        lines.append((OK, "profile", profile_note(settings, served, own)))
    lines += missing_key_lines(missing) if missing else [key_line(settings, served.status)]
    lines += [model_line(settings, served), window_line(settings, served)]
    return [(mark, item + label, text) for mark, item, text in lines]


def unchecked_lines(settings: Any, label: str, missing: Exception | None) -> list[Line]:
    """The role's lines without asking its endpoint (`/status`): what the configuration says."""
    later = "not checked: /status --check asks it"
    lines: list[Line] = [(NOTE, "endpoint", f"{settings.base_url} ({later})")]
    if missing:
        lines.append((FAIL, "key", str(missing)))
    elif settings.api_key:
        lines.append((OK, "key", f"found ({settings.key_source or 'the configuration'})"))
    else:
        lines.append((NOTE, "key", "none set (local servers need none)"))
    lines += [(NOTE, "model", f"{settings.model} ({later})"), window_line(settings, None)]
    return [(mark, item + label, text) for mark, item, text in lines]


def endpoint_line(served: Any) -> Line:
    """Reachable, or what is wrong and what to try."""
    from zen.llm.lookup import NO_LIST
    from zen.settings.providers import is_local

    url, status = served.base_url, served.status
    if status == 0:
        hint = (
            "is the server running? (llama.cpp: llama-cpp-server -m MODEL.gguf; "
            "Ollama: ollama serve)"
            if is_local(url)
            else "check the URL, and that this machine can reach it"
        )
        return (FAIL, "endpoint", f"{url} unreachable: {served.error}; {hint}")
    if status == 404:
        fix = f": {served.v1_url} has one" if served.v1_url else "; most end in /v1"
        return (FAIL, "endpoint", f"no OpenAI API at {url} (GET /models answered 404){fix}")
    if status not in (200, 401, 403):
        return (FAIL, "endpoint", f"{url} answered GET /models with {status}")
    took = f"{status} in {served.seconds:.2f}s"
    if served.error == NO_LIST:
        return (WARN, "endpoint", f"{url} answers ({took}), but GET /models gave no model list: "
                "is it an OpenAI-compatible server?")  # fmt: skip
    return (OK, "endpoint", f"{url} reachable ({took})")


def key_line(settings: Any, status: int) -> Line:
    refused = status in (401, 403)
    if not settings.api_key:
        if refused:
            return (
                FAIL,
                "key",
                f"none sent, and the server wants one ({status}): pass --api-key, set "
                "ZEN_API_KEY, or put api_key in ~/.zen/config.yaml",
            )
        if status == 0:
            return (NOTE, "key", "none set (not checked: the endpoint did not answer)")
        return (OK, "key", "none needed (the server answers without one)")
    where = settings.key_source or "the configuration"
    if refused:
        return (FAIL, "key", f"found ({where}), but the server refused it ({status})")
    return (OK, "key", f"found ({where})")


def missing_key_lines(missing: Exception) -> list[Line]:
    """The missing key's error; when nothing chose the endpoint, the model server found on
    this machine (`zen/cli/no_key.py`), or that none answers."""
    lines: list[Line] = [(FAIL, "key", str(missing))]
    if getattr(missing, "defaulted", False):
        from zen.cli.no_key import local_servers

        found = local_servers() or "none answers on the usual ports of this machine"
        lines.append((NOTE, "local server", found))
    return lines


def model_line(settings: Any, served: Any) -> Line:
    """The configured model against what the server serves."""
    from zen.llm.served import listing

    model = settings.model
    if not served.listed:
        why = served.error if served.status == 200 else "the endpoint gave no model list"
        return (NOTE, "model", f"{model} (not checked: {why})")
    if served.serves(model):
        return (OK, "model", f"{model} (the server serves it)")
    only = served.only
    if only and settings.default_model:
        return (OK, "model", f"{only} (none configured: zen uses the one the server serves)")
    if only:
        return (
            WARN,
            "model",
            f"{model} is configured, but the server serves {only}: llama.cpp answers with it "
            f"whatever the name, vLLM and LM Studio refuse (--model {only})",
        )
    return (FAIL, "model", f"{model} is not among the server's models: {listing(served)}")


def window_line(settings: Any, served: Any) -> Line:
    """The window zen plans by: config, provider table, or what the server says."""
    from zen.agent.context import DEFAULT_WINDOW, WindowResolver

    known = WindowResolver(settings).known
    if known is not None:
        return (OK, "context window", f"{known.tokens:,} tokens ({known.source})")
    if served is None:
        return (NOTE, "context window", "not known without asking the server (/status --check)")
    if served.context_window:
        return (OK, "context window", f"{served.context_window:,} tokens (server)")
    return (
        NOTE,
        "context window",
        f"unknown: zen assumes {DEFAULT_WINDOW:,} tokens (set context_window to be sure)",
    )

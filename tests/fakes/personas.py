"""What real model servers answer besides chat, for `FakeLLM(script, **persona)`.

Each function gives FakeLLM's keyword arguments for one server: its model list as that server
shapes it (`owned_by`, llama.cpp's `meta`, vLLM's `max_model_len`), its own routes (llama.cpp's
`/props`, Ollama's `/api/show`, LM Studio's `/api/v0/models/{id}`) and where its OpenAI API
lives. The shapes are those of llama.cpp's tools/server (server-context.cpp: get_res_models,
get_res_props), llama-cpp-python's server/app.py, Ollama's api docs, vLLM's and LM Studio's
answers. `web_page` is a web server that is no model server at all (port 8000's usual tenant).
"""

from __future__ import annotations

from typing import Any

from tests.fakes.server import Page

QWEN_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def _listing(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"object": "list", "data": list(entries)}


def llama_server(
    model_file: str = QWEN_FILE,
    *,
    n_ctx: int = 16384,
    n_params: int = 1_543_714_304,
    tools: bool = True,
) -> dict[str, Any]:
    """llama.cpp's `llama-server`: one model, named by its file; `/props` has the runtime
    context, the model's path and what its chat template supports."""
    entry = {
        "id": model_file,
        "aliases": [],
        "object": "model",
        "created": 1700000000,
        "owned_by": "llamacpp",
        "meta": {"n_ctx_train": 32768, "n_params": n_params, "n_vocab": 151936},
    }
    props = {
        "default_generation_settings": {"n_ctx": n_ctx, "params": {"temperature": 0.8}},
        "total_slots": 1,
        "model_alias": model_file,
        "model_path": f"/models/{model_file}",
        "chat_template": "{{ messages }}",
        "chat_template_caps": {"supports_tools": tools, "supports_tool_calls": tools},
        "build_info": "b7000-fake",
    }
    return {
        "models": (model_file,),
        "owned_by": "llamacpp",
        "routes": {"/v1/models": _listing(entry), "/models": _listing(entry), "/props": props},
    }


def llama_cpp_python(
    alias: str = "/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
) -> dict[str, Any]:
    """llama-cpp-python's server: `owned_by: me`, no `/props`."""
    entry = {"id": alias, "object": "model", "owned_by": "me", "permissions": []}
    return {"models": (alias,), "owned_by": "me", "routes": {"/v1/models": _listing(entry)}}


def ollama(*models: str, num_ctx: int | None = None, tools: bool = True) -> dict[str, Any]:
    """Ollama: its OpenAI API under /v1 only (`http://host:11434` alone gets 404s), and
    `POST /api/show` with the model's details."""
    models = models or ("qwen2.5-coder:7b",)
    parameters = 'stop "<|im_end|>"' + (f"\nnum_ctx {num_ctx}" if num_ctx else "")
    show = {
        "parameters": parameters,
        "details": {
            "format": "gguf",
            "family": "qwen2",
            "parameter_size": "7.6B",
            "quantization_level": "Q4_K_M",
        },
        "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768},
        "capabilities": ["completion", "tools"] if tools else ["completion"],
    }
    return {
        "models": models,
        "owned_by": "library",
        "v1_only": True,
        "routes": {"/api/show": show, "/": Page(b"Ollama is running", content_type="text/plain")},
    }


def vllm(
    model: str = "Qwen/Qwen2.5-Coder-1.5B-Instruct", max_model_len: int = 32768
) -> dict[str, Any]:
    """vLLM: `owned_by: vllm` and the window as `max_model_len`, under /v1."""
    entry = {
        "id": model,
        "object": "model",
        "created": 1700000000,
        "owned_by": "vllm",
        "root": model,
        "parent": None,
        "max_model_len": max_model_len,
    }
    return {
        "models": (model,),
        "owned_by": "vllm",
        "v1_only": True,
        "routes": {"/v1/models": _listing(entry)},
    }


def lmstudio(model: str = "qwen2.5-coder-1.5b-instruct", *others: str) -> dict[str, Any]:
    """LM Studio: `owned_by: organization_owner`, the loaded context in its own REST API."""
    own = {
        "id": model,
        "object": "model",
        "type": "llm",
        "arch": "qwen2",
        "quantization": "Q4_K_M",
        "state": "loaded",
        "max_context_length": 32768,
        "loaded_context_length": 4096,
    }
    return {
        "models": (model, *others),
        "owned_by": "organization_owner",
        "v1_only": True,
        "routes": {f"/api/v0/models/{model}": own},
    }


def web_page() -> dict[str, Any]:
    """A web server that is no model server: every path is a 200 HTML page."""
    page = Page(b"<!doctype html><html><body>My app</body></html>")
    return {"models": None, "routes": {"*": page}}

"""Provider presets and their habits, in one table.

A preset fills in the base URL, the API-key variable that provider's users already have, the
model to use when none is configured (and that model's context window), and the compat flags
the client obeys. Unknown endpoints get the `openai` habits.
"""

from __future__ import annotations

from dataclasses import dataclass

LOCAL_MAX_TOKENS = 4096
"""The reply cap sent to a server on this machine when none is configured: a local model that
loops would otherwise write until its context is full (hosted APIs cap replies themselves, and
OpenAI's reasoning models refuse `max_tokens`)."""


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    key_env: str
    """The environment variable this provider's users already set."""
    default_model: str | None = None
    """Used when no model is configured; None: the server serves whatever it loaded, so the
    user must name it (`--model`)."""
    context_window: int | None = None
    """Tokens the default model accepts (prompt + answer); None when unknown."""
    local: bool = False
    """A server on the user's machine: replies get a `max_tokens` cap by default."""
    echo_reasoning: bool = False
    """Send `reasoning_content` back on assistant turns with tool calls (DeepSeek thinking)."""
    stream_usage: bool = True
    """Ask for usage in the stream (`stream_options.include_usage`)."""


PROVIDERS: dict[str, Provider] = {
    p.name: p
    for p in (
        Provider("openai", "https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini", 128_000),
        Provider(
            "deepseek",
            "https://api.deepseek.com",
            "DEEPSEEK_API_KEY",
            "deepseek-chat",
            128_000,
            echo_reasoning=True,
        ),
        Provider(
            "kimi",
            "https://api.moonshot.ai/v1",
            "MOONSHOT_API_KEY",
            "kimi-k2-0905-preview",
            262_144,
            echo_reasoning=True,
        ),
        Provider(
            "glm", "https://open.bigmodel.cn/api/paas/v4", "ZHIPUAI_API_KEY", "glm-4.6", 200_000
        ),
        Provider(
            "qwen",
            "https://dashscope.aliyuncs.com/compatible-mode/v1",
            "DASHSCOPE_API_KEY",
            "qwen-plus",
            131_072,
        ),
        Provider(
            "openrouter",
            "https://openrouter.ai/api/v1",
            "OPENROUTER_API_KEY",
            "openai/gpt-4o-mini",
            128_000,
        ),
        # the model's window; Ollama keeps only its num_ctx of it unless told otherwise
        Provider(
            "ollama",
            "http://localhost:11434/v1",
            "OLLAMA_API_KEY",
            "qwen2.5-coder",
            32_768,
            local=True,
        ),
        Provider("vllm", "http://localhost:8000/v1", "VLLM_API_KEY", local=True),
        Provider(
            "lmstudio",
            "http://localhost:1234/v1",
            "LMSTUDIO_API_KEY",
            local=True,
            stream_usage=False,
        ),
        # a placeholder: the endpoint lookup replaces it with the one model the server serves
        Provider(
            "llamacpp", "http://localhost:8080/v1", "LLAMA_API_KEY", "local-model", local=True
        ),
        Provider("litellm", "http://localhost:4000/v1", "LITELLM_API_KEY"),
    )
}

PRICES: dict[str, tuple[float, float, float]] = {
    # model: USD per million tokens (input, cached input, output), from the providers' price
    # pages (2025); config `pricing:` adds models and overrides these
    "gpt-4o-mini": (0.15, 0.075, 0.60),
    "gpt-4o": (2.50, 1.25, 10.00),
    "gpt-4.1": (2.00, 0.50, 8.00),
    "gpt-4.1-mini": (0.40, 0.10, 1.60),
    "gpt-4.1-nano": (0.10, 0.025, 0.40),
    "gpt-5": (1.25, 0.125, 10.00),
    "gpt-5-mini": (0.25, 0.025, 2.00),
    "gpt-5-nano": (0.05, 0.005, 0.40),
    "o3": (2.00, 0.50, 8.00),
    "o4-mini": (1.10, 0.275, 4.40),
    "deepseek-chat": (0.28, 0.028, 0.42),
    "deepseek-reasoner": (0.28, 0.028, 0.42),
    "kimi-k2-0905-preview": (0.60, 0.15, 2.50),
    "kimi-k2-turbo-preview": (1.15, 0.15, 8.00),
    "glm-4.6": (0.60, 0.11, 2.20),
}

_HOSTS = {
    "api.openai.com": "openai",
    "api.deepseek.com": "deepseek",
    "api.moonshot.ai": "kimi",
    "api.moonshot.cn": "kimi",
    "api.kimi.com": "kimi",
    "open.bigmodel.cn": "glm",
    "api.z.ai": "glm",
    "dashscope.aliyuncs.com": "qwen",
    "dashscope-intl.aliyuncs.com": "qwen",
    "openrouter.ai": "openrouter",
}


def _host(base_url: str) -> str:
    from urllib.parse import urlparse

    try:
        return (urlparse(base_url).hostname or "").lower()
    except ValueError:  # a malformed port or bracket: no host zen knows
        return ""


def hosted_preset(base_url: str) -> Provider | None:
    """The hosted provider whose own host `base_url` is on, else None. Only these hosts
    require a key, and only they are never asked what they serve (their preset knows)."""
    name = _HOSTS.get(_host(base_url))
    return PROVIDERS[name] if name else None


def owns(preset: Provider, base_url: str) -> bool:
    """`base_url` is `preset`'s own host (any loopback name for a local preset's): the only
    place its key variable (`DEEPSEEK_API_KEY`...) may be sent without being named."""
    host, own = _host(base_url), _host(preset.base_url)
    if host == own or _HOSTS.get(host) == preset.name:
        return True
    return preset.local and is_local(base_url)


def detect(base_url: str | None) -> Provider:
    """The provider whose habits apply to `base_url` (openai's when unknown)."""
    if base_url:
        from urllib.parse import urlparse

        found = hosted_preset(base_url)
        if found is not None:
            return found
        try:
            if urlparse(base_url).port == 11434:
                return PROVIDERS["ollama"]
        except ValueError:
            pass
    return PROVIDERS["openai"]


def is_local(base_url: str) -> bool:
    """True for endpoints on this machine (a reply cap by default, a cache of the lookup)."""
    host = _host(base_url)
    return host in ("localhost", "::1", "0.0.0.0") or host.startswith("127.")

"""What an endpoint serves: the facts one lookup learns, and what they change.

`Served` is what `zen/llm/lookup.py` learns from a server's `/models` (and llama.cpp's
`/props`, Ollama's `/api/show`, LM Studio's `/api/v0/models`): the models it serves, which
server it is, the context window it runs with, and the family and size of the model zen will
use. Doctor and `/model` show it (`describe`), the session adapts its settings to it
(`applied`), and model profiles map its (family, params_b) to the settings that work for it.
Hosted presets' own hosts are never asked (`asks_server`): the preset knows their answers.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import TYPE_CHECKING, Any, Literal, get_args

if TYPE_CHECKING:
    from collections.abc import Sequence

    from zen.settings.profiles import Profile
    from zen.settings.schema import ModelSettings

ServerKind = Literal["llama-server", "llama-cpp-python", "ollama", "vllm", "lmstudio", "unknown"]
SERVER_KINDS: tuple[str, ...] = get_args(ServerKind)


@dataclass(frozen=True)
class Served:
    """One endpoint's answers. Every field but `base_url` may be unknown."""

    base_url: str
    status: int = 0
    """HTTP status of `GET /models`; 0: no answer (`error` says why)."""
    error: str = ""
    seconds: float = 0.0
    """How long `GET /models` took."""
    models: tuple[str, ...] | None = None
    """The served model ids; None when the answer was no OpenAI-shaped list."""
    server: ServerKind = "unknown"
    model: str | None = None
    """The served model the facts below describe: the configured one, else the only one."""
    context_window: int | None = None
    """Tokens the server runs the model with (llama.cpp's n_ctx, vLLM's max_model_len...)."""
    family: str | None = None
    """`qwen2.5-coder`, `smollm2`... (`zen/llm/model_names.py`)."""
    family_from: Literal["name", "template"] | None = None
    """What said the family: a model name (the id, the file), or the chat template's words."""
    params_b: float | None = None
    """Billions of parameters."""
    quant: str | None = None
    """`Q4_K_M`, when the server or the file name says."""
    tool_template: bool | None = None
    """llama.cpp / Ollama: the model's chat template handles tools (None: not said)."""
    v1_url: str | None = None
    """This URL has no OpenAI API but this one (the same with `/v1`) does."""

    @property
    def listed(self) -> bool:
        return self.status == 200 and self.models is not None

    @property
    def only(self) -> str | None:
        """The one model the server serves, if it serves exactly one."""
        return self.models[0] if self.models is not None and len(self.models) == 1 else None

    def serves(self, model: str) -> bool:
        """`model` is among the served ones (Ollama's `name` is `name:latest`)."""
        return self.models is not None and (
            model in self.models or f"{model}:latest" in self.models
        )

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["models"] = list(self.models) if self.models is not None else None
        return data

    @classmethod
    def from_json(cls, data: Any) -> Served | None:
        """A cached entry, or None when it is not one (an older zen's, a damaged file)."""
        if not isinstance(data, dict) or not isinstance(data.get("base_url"), str):
            return None
        known = {f.name: f.type for f in fields(cls)}
        if set(data) - set(known) or data.get("server", "unknown") not in SERVER_KINDS:
            return None
        models = data.get("models")
        if models is not None and not (
            isinstance(models, list) and all(isinstance(m, str) for m in models)
        ):
            return None
        try:
            return cls(**{**data, "models": tuple(models) if models is not None else None})
        except TypeError:
            return None


def asks_server(base_url: str) -> bool:
    """Whether the lookup runs for `base_url`: every endpoint but a hosted preset's own."""
    from zen.settings.providers import hosted_preset

    return hosted_preset(base_url) is None


def applied(
    settings: ModelSettings, served: Served | None, own: Sequence[Profile] = ()
) -> ModelSettings:
    """`settings` adapted to what the server is: the placeholder model (none was configured)
    replaced by the one model it serves, `stream_tools` (when nobody set it) off only
    for llama-cpp-python, which cannot stream tool calls, and what nobody set taken from the
    model's profile (the user's rows `own`, then zen's)."""
    if served is None or not served.listed:
        return settings
    settings = _profiled(settings, served, own)
    update: dict[str, Any] = {}
    only = served.only
    if settings.default_model and only and not served.serves(settings.model):
        update["model"] = only
    if settings.stream_tools is None and served.server == "llama-cpp-python":
        update["stream_tools"] = False
    return settings.model_copy(update=update) if update else settings


def _profiled(settings: ModelSettings, served: Served, own: Sequence[Profile]) -> ModelSettings:
    """`settings` with what the user left unset taken from the model's profile: the tool
    protocol (`auto` starts as the profile says: text, or native and the switch), and on a
    server on this machine the temperature and output cap."""
    from zen.settings.profiles import pick
    from zen.settings.providers import is_local

    profile = pick(list(own), served.family, served.params_b)
    if profile is None:
        return settings
    update: dict[str, Any] = {"profile": profile.describe()}
    unset, auto = settings.tool_protocol is None, settings.tool_protocol == "auto"
    if profile.tool_protocol and (unset or (auto and profile.tool_protocol == "text")):
        update["tool_protocol"] = profile.tool_protocol
    if is_local(settings.base_url):
        if settings.temperature is None and profile.temperature is not None:
            update["temperature"] = profile.temperature
        if settings.max_tokens is None and profile.max_tokens is not None:
            update["max_tokens"] = profile.max_tokens
    return settings.model_copy(update=update)


def describe(served: Served) -> str:
    """One line: `llama-server: SmolLM2-135M-Instruct-Q4_1.gguf (smollm2, 0.135B, Q4_1),
    runs it with 8,192 tokens of context`."""
    family = served.family and served.family + _by_template(served)
    what = [f for f in (family, _size(served.params_b), served.quant) if f]
    model = served.model or ""
    if model and what:
        model += f" ({', '.join(what)})"
    parts: list[str] = [served.server if served.server != "unknown" else "a server"]
    if model:
        parts.append(f"serves {model}")
    if served.context_window:
        parts.append(f"runs it with {served.context_window:,} tokens of context")
    if served.tool_template is False:
        parts.append("its chat template has no tool support")
    return ", ".join(parts)


def profile_note(settings: ModelSettings, served: Served | None, own: Sequence[Profile]) -> str:
    """The model profile in use and what it set, for doctor and `zen config`: `qwen2.5-coder
    1-2B: text, temperature 0 (measured); in use: tool protocol text, temperature 0`."""
    if served is None:
        return "none (a hosted provider's model)"
    if not served.listed:
        return "unknown (the server gave no model list)"
    used = applied(settings, served, own)
    family = served.family and served.family + _by_template(served)
    if not used.profile:
        what = ", ".join(f for f in (family, _size(served.params_b)) if f)
        return f"none matches {served.model or 'the model'} ({what or 'family unknown'})"
    temperature = "server default" if used.temperature is None else f"{used.temperature:g}"
    source = "its chat template" if served.family_from == "template" else "the model's name"
    return (
        f"{used.profile}; in use: tool protocol {used.protocol}, temperature {temperature}; "
        f"family {served.family} from {source}"
    )


def listing(served: Served, limit: int = 8) -> str:
    """The served models, `a, b, c, … (12 in all)`."""
    names = list(served.models or ())
    shown = ", ".join(names[:limit])
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


def _by_template(served: Served) -> str:
    """` by its chat template` when that, not a name, said the family."""
    return " by its chat template" if served.family_from == "template" else ""


def _size(params_b: float | None) -> str:
    if params_b is None:
        return ""
    return f"{params_b * 1000:g}M" if params_b < 1 else f"{params_b:g}B"

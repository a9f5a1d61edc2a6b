"""A model's family, size and quantization, read from the name a server gives it.

Servers name a model by its file (`SmolLM2-135M-Instruct-Q4_1.gguf`), its Hugging Face id
(`Qwen/Qwen2.5-Coder-1.5B-Instruct`) or a tag (`qwen2.5-coder:7b`). Model profiles map
(family, size) to the settings that work for it, so the same model must give the same family
whichever way it is named: known families are matched with separators ignored, the rest fall
back to the words before the size. Pure functions, no I/O.
"""

from __future__ import annotations

import re

FAMILIES = (
    "qwen3-coder", "qwen2.5-coder", "qwen3", "qwen2.5", "qwen2", "qwq", "smollm3", "smollm2",
    "smollm", "llama-4", "llama-3.3", "llama-3.2", "llama-3.1", "llama-3", "llama-2",
    "codellama", "gemma-3", "gemma-2", "gemma", "phi-4", "phi-3.5", "phi-3", "mistral-small",
    "mistral-nemo", "mistral", "mixtral", "ministral", "codestral", "devstral",
    "deepseek-coder-v2", "deepseek-coder", "deepseek-r1", "deepseek-v3", "gpt-oss",
    "granite-3", "granite", "glm-4", "starcoder2", "olmo-2", "falcon3", "yi-coder",
)  # fmt: skip
"""Longest first where one is the start of another (`qwen2.5-coder` before `qwen2.5`)."""
TEMPLATES = (
    ("You are Qwen, created by Alibaba Cloud", "qwen2.5"),
    ("You are a helpful AI assistant named SmolLM, trained by Hugging Face", "smollm2"),
)
"""Words only one family's chat template carries (its default system prompt), for a model
whose names say no family (`model.gguf`). Qwen2.5 and Qwen2.5-Coder share theirs, so the
template alone says `qwen2.5`; a name with the word `coder` makes it `qwen2.5-coder`. Other
families' templates are shared across versions (Llama 3.1-3.3's "Cutting Knowledge Date",
Gemma's `<start_of_turn>`): they say nothing."""
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)([bm])$")
_QUANT = re.compile(
    r"^(?:i?q\d(?:_[a-z0-9]+)*|f16|f32|bf16|fp16|fp8|int[48]|awq|gptq|mlx-?\d?bit)$"
)
_SEPARATORS = re.compile(r"[-_ ]")


def _squeeze(text: str) -> str:
    return _SEPARATORS.sub("", text)


_SQUEEZED = [(_squeeze(name), name) for name in FAMILIES]


def words(name: str) -> list[str]:
    """The name's words: lower case, without its folder, organisation and file extension."""
    base = name.strip().lower().replace("\\", "/").rsplit("/", 1)[-1]
    base = re.sub(r"\.(gguf|bin|safetensors|ggml)$", "", base)
    return [w for w in re.split(r"[-_: ]+", base) if w]


def family(name: str) -> str | None:
    """`qwen2.5-coder` for every spelling of a Qwen2.5-Coder; for an unknown family, the words
    before the size (`acme-lm-7b` → `acme-lm`); None when nothing says (a file named
    `MODEL.gguf` or `my-model-q4_k_m.gguf` has no family: a name without a size is no
    model's name)."""
    parts = words(name)
    # from the first word, or the second after an organisation (`Qwen_Qwen3-8B-Q4_K_M.gguf`)
    for squeezed in ("".join(parts), "".join(parts[1:])):
        for key, known in _SQUEEZED:
            if squeezed.startswith(key) or (key.startswith("llama") and f"meta{key}" in squeezed):
                return known
    for at, word in enumerate(parts):
        if _SIZE.match(word):
            return "-".join(parts[:at]) or None
        if _QUANT.match(word) or word in ("instruct", "chat", "latest"):
            return None
    return None


def size_b(name: str) -> float | None:
    """Billions of parameters in the name (`1.5B` → 1.5, `135M` → 0.135), else None. A
    mixture's active size (`30B-A3B`) does not count: the total comes first."""
    for word in words(name):
        found = _SIZE.match(word)
        if found:
            value = float(found.group(1))
            return value if found.group(2) == "b" else round(value / 1000, 3)
    return None


def quantization(name: str) -> str | None:
    """`Q4_K_M` in `qwen2.5-coder-1.5b-instruct-q4_k_m.gguf`, else None."""
    for word in reversed(re.split(r"[-:. ]+", name.strip().lower())):
        if _QUANT.match(word):
            return word.upper()
    return None


def parse_size(text: object) -> float | None:
    """Ollama's `parameter_size` ("7.6B", "135M") in billions, else None."""
    if not isinstance(text, str):
        return None
    found = _SIZE.match(text.strip().lower())
    if not found:
        return None
    value = float(found.group(1))
    return value if found.group(2) == "b" else round(value / 1000, 3)


def from_count(count: object) -> float | None:
    """A parameter count (llama-server's `n_params`) in billions, to three decimals."""
    if isinstance(count, int) and not isinstance(count, bool) and 0 < count < 10**14:
        return round(count / 1e9, 3)
    return None


def from_template(template: object, names: tuple[str, ...] = ()) -> str | None:
    """The family a chat template's own words say (see TEMPLATES), else None; `names`: the
    model's other names, which alone may say it is a coder."""
    if not isinstance(template, str):
        return None
    found = next((known for mark, known in TEMPLATES if mark in template), None)
    if found == "qwen2.5" and any("coder" in words(name) for name in names):
        return "qwen2.5-coder"
    return found

"""A model's family, size and quantization from the names servers give it (the facts model
profiles will read): the same model gives the same family however it is spelled, and a name
that says nothing gives nothing, not a made-up family."""

from __future__ import annotations

import pytest

from zen.llm import model_names


@pytest.mark.parametrize(
    "name",
    [
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "Qwen/Qwen2.5-Coder-1.5B-Instruct",
        "qwen2.5-coder:1.5b",
        "/models/Qwen2.5-Coder-1.5B-Instruct-Q4_K_M.gguf",
        "Qwen_Qwen2.5 Coder 1.5B",
    ],
)
def test_every_spelling_of_one_model_is_one_family_and_size(name: str) -> None:
    assert model_names.family(name) == "qwen2.5-coder"
    assert model_names.size_b(name) == 1.5


def test_longer_families_win_and_meta_llama_is_llama() -> None:
    assert model_names.family("Qwen2.5-7B-Instruct") == "qwen2.5"
    assert model_names.family("meta-llama/Meta-Llama-3.1-8B-Instruct") == "llama-3.1"
    assert model_names.family("SmolLM2-135M-Instruct-Q4_1.gguf") == "smollm2"
    assert model_names.size_b("SmolLM2-135M-Instruct-Q4_1.gguf") == 0.135


def test_an_unknown_family_is_the_words_before_the_size() -> None:
    assert model_names.family("acme-lm-7b-instruct") == "acme-lm"
    assert model_names.size_b("Qwen3-30B-A3B") == 30.0  # the total, not the active size


@pytest.mark.parametrize("name", ["MODEL.gguf", "my-model-q4_k_m.gguf", "local-model", "", "7b"])
def test_a_name_that_says_nothing_has_no_family(name: str) -> None:
    assert model_names.family(name) is None


def test_quantization_and_counts() -> None:
    assert model_names.quantization("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf") == "Q4_K_M"
    assert model_names.quantization("Qwen/Qwen2.5-Coder-1.5B-Instruct") is None
    assert model_names.parse_size("7.6B") == 7.6 and model_names.parse_size("135M") == 0.135
    assert model_names.parse_size(7) is None
    assert model_names.from_count(1_543_714_304) == 1.544
    assert model_names.from_count(True) is None and model_names.from_count(-1) is None

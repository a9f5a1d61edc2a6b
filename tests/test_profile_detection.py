"""A model profile for a model whose file name says no family (`model.gguf`): the family comes
from the words of its chat template (llama.cpp's `/props`, Ollama's `/api/show`), the size from
the server's parameter count, and doctor says which of the two said the family. A template
never says coder on its own; an unknown one says nothing; a hostile server's strings stay
harmless (issue 38 part 4)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.fakes import personas
from tests.fakes.server import text
from zen.llm.model_names import from_template

QWEN = (
    "{%- if messages[0]['role'] == 'system' %}{{- messages[0]['content'] }}{%- else %}"
    "{{- '<|im_start|>system\\nYou are Qwen, created by Alibaba Cloud. You are a helpful "
    "assistant.<|im_end|>\\n' }}{%- endif %}"
)
SMOLLM2 = (
    "{{ '<|im_start|>system\\nYou are a helpful AI assistant named SmolLM, trained by Hugging "
    "Face<|im_end|>' }}"
)
LLAMA3 = "{{- 'Cutting Knowledge Date: December 2023\\n' }}<|start_header_id|>"


def llama(model_file: str, template: Any, **more: Any) -> dict[str, Any]:
    persona = personas.llama_server(model_file, **more)
    persona["routes"]["/props"]["chat_template"] = template
    return persona


def flags(fake: Any) -> list[str]:
    return ["--provider", "llamacpp", "--base-url", fake.base_url]


def line(out: str, item: str) -> str:
    return next(x for x in out.splitlines() if x.split(":", 1)[0].endswith(f" {item}"))


def test_a_template_says_a_family_only_by_its_own_words() -> None:
    assert from_template(QWEN) == "qwen2.5"
    assert from_template(QWEN, ("model.gguf", "qwen2.5-1.5b-instruct.gguf")) == "qwen2.5"
    assert from_template(QWEN, ("my-coder.gguf",)) == "qwen2.5-coder"  # a name says coder
    assert from_template(QWEN, ("decoder.gguf",)) == "qwen2.5"  # a word, not a substring
    assert from_template(SMOLLM2) == "smollm2"
    assert from_template(LLAMA3) is None  # shared by Llama 3.1-3.3: says no version
    assert from_template("{{ messages }}") is None and from_template(None) is None
    assert from_template({"default": QWEN}) is None  # not a string: not read


def test_a_qwen_template_gives_model_gguf_a_profile(fake_llm, run_zen) -> None:
    fake = fake_llm([text("It adds.")], **llama("model.gguf", QWEN))
    done = run_zen(*flags(fake), "-p", "what does calc do?")
    assert done.code == 0, done.err
    first = fake.requests[0]
    assert "tools" not in first and first["temperature"] == 0  # the qwen2.5 row's
    doctor = run_zen("doctor", *flags(fake))
    assert "serves model.gguf (qwen2.5 by its chat template, 1.544B" in line(doctor.out, "server")
    profile = line(doctor.out, "profile")
    assert "qwen2.5 0-4B: text, temperature 0 (not measured)" in profile
    assert profile.endswith("family qwen2.5 from its chat template")


def test_a_coder_name_and_a_qwen_template_make_a_coder(fake_llm, run_zen) -> None:
    fake = fake_llm([], **llama("qwen-coder-q4_k_m.gguf", QWEN))
    doctor = run_zen("doctor", *flags(fake))
    profile = line(doctor.out, "profile")
    assert "qwen2.5-coder 1-2B: text, temperature 0 (measured)" in profile, profile
    # A name that says the family wins, and doctor says so.
    fake = fake_llm([], **llama(personas.QWEN_FILE, LLAMA3))
    profile = line(run_zen("doctor", *flags(fake)).out, "profile")
    assert profile.endswith("family qwen2.5-coder from the model's name"), profile


def test_an_unknown_template_gives_no_family_and_ollamas_template_counts(fake_llm, run_zen) -> None:
    fake = fake_llm([text("ok")], **llama("model.gguf", LLAMA3))
    done = run_zen(*flags(fake), "-p", "hi")
    assert done.code == 0, done.err
    assert fake.requests[0]["tools"] and "temperature" not in fake.requests[0]
    doctor = run_zen("doctor", *flags(fake))
    assert "none matches model.gguf (1.544B)" in line(doctor.out, "profile")
    # Ollama: a tag that names no family, its /api/show template Qwen's; 7.6B has no row.
    persona = personas.ollama("mymodel:latest")
    persona["routes"]["/api/show"]["template"] = QWEN
    fake = fake_llm([], **persona)
    doctor = run_zen("doctor", "--provider", "ollama", "--base-url", fake.base_url)
    profile = line(doctor.out, "profile")
    assert "none matches mymodel:latest (qwen2.5 by its chat template, 7.6B)" in profile


@pytest.mark.parametrize(
    ("template", "n_params"),
    [
        ("\x1b]0;pwned\x07\x1b[2J" + "A" * 3_000_000 + QWEN + "\x00\x9b31m", 1_500_000_000),
        (["\x1b[31m", QWEN], -5),
        (12, True),
    ],
)
def test_a_hostile_servers_strings_break_nothing(
    fake_llm, run_zen, template: Any, n_params: Any
) -> None:
    fake = fake_llm([text("ok")], **llama("\x1b[31mmodel\x1b[0m.gguf", template, n_params=n_params))
    doctor = run_zen("doctor", *flags(fake))
    assert "Traceback" not in doctor.err
    assert "\x1b" not in doctor.out + doctor.err and "\x07" not in doctor.out + doctor.err
    profile = line(doctor.out, "profile")
    assert len(profile) < 300
    if isinstance(template, str):  # the family is zen's own word, never the server's text
        assert "family qwen2.5 from its chat template" in profile

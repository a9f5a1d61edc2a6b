"""The endpoint lookup in the shell, through a pseudo-terminal: nothing asked before the
prompt, `/model` shows what the endpoint serves (the same facts as `zen doctor`), and the
dropped-tools advice comes after the answer, never between its lines (issue 37)."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import personas
from tests.fakes.server import text
from tests.test_shell_pty import Zen

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]

FACTS = (
    f"llama-server, serves {personas.QWEN_FILE} (qwen2.5-coder, 1.544B, Q4_K_M), runs it with "
    "16,384 tokens of context"
)


def squeezed(text: str) -> str:
    return "".join(text.split())


def screen_text(zen: Zen) -> str:
    """What is on screen and in scrollback without whitespace: long lines wrap, at a space
    or inside a long word."""
    return squeezed("".join(zen.lines()))


def test_model_shows_what_the_endpoint_serves_and_nothing_is_asked_before(
    fake_llm: Any, run_zen: Any, project: Path, home: Path
) -> None:
    fake = fake_llm([text("hi")], **personas.llama_server())
    zen = Zen(fake, project, home, "--model", personas.QWEN_FILE)
    try:
        time.sleep(1.0)  # the session opens behind the prompt: still nothing on the wire
        assert fake.paths == []
        zen.task("/model")
        seen = screen_text(zen)
        assert squeezed(f"{fake.base_url}: {FACTS} serves {personas.QWEN_FILE}") in seen
        assert squeezed(f"main: {personas.QWEN_FILE} at {fake.base_url}") in seen
        assert zen.exit() == 0
    finally:
        zen.close()
    doctor = run_zen("doctor", "--base-url", fake.base_url, "--model", personas.QWEN_FILE)
    assert f"ok   server: {FACTS}" in doctor.out.splitlines()


ANSWER = "First paragraph of the answer.\n\nSecond paragraph, line one.\nAnd line two."


def test_the_dropped_tools_advice_comes_after_the_whole_answer(
    fake_llm: Any, project: Path, home: Path
) -> None:
    smollm = personas.llama_server("SmolLM2-135M-Instruct-Q4_1.gguf", tools=False)
    fake = fake_llm([text(ANSWER, chunk=3, usage=(40, 5))], **smollm)
    zen = Zen(fake, project, home)
    try:
        zen.task("hello")
        lines = zen.lines()
        advice = next(i for i, line in enumerate(lines) if "the server counted 40 prompt" in line)
        last = next(i for i, line in enumerate(lines) if "And line two." in line)
        assert last < advice, "\n".join(lines)
        assert screen_text(zen).count(squeezed("the server counted 40 prompt tokens")) == 1
        assert squeezed("--tool-protocol text|auto") in screen_text(zen)
        assert zen.exit() == 0
    finally:
        zen.close()

"""`zen config` through the real CLI: where the model, the URL and the key came from, and a
non-zero exit when a role could not run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from zen.base import exits

KEY = "sk-" + "c" * 30


def sources(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.startswith("  model from ")]


def test_flags_are_named_as_the_source(run_zen: Any) -> None:
    done = run_zen("config", "--model", "m1", "--base-url", "http://127.0.0.1:9/v1")
    assert done.code == exits.DONE, done.err
    assert sources(done.out) == ["model from --model; base URL from --base-url"]


def test_variables_files_and_presets_are_named(run_zen: Any, home: Path) -> None:
    (home / ".zen").mkdir()
    config = home / ".zen" / "config.yaml"
    config.write_text("provider: deepseek\n")
    env = {"ZEN_MODEL": "deepseek-reasoner", "DEEPSEEK_API_KEY": KEY}
    done = run_zen("config", env=env)
    assert done.code == exits.DONE, done.err
    assert sources(done.out) == [
        "model from environment ZEN_MODEL; base URL from provider deepseek's URL "
        f"(provider from {config}: provider)"
    ]
    assert "key sk-…cccc (environment DEEPSEEK_API_KEY)" in done.out
    config.write_text("base_url: http://127.0.0.1:9/v1\nmodel: local\n")
    done = run_zen("config")
    assert sources(done.out) == [f"model from {config}: model; base URL from {config}: base_url"]


def test_nothing_set_is_the_default(run_zen: Any) -> None:
    done = run_zen("config", env={"OPENAI_API_KEY": KEY})
    assert done.code == exits.DONE, done.err
    assert sources(done.out) == [
        "model from provider openai's default (no model is set); base URL from the default: "
        "no provider, base_url or OPENAI_BASE_URL is set"
    ]


def test_no_key_is_an_error_exit(run_zen: Any) -> None:
    done = run_zen("config")  # no key anywhere, for OpenAI's host
    assert done.code == exits.USAGE, done.out + done.err
    assert "main: no API key for https://api.openai.com/v1" in done.out
    assert "Traceback" not in done.err


def test_no_key_still_says_where_model_and_url_came_from(run_zen: Any, home: Path) -> None:
    """The no-key case is when a user most needs to know which file or variable chose the
    host that wants a key, so the sources line is printed there too (still exit 2)."""
    (home / ".zen").mkdir()
    config = home / ".zen" / "config.yaml"
    config.write_text("provider: deepseek\nmodel: deepseek-chat\n")
    done = run_zen("config")  # DEEPSEEK_API_KEY unset: no key for deepseek's host
    assert done.code == exits.USAGE, done.out + done.err
    assert "main: no API key for https://api.deepseek.com" in done.out
    assert sources(done.out) == [
        f"model from {config}: model; base URL from provider deepseek's URL "
        f"(provider from {config}: provider)"
    ]
    config.unlink()  # nothing set at all: OpenAI's host by default, and no key for it
    done = run_zen("config")
    assert done.code == exits.USAGE, done.out + done.err
    assert sources(done.out) == [
        "model from provider openai's default (no model is set); base URL from the default: "
        "no provider, base_url or OPENAI_BASE_URL is set"
    ]

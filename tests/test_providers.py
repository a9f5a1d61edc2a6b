"""Provider presets: default models and context windows, stream_tools, deadline settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_config import error, load, write
from zen.settings.model_roles import resolve_model
from zen.settings.providers import PROVIDERS
from zen.settings.schema import ConfigError


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def test_every_preset_with_a_default_model_knows_its_context_window() -> None:
    for p in PROVIDERS.values():
        assert (p.default_model is None) == (p.context_window is None) or p.name == "llamacpp"
        assert p.context_window is None or p.context_window >= 8_000
    assert {"llamacpp", "litellm"} <= set(PROVIDERS)


@pytest.mark.parametrize("name", [n for n, p in PROVIDERS.items() if p.default_model])
def test_a_provider_without_a_model_uses_its_default(
    workspace: Path, home: Path, name: str
) -> None:
    env = {PROVIDERS[name].key_env: "k"}
    settings = resolve_model(load(workspace, home, {"provider": name}, **env))
    assert (settings.model, settings.default_model) == (PROVIDERS[name].default_model, True)
    chosen = resolve_model(load(workspace, home, {"provider": name, "model": "m2"}, **env))
    assert (chosen.model, chosen.default_model) == ("m2", False)


def test_the_default_follows_the_url_too(workspace: Path, home: Path) -> None:
    config = load(workspace, home, {"base_url": "https://api.deepseek.com"}, DEEPSEEK_API_KEY="k")
    assert resolve_model(config).model == "deepseek-chat"
    assert resolve_model(load(workspace, home, OPENAI_API_KEY="k")).model == "gpt-4o-mini"


@pytest.mark.parametrize("name", ["vllm", "lmstudio", "litellm"])
def test_a_server_without_a_default_asks_for_a_model(
    workspace: Path, home: Path, name: str
) -> None:
    config = load(workspace, home, {"provider": name}, LITELLM_API_KEY="k")
    with pytest.raises(ConfigError, match=f"provider {name} has no default model: set --model"):
        resolve_model(config)


def test_a_role_with_its_own_provider_gets_that_providers_default(
    workspace: Path, home: Path
) -> None:
    write(
        home,
        "model: top-model\ndual_agent: {coder: {provider: kimi},"
        " orchestrator: {provider: deepseek, model: deepseek-reasoner}}\n",
    )
    config = load(workspace, home, OPENAI_API_KEY="a", MOONSHOT_API_KEY="b", DEEPSEEK_API_KEY="c")
    coder, orchestrator = resolve_model(config, "coder"), resolve_model(config, "orchestrator")
    assert (coder.provider, coder.model, coder.default_model) == (
        "kimi",
        PROVIDERS["kimi"].default_model,
        True,
    )
    assert orchestrator.model == "deepseek-reasoner"
    assert resolve_model(config).model == "top-model"


def test_stream_tools_from_config_and_role(workspace: Path, home: Path) -> None:
    """Unset, the server decides (the endpoint lookup); set, the configuration does."""
    assert resolve_model(load(workspace, home, {"provider": "llamacpp"})).stream_tools is None
    write(
        workspace,
        "provider: llamacpp\nstream_tools: true\ndual_agent: {coder: {provider: ollama}}\n",
    )
    config = load(workspace, home)
    assert resolve_model(config).stream_tools is True
    assert resolve_model(config, "coder").stream_tools is None  # its own endpoint: its server
    write(workspace, "stream_tools: false\n")
    assert resolve_model(load(workspace, home, OPENAI_API_KEY="k")).stream_tools is False


def test_deadlines_from_file_env_and_flags(workspace: Path, home: Path) -> None:
    write(workspace, "timeout: 60\nidle_timeout: 30\n")
    config = load(
        workspace, home, {"first_byte_timeout": 20.0}, ZEN_TIMEOUT="45", ZEN_MAX_TIME="600"
    )
    assert (
        config.timeout,
        config.idle_timeout,
        config.first_byte_timeout,
        config.max_time,
        config.connect_timeout,
    ) == (45, 30, 20, 600, 10)
    assert "environment ZEN_TIMEOUT" in error(workspace, home, ZEN_TIMEOUT="soon")
    assert error(workspace, home, {"max_time": -1.0}).startswith("--max-time: ")

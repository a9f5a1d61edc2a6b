"""The config loader against real files in tmp folders and explicit environments."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from zen.settings.loading import load_config
from zen.settings.model_roles import resolve_model
from zen.settings.prompts import data_dir
from zen.settings.schema import Config, ConfigError


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def write(root: Path, text: str) -> Path:
    path = root / ".zen" / "config.yaml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def load(workspace: Path, home: Path, cli: dict[str, Any] | None = None, **env: str) -> Config:
    return load_config(
        workspace, cli, {"HOME": str(home), "USERPROFILE": str(home), **env}, trusted=True
    )


def error(workspace: Path, home: Path, cli: dict[str, Any] | None = None, **env: str) -> str:
    with pytest.raises(ConfigError) as caught:
        load(workspace, home, cli, **env)
    message = str(caught.value)
    assert "\n" not in message
    return message


# --- the packaged defaults -------------------------------------------------------------------


def test_packaged_default_yaml_is_valid_and_matches_the_schema_defaults() -> None:
    raw = yaml.safe_load((data_dir("config") / "default.yaml").read_text(encoding="utf-8"))
    assert set(raw) == set(Config.model_fields), "default.yaml should list every setting"
    assert set(raw["features"]) == set(Config.model_fields["features"].annotation.model_fields)
    assert load_config(Path("/nonexistent"), env={}) == Config()


def test_defaults(workspace: Path, home: Path) -> None:
    config = load(workspace, home)
    assert (config.model, config.provider, config.agent_mode) == (None, None, "single")
    assert (config.collaboration, config.features.git) == ("delegated", "auto")
    assert (config.max_tool_output, config.max_turns, config.permissions) == (30000, 100, {})


# --- precedence ------------------------------------------------------------------------------


def test_each_layer_beats_the_one_below(workspace: Path, home: Path) -> None:
    write(home, "model: user-m\nmax_turns: 7\ntemperature: 0.1\nretries: 1\n")
    write(workspace, "model: proj-m\nmax_turns: 8\ntemperature: 0.2\n")
    config = load(workspace, home)
    assert (config.model, config.max_turns, config.temperature, config.retries) == (
        "proj-m",
        8,
        0.2,
        1,
    )
    assert config.coder_max_turns == 50  # untouched: default

    config = load(workspace, home, ZEN_MODEL="env-m")
    assert (config.model, config.max_turns) == ("env-m", 8)

    config = load(workspace, home, {"model": "cli-m", "max_turns": 9}, ZEN_MODEL="env-m")
    assert (config.model, config.max_turns) == ("cli-m", 9)


def test_env_variables_map_to_settings(workspace: Path, home: Path) -> None:
    config = load(
        workspace,
        home,
        ZEN_PROVIDER="DeepSeek",
        ZEN_BASE_URL="http://h:1/v1",
        ZEN_API_KEY="zk",
        ZEN_MODEL="m",
    )
    assert (config.provider, config.base_url, config.api_key, config.model) == (
        "deepseek",
        "http://h:1/v1",
        "zk",
        "m",
    )


def test_cli_none_values_are_ignored_and_blank_env_is_unset(workspace: Path, home: Path) -> None:
    write(workspace, "model: proj-m\n")
    config = load(workspace, home, {"model": None, "max_turns": None}, ZEN_MODEL="")
    assert (config.model, config.max_turns) == ("proj-m", 100)


def test_nested_mappings_merge_key_wise(workspace: Path, home: Path) -> None:
    write(
        home,
        """
features: {todo: off, mcp: off}
permissions: {bash: confirm, read-file: auto}
dual_agent: {coder: {model: user-coder, temperature: 0.3}}
mcp_servers:
  time: {command: uvx, args: [mcp-server-time], timeout: 5}
prompts: [a.md, b.md]
""",
    )
    write(
        workspace,
        """
features: {mcp: on}
permissions: {bash: deny}
dual_agent: {coder: {model: proj-coder}}
mcp_servers:
  time: {args: [other]}
  docs: {url: "http://127.0.0.1:9/mcp"}
prompts: [c.md]
""",
    )
    config = load(workspace, home)
    assert (config.features.todo, config.features.mcp) == ("off", "on")
    assert config.permissions == {"bash": "deny", "read-file": "auto"}
    assert (config.dual_agent.coder.model, config.dual_agent.coder.temperature) == (
        "proj-coder",
        0.3,
    )
    time = config.mcp_servers["time"]
    assert (time.command, time.args, time.timeout) == ("uvx", ["other"], 5)
    assert config.mcp_servers["docs"].url == "http://127.0.0.1:9/mcp"
    assert config.prompts == ["c.md"]  # lists replace


def test_null_in_a_higher_layer_restores_the_default(workspace: Path, home: Path) -> None:
    write(home, "temperature: 0.5\nmcp_servers: {time: {command: uvx}}\n")
    write(workspace, "temperature: null\nmcp_servers: {time: null}\n")
    config = load(workspace, home)
    assert (config.temperature, config.mcp_servers) == (None, {})


def test_yaml_on_off_and_booleans(workspace: Path, home: Path) -> None:
    write(
        workspace,
        """
features: {git: on, mcp: off, todo: false, planning_layer: true}
mcp_servers: {s: {command: x, args: [no], env: {DEBUG: yes}}}
""",
    )
    config = load(workspace, home)
    features = config.features
    assert (features.git, features.mcp, features.todo, features.planning_layer) == (
        "on",
        "off",
        "off",
        "on",
    )
    assert config.mcp_servers["s"].args == ["no"]
    assert config.mcp_servers["s"].env == {"DEBUG": "yes"}


def test_missing_home_skips_the_user_layer(workspace: Path) -> None:
    write(workspace, "max_turns: 3\n")
    assert load_config(workspace, env={}, trusted=True).max_turns == 3


# --- $VAR expansion --------------------------------------------------------------------------


def test_variables_expand_in_string_values(workspace: Path, home: Path) -> None:
    write(
        workspace,
        """
api_key: ${MY_KEY}
model: $MODEL_NAME-fast
base_url: "http://${HOST}:8080/v1"
mcp_servers:
  s: {command: "$$HOME/bin/x", args: ["${MISSING:-fallback}", "${EMPTY:-dflt}", "cost $5"]}
""",
    )
    config = load(workspace, home, MY_KEY="sk-1", MODEL_NAME="big", HOST="127.0.0.1", EMPTY="")
    assert (config.api_key, config.model, config.base_url) == (
        "sk-1",
        "big-fast",
        "http://127.0.0.1:8080/v1",
    )
    server = config.mcp_servers["s"]
    assert (server.command, server.args) == ("$HOME/bin/x", ["fallback", "dflt", "cost $5"])


@pytest.mark.parametrize("text", ["api_key: ${NOPE_KEY}\n", "api_key: $NOPE_KEY\n"])
def test_unset_variable_names_file_key_and_variable(workspace: Path, home: Path, text: str) -> None:
    path = write(workspace, text)
    message = error(workspace, home)
    assert message.startswith(f"{path}: api_key: environment variable NOPE_KEY is not set")


def test_unset_variable_in_a_nested_list_skips_only_that_mcp_server(
    workspace: Path, home: Path
) -> None:
    path = write(home, "mcp_servers: {s: {command: x, args: [a, $GONE]}, t: {command: y}}\n")
    config = load(workspace, home)
    assert list(config.mcp_servers) == ["t"]
    assert config._mcp_skipped["s"].startswith(f"{path}: mcp_servers.s.args[1]: ")


# --- errors ----------------------------------------------------------------------------------


def test_yaml_syntax_error_names_file_and_line(workspace: Path, home: Path) -> None:
    path = write(workspace, "model: ok\nmax_turns: 5\n  bad: : indent\n")
    message = error(workspace, home)
    assert message.startswith(f"{path}: line 3, column ")


def test_wrong_type_names_file_and_key(workspace: Path, home: Path) -> None:
    write(home, "max_turns: 4\n")
    path = write(workspace, "max_turns: lots\n")
    assert error(workspace, home) == (
        f"{path}: max_turns: Input should be a valid integer, unable to parse string as an integer"
    )


def test_the_error_names_the_layer_that_supplied_the_key(workspace: Path, home: Path) -> None:
    path = write(home, "features: {git: sometimes}\n")
    write(workspace, "features: {todo: on}\n")
    assert error(workspace, home) == (
        f"{path}: features.git: Input should be 'auto', 'on' or 'off'"
    )


def test_unknown_keys(workspace: Path, home: Path) -> None:
    path = write(workspace, "max_turn: 5\ndual_agent: {coder: {modle: x}}\nwhatever: 1\n")
    assert set(error(workspace, home).split("; ")) == {
        f"{path}: max_turn: unknown key (did you mean max_turns?)",
        f"{path}: dual_agent.coder.modle: unknown key (did you mean model?)",
        f"{path}: whatever: unknown key",
    }


def test_no_far_fetched_hints(workspace: Path, home: Path) -> None:
    path = write(workspace, "mcp_servers: {s: {cmd: x}}\n")
    assert error(workspace, home) == f"{path}: mcp_servers.s.cmd: unknown key"
    path = write(workspace, "dual_agent: {coder: 5}\n")
    assert error(workspace, home) == (
        f"{path}: dual_agent.coder: Input should be a mapping of `key: value` settings"
    )


def test_bad_agent_mode(workspace: Path, home: Path) -> None:
    path = write(workspace, "agent_mode: triple\n")
    assert error(workspace, home) == f"{path}: agent_mode: Input should be 'single' or 'dual'"


@pytest.mark.parametrize(
    ("text", "found"), [("- model: x\n", "a list"), ("just text\n", "a single value")]
)
def test_non_mapping_file(workspace: Path, home: Path, text: str, found: str) -> None:
    path = write(workspace, text)
    assert error(workspace, home) == (
        f"{path}: expected `key: value` settings at the top, found {found}"
    )


def test_empty_file_is_fine(workspace: Path, home: Path) -> None:
    write(workspace, "# nothing yet\n")
    assert load(workspace, home) == load_config(
        workspace, env={"HOME": str(home), "USERPROFILE": str(home)}, trusted=True
    )


def test_unreadable_config_is_named(workspace: Path, home: Path) -> None:
    (workspace / ".zen" / "config.yaml").mkdir(parents=True)
    assert error(workspace, home).startswith(f"{workspace / '.zen' / 'config.yaml'}: cannot read")


def test_bad_values_from_env_and_cli_are_named_as_such(workspace: Path, home: Path) -> None:
    assert error(workspace, home, ZEN_PROVIDER="deepsek").startswith(
        "environment ZEN_PROVIDER: unknown provider 'deepsek'; known: openai, deepseek,"
    )
    assert error(workspace, home, ZEN_BASE_URL="api.deepseek.com") == (
        "environment ZEN_BASE_URL: 'api.deepseek.com' should start with http:// or https://"
    )
    assert error(workspace, home, {"max_turns": "x"}) == (
        "--max-turns: Input should be a valid integer, unable to parse string as an integer"
    )
    assert error(workspace, home, {"agent_mode": "solo"}) == (
        "--agent-mode: Input should be 'single' or 'dual'"
    )


def test_bounds(workspace: Path, home: Path) -> None:
    path = write(workspace, "max_tool_output: 10\nmcp_servers: {s: {url: u, timeout: 0}}\n")
    assert set(error(workspace, home).split("; ")) == {
        f"{path}: max_tool_output: Input should be greater than 200",
        f"{path}: mcp_servers.s.timeout: Input should be greater than 0",
    }


def test_several_problems_stay_on_one_line(workspace: Path, home: Path) -> None:
    write(workspace, "a: 1\nb: 2\nc: 3\nd: 4\nmax_turns: x\n")
    message = error(workspace, home)
    assert message.count(str(Path(".zen/config.yaml")) + ": ") == 3  # a backslash on Windows
    assert "max_turns: Input should be a valid integer" in message
    assert message.endswith("; and 2 more")


# --- resolve_model ---------------------------------------------------------------------------


def test_default_is_openai_with_openai_key(workspace: Path, home: Path) -> None:
    settings = resolve_model(load(workspace, home, OPENAI_API_KEY="sk-oa"))
    assert (settings.provider, settings.base_url, settings.api_key, settings.model) == (
        "openai",
        "https://api.openai.com/v1",
        "sk-oa",
        "gpt-4o-mini",
    )


def test_openai_base_url_is_a_fallback(workspace: Path, home: Path) -> None:
    env = {"OPENAI_BASE_URL": "https://gw.example/v1", "OPENAI_API_KEY": "sk-oa"}
    settings = resolve_model(load(workspace, home, **env))
    assert (settings.base_url, settings.api_key) == ("https://gw.example/v1", "sk-oa")
    # an explicit base_url and key from any layer beat the OPENAI_* pair
    write(home, "base_url: https://mine.example/v1\napi_key: sk-file\n")
    settings = resolve_model(load(workspace, home, **env))
    assert (settings.base_url, settings.api_key) == ("https://mine.example/v1", "sk-file")
    assert resolve_model(load(workspace, home, ZEN_API_KEY="zk", **env)).api_key == "zk"


def test_openai_base_url_applies_to_the_openai_preset_too(workspace: Path, home: Path) -> None:
    config = load(
        workspace,
        home,
        ZEN_PROVIDER="openai",
        OPENAI_BASE_URL="https://gw.example/v1",
        OPENAI_API_KEY="sk-oa",
    )
    assert resolve_model(config).base_url == "https://gw.example/v1"


def test_blank_endpoint_values_mean_unset(workspace: Path, home: Path) -> None:
    write(workspace, 'provider: "${P:-}"\nbase_url: "${B:-}"\napi_key: "${K:-}"\n')
    config = load(workspace, home, OPENAI_API_KEY="sk-oa")
    assert (config.provider, config.base_url, config.api_key) == (None, None, None)
    assert resolve_model(config).api_key == "sk-oa"


def test_openai_pair_pointing_at_another_vendor(workspace: Path, home: Path) -> None:
    env = {"OPENAI_BASE_URL": "https://api.deepseek.com", "OPENAI_API_KEY": "sk-ds"}
    settings = resolve_model(load(workspace, home, **env))
    assert (settings.provider, settings.api_key) == ("deepseek", "sk-ds")


def test_deepseek_preset(workspace: Path, home: Path) -> None:
    write(home, "provider: deepseek\nmodel: deepseek-chat\n")
    env = {"DEEPSEEK_API_KEY": "sk-ds", "OPENAI_API_KEY": "sk-oa"}
    settings = resolve_model(load(workspace, home, **env))
    assert (settings.provider, settings.base_url, settings.api_key) == (
        "deepseek",
        "https://api.deepseek.com",
        "sk-ds",
    )
    assert resolve_model(load(workspace, home, ZEN_API_KEY="zk", **env)).api_key == "zk"
    assert resolve_model(load(workspace, home, {"api_key": "ck"}, **env)).api_key == "ck"


def test_an_openai_key_is_never_sent_to_another_vendor(workspace: Path, home: Path) -> None:
    config = load(workspace, home, ZEN_PROVIDER="deepseek", OPENAI_API_KEY="sk-oa")
    with pytest.raises(ConfigError) as caught:
        resolve_model(config)
    assert str(caught.value) == (
        "no API key for https://api.deepseek.com: set DEEPSEEK_API_KEY (or ZEN_API_KEY), "
        "pass --api-key, or put api_key in ~/.zen/config.yaml"
    )


def test_a_known_host_picks_its_provider_and_key(workspace: Path, home: Path) -> None:
    config = load(
        workspace, home, ZEN_BASE_URL="https://openrouter.ai/api/v1", OPENROUTER_API_KEY="or"
    )
    settings = resolve_model(config)
    assert (settings.provider, settings.api_key) == ("openrouter", "or")


def test_missing_key_for_openai(workspace: Path, home: Path) -> None:
    with pytest.raises(ConfigError, match=r"set OPENAI_API_KEY \(or ZEN_API_KEY\)"):
        resolve_model(load(workspace, home))


@pytest.mark.parametrize(
    "env",
    [
        {"ZEN_BASE_URL": "http://127.0.0.1:8765/v1"},
        {"ZEN_BASE_URL": "http://localhost:8000/v1"},
        {"ZEN_PROVIDER": "ollama"},
    ],
)
def test_local_endpoints_need_no_key(workspace: Path, home: Path, env: dict[str, str]) -> None:
    settings = resolve_model(load(workspace, home, **env))
    assert settings.api_key is None
    assert settings.base_url.startswith(("http://127.0.0.1", "http://localhost"))


def test_dual_agent_partial_override(workspace: Path, home: Path) -> None:
    write(
        workspace,
        """
model: main-model
temperature: 0.7
max_tokens: 1000
dual_agent:
  coder: {model: coder-model, temperature: 0.0}
""",
    )
    config = load(workspace, home, OPENAI_API_KEY="sk-oa")
    orchestrator = resolve_model(config, "orchestrator")
    coder = resolve_model(config, "coder")
    assert (orchestrator.model, orchestrator.temperature) == ("main-model", 0.7)
    assert (coder.model, coder.temperature, coder.max_tokens) == ("coder-model", 0.0, 1000)
    assert (coder.base_url, coder.api_key) == (orchestrator.base_url, "sk-oa")
    assert resolve_model(config, "explorer") == resolve_model(config)


def test_a_role_on_another_provider_gets_that_endpoint(workspace: Path, home: Path) -> None:
    write(
        home,
        """
base_url: http://127.0.0.1:9999/v1
api_key: local-secret
dual_agent:
  coder: {provider: deepseek, model: deepseek-chat}
""",
    )
    config = load(workspace, home, DEEPSEEK_API_KEY="sk-ds")
    coder = resolve_model(config, "coder")
    assert (coder.provider, coder.base_url, coder.api_key, coder.model) == (
        "deepseek",
        "https://api.deepseek.com",
        "sk-ds",
        "deepseek-chat",
    )
    main = resolve_model(config, "orchestrator")
    assert (main.base_url, main.api_key) == ("http://127.0.0.1:9999/v1", "local-secret")

    config = load(workspace, home)
    with pytest.raises(ConfigError) as caught:
        resolve_model(config, "coder")
    assert str(caught.value) == (
        "no API key for https://api.deepseek.com (coder): set DEEPSEEK_API_KEY, or put api_key "
        "under dual_agent.coder in ~/.zen/config.yaml"
    )


def test_a_role_with_its_own_base_url_and_key(workspace: Path, home: Path) -> None:
    write(
        home,
        """
provider: deepseek
dual_agent:
  orchestrator: {base_url: "http://127.0.0.1:1234/v1", api_key: "${LOCAL_KEY:-}"}
""",
    )
    config = load(workspace, home, DEEPSEEK_API_KEY="sk-ds")
    orchestrator = resolve_model(config, "orchestrator")
    assert (orchestrator.base_url, orchestrator.api_key) == ("http://127.0.0.1:1234/v1", None)
    assert resolve_model(config, "coder").base_url == "https://api.deepseek.com"


def test_resolution_ignores_the_process_environment_for_configs_built_in_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "from-process")
    with pytest.raises(ConfigError, match="no API key"):
        resolve_model(Config())
    assert resolve_model(Config(api_key="k")).api_key == "k"


def test_resolution_survives_model_copy(workspace: Path, home: Path) -> None:
    config = load(workspace, home, OPENAI_API_KEY="sk-oa")
    switched = config.model_copy(update={"model": "gpt-4.1"})
    assert (resolve_model(switched).model, resolve_model(switched).api_key) == ("gpt-4.1", "sk-oa")

"""`zen doctor` through the real CLI against the fake server: one line per item, exit 0 only
when all is well, a key never shown, a bad config named by file and key, a deadline kept."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import Any

from tests.fakes import personas
from tests.fakes.server import Huge, Page
from zen.base import exits

KEY = "sk-doctortest-secret-ZQXJ9876"
ITEMS = ("config", "endpoint", "key", "model", "context window", "mcp", "acp", "trust")


def lines(out: str) -> dict[str, str]:
    """item -> `mark text`, from `mark item: text` lines."""
    found = {}
    for line in out.splitlines():
        mark, _, rest = line.partition(" ")
        item, _, said = rest.strip().partition(": ")
        found[item] = f"{mark} {said}"
    return found


def test_all_well_is_exit_0_with_every_line(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], models=("fake-model", "other"), context_window=32_000)
    done = run_zen(
        "doctor", "--base-url", fake.base_url, "--model", "fake-model", env={"ZEN_API_KEY": KEY}
    )
    assert done.code == exits.DONE, done.out + done.err
    got = lines(done.out)
    assert set(ITEMS) <= set(got), done.out
    assert got["endpoint"].startswith(f"ok {fake.base_url} reachable")
    assert got["key"] == "ok found (environment ZEN_API_KEY)"
    assert got["model"] == "ok fake-model (the server serves it)"
    assert got["context window"] == "ok 32,000 tokens (server)"
    assert KEY not in done.out + done.err and "9876" not in done.out + done.err
    assert not fake.requests  # GETs only: not a token spent
    assert any(p.endswith("/models") for p in fake.paths)


def test_a_server_that_is_down_fails_the_endpoint_line(run_zen: Any) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = run_zen("doctor", "--base-url", f"http://127.0.0.1:{port}/v1", "--model", "m")
    assert done.code == exits.DOCTOR
    endpoint = lines(done.out)["endpoint"]
    assert endpoint.startswith(f"FAIL http://127.0.0.1:{port}/v1 unreachable")
    assert endpoint.endswith("is the server running? (llama.cpp: llama-cpp-server -m MODEL.gguf; "
                             "Ollama: ollama serve)")  # fmt: skip
    assert lines(done.out)["model"] == "note m (not checked: the endpoint gave no model list)"
    assert "Traceback" not in done.err


def test_a_server_that_never_answers_is_given_up_quickly(run_zen: Any) -> None:
    with socket.socket() as s:  # accepts connections (the backlog), never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        started = time.monotonic()
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
        done = run_zen("doctor", "--base-url", url, "--model", "m", timeout=30)
    assert done.code == exits.DOCTOR
    assert "unreachable: no answer within" in lines(done.out)["endpoint"]
    assert time.monotonic() - started < 15


def test_a_key_in_the_config_is_never_printed(fake_llm: Any, run_zen: Any, home: Path) -> None:
    fake = fake_llm([])
    (home / ".zen").mkdir()
    config = home / ".zen" / "config.yaml"
    config.write_text(f"base_url: {fake.base_url}\nmodel: fake-model\napi_key: {KEY}\n")
    done = run_zen("doctor")
    assert done.code == exits.DONE, done.out
    assert KEY not in done.out + done.err and "9876" not in done.out + done.err
    assert lines(done.out)["key"] == f"ok found ({config}: api_key)"
    assert str(config) in lines(done.out)["config"]


def test_an_unlisted_model_fails(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], models=("a", "b"))
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "c")
    assert done.code == exits.DOCTOR
    assert lines(done.out)["model"] == "FAIL c is not among the server's models: a, b"


def test_a_malformed_config_names_file_and_key(run_zen: Any, home: Path) -> None:
    (home / ".zen").mkdir()
    config = home / ".zen" / "config.yaml"
    config.write_text("modle: x\n")
    done = run_zen("doctor")
    assert done.code == exits.DOCTOR
    assert f"FAIL config: {config}: modle: unknown key (did you mean model?)" in done.out
    assert {"acp", "trust"} <= set(lines(done.out))  # the checks that need no config still run


def test_mcp_servers_are_counted_not_started(
    fake_llm: Any, run_zen: Any, home: Path, tmp_path: Path
) -> None:
    fake = fake_llm([])
    marker = tmp_path / "started"
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(
        f"base_url: {fake.base_url}\nmodel: fake-model\n"
        f"mcp_servers:\n  probe:\n    command: touch\n    args: ['{marker}']\n"
    )
    done = run_zen("doctor")
    assert done.code == exits.DONE, done.out
    assert (
        lines(done.out)["mcp"]
        == "ok 1 server (probe) configured, not started (zen mcp list starts them)"
    )
    assert not marker.exists()


def test_an_untrusted_folder_says_what_it_ignores(
    fake_llm: Any, run_zen: Any, project: Path
) -> None:
    fake = fake_llm([])
    (project / ".mcp.json").write_text('{"mcpServers": {}}')
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "fake-model")
    assert lines(done.out)["trust"].startswith("note untrusted: .mcp.json ignored")
    assert done.code == exits.DONE


def test_one_verdict_per_item(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], **personas.llama_server())
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", personas.QWEN_FILE)
    assert done.code == exits.DONE, done.out
    items = [line.split(":", 1)[0].split(None, 1)[1] for line in done.out.splitlines()]
    assert len(items) == len(set(items)), done.out
    assert set(ITEMS) | {"server"} <= set(items)
    got = lines(done.out)
    assert got["context window"] == "ok 16,384 tokens (server)"  # llama.cpp's runtime n_ctx
    assert got["key"] == "ok none needed (the server answers without one)"


def test_a_url_without_v1_is_no_api_and_the_one_that_works_is_named(
    fake_llm: Any, run_zen: Any
) -> None:
    fake = fake_llm([], **personas.ollama())
    done = run_zen("doctor", "--base-url", fake.root, "--model", "qwen2.5-coder:7b")
    assert done.code == exits.DOCTOR
    assert lines(done.out)["endpoint"] == (
        f"FAIL no OpenAI API at {fake.root} (GET /models answered 404): {fake.base_url} has one"
    )


def test_a_served_model_that_differs_is_a_warning(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], **personas.llama_server())
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "gpt-4o-mini")
    assert done.code == exits.DONE
    assert lines(done.out)["model"].startswith(
        f"warn gpt-4o-mini is configured, but the server serves {personas.QWEN_FILE}"
    )
    placeholder = run_zen("doctor", "--provider", "llamacpp", "--base-url", fake.base_url)
    assert lines(placeholder.out)["model"] == (
        f"ok {personas.QWEN_FILE} (none configured: zen uses the one the server serves)"
    )


def test_a_huge_model_list_is_read_once_and_no_further(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], routes={"/v1/models": Huge(400)})
    started = time.monotonic()
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "m", timeout=60)
    assert time.monotonic() - started < 30
    assert fake.paths.count("/v1/models") == 1
    assert fake.huge_sent < 32 * 1024 * 1024  # 400 MB offered; a few MB read, then hung up
    got = lines(done.out)
    assert got["endpoint"].startswith("ok ")
    assert got["model"] == "note m (not checked: the model list is larger than 4 MB)"


def test_a_web_page_is_not_a_model_server(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], **personas.web_page())
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "m")
    assert lines(done.out)["endpoint"].startswith(f"warn {fake.base_url} answers (200 in")
    assert "no model list" in lines(done.out)["endpoint"]


def test_an_unreachable_host_elsewhere_gets_its_own_hint(run_zen: Any) -> None:
    """Not "is the server running?" with llama.cpp's command: a host elsewhere (.invalid never
    resolves) is checked for its name and the way there."""
    url = "http://gpu-box.invalid:8000/v1"
    done = run_zen("doctor", "--base-url", url, "--model", "Qwen/Qwen3-32B", timeout=60)
    assert done.code == exits.DOCTOR
    got = lines(done.out)
    assert got["endpoint"].startswith(f"FAIL {url} unreachable: ")
    assert got["endpoint"].endswith("; check the URL, and that this machine can reach it")
    assert got["key"] == "note none set (not checked: the endpoint did not answer)"


def test_a_server_that_wants_a_key_says_how_to_give_one(fake_llm: Any, run_zen: Any) -> None:
    refusal = b'{"error": {"message": "Missing API key", "type": "invalid_request_error"}}'
    fake = fake_llm([], routes={"/v1/models": Page(refusal, 401, "application/json")})
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "m",
                   env={"OPENAI_API_KEY": KEY})  # fmt: skip
    assert done.code == exits.DOCTOR
    got = lines(done.out)
    assert got["endpoint"].startswith(f"ok {fake.base_url} reachable (401 in")
    assert got["key"] == (
        "FAIL none sent, and the server wants one (401): pass --api-key, set ZEN_API_KEY, "
        "or put api_key in ~/.zen/config.yaml"
    )
    assert not any(KEY in h.get("authorization", "") for h in fake.get_headers)


def test_a_chat_template_without_tools_is_a_warning(fake_llm: Any, run_zen: Any) -> None:
    """SmolLM2's template drops the tools zen sends: doctor says so before a turn is spent,
    and names the protocol that works without them."""
    smol = "SmolLM2-135M-Instruct-Q4_1.gguf"  # no profile: native unless set
    fake = fake_llm([], **personas.llama_server(smol, tools=False))
    done = run_zen("doctor", "--provider", "llamacpp", "--base-url", fake.base_url)
    assert done.code == exits.DONE
    assert lines(done.out)["server"].endswith(
        "its chat template has no tool support: tools need --tool-protocol text|auto, "
        "or a template with them"
    )
    assert lines(done.out)["server"].startswith("warn llama-server, serves")
    text = run_zen("doctor", "--provider", "llamacpp", "--base-url", fake.base_url,
                   "--tool-protocol", "text")  # fmt: skip
    assert lines(text.out)["server"].startswith("ok llama-server, serves")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_no_key_still_checks_everything_else(run_zen: Any) -> None:
    """Without a key, every other line is still printed. The default host (OpenAI) is reached
    through a proxy that is down, so the test never leaves this machine."""
    proxy = f"http://127.0.0.1:{closed_port()}"
    env = {"ZEN_TEST_LOCAL_PORTS": str(closed_port()), "HTTPS_PROXY": proxy,
           "https_proxy": proxy, "NO_PROXY": "127.0.0.1,localhost"}  # fmt: skip
    done = run_zen("doctor", env=env, timeout=60)
    assert done.code == exits.DOCTOR, done.out + done.err
    got = lines(done.out)
    assert set(ITEMS) <= set(got), done.out
    assert got["key"].startswith("FAIL no API key for https://api.openai.com/v1")
    assert got["endpoint"].startswith("FAIL https://api.openai.com/v1 unreachable")
    assert got["model"].startswith("note gpt-")
    assert got["local server"] == "note none answers on the usual ports of this machine"
    assert "Traceback" not in done.err


def test_a_misspelt_config_has_one_verdict(run_zen: Any, home: Path) -> None:
    (home / ".zen").mkdir()
    config = home / ".zen" / "config.yaml"
    config.write_text("modle: x\n")
    done = run_zen("doctor")
    said = [line for line in done.out.splitlines() if line.split(":")[0].split()[-1] == "config"]
    assert len(said) == 1, done.out
    assert said[0].startswith(f"FAIL config: {config}: modle: unknown key (did you mean model?)")
    assert str(config) in said[0].split("(read: ", 1)[1]


def test_a_short_key_never_garbles_the_output(fake_llm: Any, run_zen: Any, home: Path) -> None:
    """`ZEN_API_KEY=x`, a local server's usual dummy key: no `conte[key]t window`."""
    fake = fake_llm([], models=("fake-model",), context_window=32_000)
    done = run_zen("doctor", "--base-url", fake.base_url, "--model", "fake-model",
                   env={"ZEN_API_KEY": "x"})  # fmt: skip
    assert done.code == exits.DONE, done.out + done.err
    assert "[key]" not in done.out and "…" not in done.out, done.out
    got = lines(done.out)
    assert got["context window"] == "ok 32,000 tokens (server)"
    assert got["key"] == "ok found (environment ZEN_API_KEY)"
    assert "the acp extra" in got["acp"]
    # 8 to 15 characters: redacted as a whole token only, never inside a word
    mid = run_zen("doctor", "--base-url", fake.base_url, "--model", "fake-model",
                  env={"ZEN_API_KEY": "nfigured"})  # fmt: skip
    assert lines(mid.out)["mcp"] == "ok no servers configured", mid.out

"""Local endpoints that just work, through the real CLI against fakes that answer as the real
servers do (tests/fakes/personas.py): keys go only where the user sent them, one lookup tells
zen what the server is, and the placeholder model, stream_tools and the dropped-tools advice
follow it (issue 37)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest

from tests.fakes import personas
from tests.fakes.server import call, status, text, tool_calls

OPENAI_KEY = "sk-openai-user-secret-4242"
DEEPSEEK_KEY = "sk-deepseek-user-secret-4343"


def lan_address() -> str:
    """An address of this machine that is not loopback: a server "on the LAN" as far as zen
    can tell (no packet is sent to find it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("10.255.255.255", 1))
            address = s.getsockname()[0]
        except OSError:
            address = ""
    if not address or address.startswith("127."):
        pytest.skip("this machine has no non-loopback IPv4 address to play a LAN server on")
    return address


def authorizations(fake: Any) -> list[str]:
    return [h.get("authorization", "") for h in fake.get_headers]


# --- 1. keys go where the user sent them ---------------------------------------------------


def test_a_lan_server_needs_no_key_and_gets_none_of_the_users(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([text("hello from the LAN")], host=lan_address(), **personas.vllm())
    keys = {"OPENAI_API_KEY": OPENAI_KEY, "DEEPSEEK_API_KEY": DEEPSEEK_KEY}
    done = run_zen("--base-url", fake.base_url, "--model", "Qwen/Qwen2.5-Coder-1.5B-Instruct",
                   "-p", "hi", env=keys)  # fmt: skip
    assert done.code == 0, done.err
    assert done.out.strip() == "hello from the LAN"
    sent = " ".join(authorizations(fake))
    assert fake.requests and OPENAI_KEY not in sent and DEEPSEEK_KEY not in sent


def test_another_loopback_address_gets_no_openai_key(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([text("ok")], host="127.0.0.2")
    done = run_zen("--base-url", fake.base_url, "--model", "fake-model", "-p", "hi",
                   env={"OPENAI_API_KEY": OPENAI_KEY})  # fmt: skip
    assert done.code == 0, done.err
    assert all(OPENAI_KEY not in h for h in authorizations(fake))


def test_a_key_the_user_names_goes_there(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([text("ok")], host=lan_address())
    done = run_zen("--base-url", fake.base_url, "--model", "fake-model", "-p", "hi",
                   env={"ZEN_API_KEY": "sk-named-for-the-lan"})  # fmt: skip
    assert done.code == 0, done.err
    assert fake.request_headers[0]["authorization"] == "Bearer sk-named-for-the-lan"


def test_a_401_says_how_to_give_a_key(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([status(401, message="Missing API key")], host=lan_address())
    done = run_zen("--base-url", fake.base_url, "--model", "fake-model", "-p", "hi",
                   env={"OPENAI_API_KEY": OPENAI_KEY})  # fmt: skip
    assert done.code == 1
    assert f"{fake.base_url} wants an API key" in done.err
    assert "--api-key" in done.err and "ZEN_API_KEY" in done.err
    assert "Traceback" not in done.err


# --- 2. one endpoint lookup ----------------------------------------------------------------


def test_the_placeholder_model_becomes_the_one_the_server_serves(
    fake_llm: Any, run_zen: Any
) -> None:
    fake = fake_llm([text("ok"), text("ok")], **personas.llama_server())
    for flags in (["--provider", "llamacpp"], []):
        done = run_zen(*flags, "--base-url", fake.base_url, "-p", "hi")
        assert done.code == 0, done.err
        assert fake.requests[-1]["model"] == personas.QWEN_FILE
        assert f"using {personas.QWEN_FILE}, the one model {fake.base_url} serves" in done.err
        assert "local-model" not in done.err and "gpt-4o-mini" not in done.err


def test_a_configured_model_is_never_replaced(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([text("ok")], **personas.llama_server())
    done = run_zen("--base-url", fake.base_url, "--model", "mine", "-p", "hi")
    assert done.code == 0, done.err
    assert fake.requests[0]["model"] == "mine" and "using" not in done.err


def shell_then_answer(body: dict[str, Any]) -> Any:
    if body["messages"][-1]["role"] == "tool":
        return text("done")
    return tool_calls([call("glob", {"pattern": "*"})])


def test_llama_server_streams_tool_calls(fake_llm: Any, run_zen: Any) -> None:
    """`--provider llamacpp` used to turn streaming off for every tool request."""
    fake = fake_llm(shell_then_answer, **personas.llama_server())
    done = run_zen("--provider", "llamacpp", "--base-url", fake.base_url, "-p", "list files",
                   "--tool-protocol", "native")  # fmt: skip
    assert done.code == 0, done.err
    assert all(r["stream"] is True and "tool_choice" not in r for r in fake.requests)


def test_llama_cpp_python_gets_its_unstreamed_tool_requests(fake_llm: Any, run_zen: Any) -> None:
    from tests.fakes.server import llamacpp

    fake = fake_llm(llamacpp(shell_then_answer), **personas.llama_cpp_python())
    done = run_zen("--base-url", fake.base_url, "-p", "list files", "--tool-protocol", "native")
    assert done.code == 0, done.err
    assert done.out.strip() == "done"
    tooled = [r for r in fake.requests if r.get("tools")]
    assert tooled and all(r["stream"] is False and r["tool_choice"] == "auto" for r in tooled)


def test_a_local_servers_answers_are_kept_on_disk_for_the_next_run(
    fake_llm: Any, run_zen: Any, home: Path
) -> None:
    fake = fake_llm([text("one"), text("two")], **personas.llama_server())
    for answer in ("one", "two"):
        done = run_zen("--provider", "llamacpp", "--base-url", fake.base_url, "-p", "hi")
        assert done.out.strip() == answer, done.err
        assert fake.requests[-1]["model"] == personas.QWEN_FILE
    assert [p for p in fake.paths if p.endswith("/models")] == ["/v1/models"]  # asked once
    cache = home / ".zen" / "cache" / "served.json"
    assert cache.is_file() and personas.QWEN_FILE in cache.read_text()


def test_a_model_the_server_does_not_serve_is_named_with_those_it_does(
    fake_llm: Any, run_zen: Any
) -> None:
    fake = fake_llm(
        [status(404, message="The model `qwen` does not exist.")],
        **personas.lmstudio("qwen2.5-coder-1.5b-instruct", "llama-3.2-3b-instruct"),
    )
    done = run_zen("--base-url", fake.base_url, "--model", "qwen", "-p", "hi")
    assert done.code == 1
    assert "the server serves qwen2.5-coder-1.5b-instruct, llama-3.2-3b-instruct" in done.err


def test_a_url_without_v1_is_named_with_the_one_that_works(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm([], **personas.ollama())
    done = run_zen("--base-url", fake.root, "--model", "qwen2.5-coder:7b", "-p", "hi")
    assert done.code == 1
    assert f"no OpenAI API at {fake.root}" in done.err and f"{fake.root}/v1 has one" in done.err
    assert "not found" not in done.err


# --- 5. the dropped-tools warning ------------------------------------------------------------


def test_dropped_tools_advice_names_the_text_protocol_and_only_what_helps(
    fake_llm: Any, run_zen: Any
) -> None:
    smollm = personas.llama_server("SmolLM2-135M-Instruct-Q4_1.gguf", tools=False)
    fake = fake_llm(lambda body: text("I see no tools.", usage=(40, 5)), **smollm)
    done = run_zen("--provider", "llamacpp", "--base-url", fake.base_url, "-p", "hi")
    assert done.code == 0, done.err
    assert "it dropped the tools" in done.err
    assert "--tool-protocol text|auto" in done.err
    assert "chat template has no tool support" in done.err
    for wrong in ("--provider llamacpp", "--jinja", "stream_tools"):  # in effect, or no help
        assert wrong not in done.err
    done = run_zen("--provider", "llamacpp", "--base-url", fake.base_url, "--tool-protocol",
                   "auto", "-p", "hi")  # fmt: skip
    assert "--tool-protocol text (" in done.err and "text|auto" not in done.err


def test_dropped_tools_on_an_unknown_server(fake_llm: Any, run_zen: Any, home: Path) -> None:
    fake = fake_llm(lambda body: text("no tools here", usage=(40, 5)))
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text("stream_tools: false\n")
    done = run_zen("--base-url", fake.base_url, "--model", "fake-model", "-p", "hi")
    assert "--tool-protocol text|auto" in done.err and "--jinja" in done.err
    assert "stream_tools" not in done.err  # already false


# --- 4. onboarding without a key -------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def port_of(fake: Any) -> int:
    return int(fake.base_url.rsplit(":", 1)[1].split("/")[0])


def test_no_key_and_no_provider_finds_the_local_server(fake_llm: Any, run_zen: Any) -> None:
    web = fake_llm([], **personas.web_page())  # port 8000's usual tenant: not a model server
    llama = fake_llm([], **personas.llama_server())
    with socket.socket() as silent:  # accepts, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        ports = [closed_port(), port_of(web), silent.getsockname()[1], port_of(llama)]
        env = {"ZEN_TEST_LOCAL_PORTS": ",".join(map(str, ports))}
        done = run_zen("-p", "hi", env=env, timeout=60)
    assert done.code == 2
    first, found = done.err.strip().splitlines()
    assert first.startswith("zen: no API key for https://api.openai.com/v1")
    assert found.startswith("zen: a model server answers on this machine, without a key: ")
    assert "llama-server" in found and f"to use it: zen --base-url {llama.base_url}" in found
    assert "more answered" not in found  # the web page did not count
    assert not any(authorizations(llama)) and not llama.requests and not web.requests


SLOW_IMPORT = """
import importlib.abc, sys, time

class Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "h11":
            time.sleep(1.0)
        return None

sys.meta_path.insert(0, Slow())
"""


def test_a_slow_start_does_not_eat_the_local_probes_deadline(
    fake_llm: Any, run_zen: Any, tmp_path: Path
) -> None:
    """On a loaded machine the HTTP stack's first import took longer than the whole 0.3 s
    probe, and a running llama-server went unfound: the imports come before the clock."""
    llama = fake_llm([], **personas.llama_server())
    (tmp_path / "sitecustomize.py").write_text(SLOW_IMPORT)  # h11 loads in 1 s, not ms
    env = {"ZEN_TEST_LOCAL_PORTS": str(port_of(llama)), "PYTHONPATH": str(tmp_path)}
    done = run_zen("-p", "hi", env=env, timeout=60)
    assert done.code == 2
    assert "a model server answers on this machine" in done.err, done.err


def test_no_server_found_is_the_plain_error(run_zen: Any) -> None:
    env = {"ZEN_TEST_LOCAL_PORTS": str(closed_port())}
    done = run_zen("-p", "hi", env=env)
    assert done.code == 2
    assert len(done.err.strip().splitlines()) == 1 and "no API key" in done.err


def test_a_chosen_provider_is_not_second_guessed(fake_llm: Any, run_zen: Any) -> None:
    llama = fake_llm([], **personas.llama_server())
    env = {"ZEN_TEST_LOCAL_PORTS": str(port_of(llama))}
    done = run_zen("--provider", "deepseek", "-p", "hi", env=env)
    assert done.code == 2 and "DEEPSEEK_API_KEY" in done.err
    assert "model server" not in done.err and not llama.paths


def test_doctor_shows_the_local_server_too(fake_llm: Any, run_zen: Any) -> None:
    vllm = fake_llm([], **personas.vllm())
    env = {"ZEN_TEST_LOCAL_PORTS": str(port_of(vllm))}
    done = run_zen("doctor", env=env)
    line = next(x for x in done.out.splitlines() if "local server" in x)
    assert line.startswith("note local server: a model server answers") and "vllm" in line
    assert line.endswith(f"to use it: zen --base-url {vllm.base_url}")


def test_the_served_cache_ignores_what_it_cannot_read(home: Path) -> None:
    from zen.llm.served import Served

    assert Served.from_json({"base_url": "x", "server": "evil"}) is None
    assert Served.from_json({"base_url": "x", "models": "a"}) is None
    assert Served.from_json({"base_url": "x", "extra": 1}) is None
    good = Served("http://127.0.0.1:1/v1", 200, models=("a",), server="vllm")
    assert Served.from_json(json.loads(json.dumps(good.to_json()))) == good

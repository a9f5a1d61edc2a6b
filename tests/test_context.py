"""Context accounting: where a model's window comes from, how full a conversation is, and what
the user sees of it (`/context`, `/compact`, the `-p` log line)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import Reply, call, text, tool_calls
from zen.agent.context import WindowResolver, estimate
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base import events as ev
from zen.llm.window import window_in_models
from zen.settings.loading import load_config
from zen.settings.schema import ModelSettings

pytestmark = pytest.mark.usefixtures("close_clients")


def session_for(fake: Any, root: Path, **extra: Any) -> Session:
    config = load_config(root, {"base_url": fake.base_url, "api_key": "k", **extra}, env={})
    return closing(Session(config, make_workspace(config, root)))


def models_asked(fake: Any) -> int:
    return sum(p.rstrip("/").endswith("/models") for p in fake.paths)


async def test_the_window_is_asked_of_the_server_lazily(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([text("hi", usage=(3000, 2))], context_window=32_768)
    session = session_for(fake, tmp_path)
    await session.run("hello", ev.EventLog())
    assert models_asked(fake) == 0  # a short conversation never needs to know
    part = await session.conversation.context_split()
    assert (part.window.tokens, part.window.source) == (32_768, "server")
    assert part.measured and part.used == 3002  # the server's own count of the last request
    assert part.conversation == 3002 - part.system - part.tools
    assert part.free == 32_768 - 3002
    await session.conversation.context_split()
    assert models_asked(fake) == 1  # asked once


async def test_configured_windows_win_and_nothing_is_asked(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([], context_window=32_768)
    session = session_for(
        fake, tmp_path, context_window=50_000, dual_agent={"coder": {"context_window": 9_000}}
    )
    assert (await session.conversation.context_split()).window.tokens == 50_000
    assert (await session.models.window("coder").get()).tokens == 9_000
    assert models_asked(fake) == 0


async def test_provider_table_and_the_fallback() -> None:
    deepseek = ModelSettings(
        provider="deepseek", model="deepseek-chat", base_url="https://api.deepseek.com", api_key="k"
    )
    assert WindowResolver(deepseek).known is not None
    assert WindowResolver(deepseek).known.tokens == 128_000  # type: ignore[union-attr]
    # another endpoint with openai's habits is not assumed to be OpenAI's model
    other = ModelSettings(model="m", base_url="http://127.0.0.1:9/v1")
    resolver = WindowResolver(other)
    assert resolver.known is None
    window = await resolver.get()  # nothing listens there: the fallback, quickly
    assert (window.tokens, window.source) == (128_000, "assumed")


def test_what_servers_report_is_checked() -> None:
    listing = {"data": [{"id": "a", "max_model_len": 8192}, {"id": "b", "context_length": 4096}]}
    assert window_in_models(listing, "a") == 8192
    assert window_in_models(listing, "b") == 4096
    assert window_in_models(listing, "c") is None  # several models, none named: unknown
    assert window_in_models({"data": [{"id": "x", "loaded_context_length": 16_384}]}, "y") == 16_384
    for nonsense in (True, -5, 10, "4096", 10**12, None, 4096.5):
        assert window_in_models({"data": [{"id": "a", "max_model_len": nonsense}]}, "a") is None
    for body in (None, [], {"data": "x"}, {"data": [1, 2]}, "text"):
        assert window_in_models(body, "a") is None


async def test_without_usage_the_split_is_estimated(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([text("an answer", usage=None)])
    session = session_for(fake, tmp_path, context_window=10_000)
    await session.run("hello there", ev.EventLog())
    part = await session.conversation.context_split()
    assert not part.measured
    messages = fake.requests[0]["messages"]
    assert part.system >= estimate(messages[0]["content"])
    assert part.tools > 500 and part.memo == 0
    assert part.conversation >= estimate("hello there") + estimate("an answer")
    assert part.used + part.free == 10_000


def test_compaction_is_one_line_on_stderr_in_oneshot(fake_llm, run_zen, project: Path) -> None:
    (project / "big.txt").write_text("data line of the big file\n" * 500)

    def reply(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and "about to be compacted" in str(last["content"]):
            return text("## task:goal\nRead big.txt.\n## task:next\nAnswer.\n", usage="estimate")
        if any(m["role"] == "tool" for m in body["messages"]) or "compacted]" in str(
            body["messages"][1]["content"]
        ):
            return text("it is data", usage="estimate")
        return tool_calls([call("read-file", {"path": "big.txt"})], usage="estimate")

    fake = fake_llm(reply, context_window=4000)
    done = run_zen("-p", "what is in big.txt?", "--base-url", fake.base_url, "--api-key", "k")
    assert done.code == 0, done.err
    assert done.out.strip() == "it is data"
    lines = [line for line in done.err.splitlines() if line.startswith("compacted: ")]
    assert len(lines) == 1, done.err
    before, after = re.fullmatch(
        r"compacted: ([\d,]+) → ([\d,]+) tokens \(memo: \d+ keys\)", lines[0]
    ).groups()  # type: ignore[union-attr]
    assert int(after.replace(",", "")) < 4000 * 0.8 < int(before.replace(",", ""))


@pytest.mark.e2e
@pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty")
def test_context_and_compact_in_the_shell(fake_llm, project: Path, home: Path) -> None:
    from tests.test_shell_pty import Zen

    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("context_window: 50000\ncompact_at: 0.5\n")

    def reply(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and "about to be compacted" in str(last["content"]):
            return text("## task:goal\nGreet.\n## task:constraints\nsay hi\n", usage=(900, 40))
        return text("Hi there.", usage=(1200, 5))

    fake = fake_llm(reply)
    zen = Zen(fake, project, home, "--trust")
    try:
        out = zen.task("/context")
        assert "of 50.0k tokens" in out and "window from the configuration" in out
        for part in ("system prompt", "tool schemas", "memo", "conversation", "free"):
            assert part in out
        assert "compacts at 50% (25.0k)" in out
        assert "nothing to compact yet" in zen.task("/compact")
        zen.task("say hi")
        assert "context: 1.2k of 50.0k tokens (2%)" in zen.task("/context")
        out = zen.task("/compact the greeting")
        # the memo is longer than the short talk it replaced: said, not called a saving
        assert "compacted, but no shorter: 1,205 → " in out and "(memo: 2 keys)" in out
        assert "the greeting" in fake.requests[-1]["messages"][-1]["content"]
        assert zen.exit() == 0
    finally:
        zen.close()


@pytest.mark.e2e
def test_a_compaction_that_saves_nothing_says_so(fake_llm, project: Path, home: Path) -> None:
    from tests.test_shell_pty import Zen

    def reply(body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and "about to be compacted" in str(last["content"]):
            goal = " ".join(f"greet{i * 7919 % 10007}" for i in range(600))  # long, no repeats
            return text("## task:goal\n" + goal, usage=(900, 40))
        return text("Hi there.", usage=(1200, 5))

    zen = Zen(fake_llm(reply), project, home)
    try:
        zen.task("say hi")
        out = zen.task("/compact")
        found = re.search(
            r"compacted, but no shorter: 1,205 → ([\d,]+) tokens \(memo: 1 key\)", out
        )
        assert found and int(found[1].replace(",", "")) >= 1205, out
        assert zen.exit() == 0
    finally:
        zen.close()


class _Server:
    """A bare HTTP server answering GETs from a dict of path -> JSON (or a delay)."""

    def __init__(self, routes: dict[str, Any], delay: float = 0.0) -> None:
        import json
        import threading
        import time
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                time.sleep(delay)
                body = routes.get(self.path)
                data = json.dumps(body).encode() if body is not None else b"{}"
                try:
                    self.send_response(200 if body is not None else 404)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up waiting: that is the point
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def test_llama_cpp_and_lm_studio_report_their_windows() -> None:
    import time

    from zen.llm.window import ask_server

    llama = _Server(
        {
            "/v1/models": {"data": [{"id": "m.gguf", "meta": {"n_ctx_train": 131072}}]},
            "/props": {"default_generation_settings": {"n_ctx": 8192}},
        }
    )
    studio = _Server(
        {
            "/v1/models": {"data": [{"id": "qwen"}, {"id": "other"}]},
            "/api/v0/models/qwen": {"loaded_context_length": 4096, "max_context_length": 32768},
        }
    )
    slow = _Server({"/v1/models": {"data": [{"id": "m", "max_model_len": 9000}]}}, delay=3)
    try:
        assert await ask_server(ModelSettings(model="m.gguf", base_url=llama.url)) == 8192
        assert await ask_server(ModelSettings(model="qwen", base_url=studio.url)) == 4096
        started = time.monotonic()
        assert await ask_server(ModelSettings(model="m", base_url=slow.url), deadline=0.5) is None
        assert time.monotonic() - started < 2
    finally:
        for server in (llama, studio, slow):
            server.stop()

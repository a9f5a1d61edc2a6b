"""`zen acp` end to end: the ACP SDK's own client side drives `python -m zen acp` over a real
stdio pipe, against the scripted fake model server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("acp")
pytestmark = pytest.mark.e2e

from acp import RequestError, spawn_agent_process, text_block  # noqa: E402
from acp.schema import (  # noqa: E402
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    McpServerStdio,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SseMcpServer,
    WriteTextFileResponse,
)

from tests.conftest import ROOT, reap, zen_env  # noqa: E402
from tests.fakes import server  # noqa: E402
from tests.fakes.mcp_servers import stdio_command  # noqa: E402
from tests.fakes.server import call  # noqa: E402
from tests.test_dual import Roles  # noqa: E402
from zen.base.preamble import asked  # noqa: E402

CALC = "def add(a, b):\n    return a + b\n"
SUB = "    return a + b\n\n\ndef sub(a, b):\n    return a - b\n"
DEADLINE = 60


class Editor:
    """The client side: records every update, answers permission requests with `answer`,
    and serves files from `buffers` when it offers the file system."""

    def __init__(self, answer: str = "allow", buffers: dict[str, str] | None = None) -> None:
        self.answer = answer
        self.updates: list[Any] = []
        self.permissions: list[Any] = []
        self.buffers = buffers
        self.reads: list[str] = []
        self.writes: dict[str, str] = {}
        self.first_update = asyncio.Event()
        self.asked = asyncio.Event()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append(update)
        self.first_update.set()

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, [o.kind for o in options]))
        self.asked.set()
        if self.answer == "cancelled":
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=self.answer, outcome="selected")
        )

    async def read_text_file(
        self,
        session_id: str,
        path: str,
        line: int | None = None,
        limit: int | None = None,
        **kwargs: Any,
    ) -> ReadTextFileResponse:
        self.reads.append(path)
        assert self.buffers is not None
        if path in self.buffers:
            return ReadTextFileResponse(content=self.buffers[path])
        raise RequestError.resource_not_found(path)

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse:
        self.writes[path] = content
        assert self.buffers is not None
        self.buffers[path] = content
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    # -- reading what came ----------------------------------------------------------------

    def kinds(self) -> list[str]:
        return [u.session_update for u in self.updates]

    def text(self, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.updates if u.session_update == kind)

    def calls(self) -> dict[str, list[Any]]:
        """Each tool call's updates, by id, in order."""
        out: dict[str, list[Any]] = {}
        for u in self.updates:
            if u.session_update in ("tool_call", "tool_call_update"):
                out.setdefault(u.tool_call_id, []).append(u)
        return out


def text(content: str, **kwargs: Any) -> Any:
    """A fake answer whose usage is counted from the request (no dropped-tools warning)."""
    return server.text(content, usage="estimate", **kwargs)


def tool_calls(calls: list[Any], **kwargs: Any) -> Any:
    return server.tool_calls(calls, usage="estimate", **kwargs)


def fake_args(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "test-key", "--model", "fake-model"]


@asynccontextmanager
async def zen_acp(
    editor: Editor, fake: Any, home: Path, project: Path, *extra: str
) -> AsyncIterator[Any]:
    """`python -m zen acp` as a subprocess; stderr kept in home/acp.err for the test."""
    err = open(home / "acp.err", "ab")  # noqa: SIM115
    try:
        async with spawn_agent_process(
            editor,
            sys.executable,
            "-m",
            "zen",
            "acp",
            *fake_args(fake),
            *extra,
            env=zen_env(home),
            cwd=project,
            transport_kwargs={"stderr": err.fileno()},
        ) as (conn, process):
            yield conn
    finally:
        err.close()
    assert "Traceback" not in (home / "acp.err").read_text(errors="replace")


async def start(conn: Any, project: Path, **caps: Any) -> str:
    init = await asyncio.wait_for(
        conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities(**caps)),
        DEADLINE,
    )
    assert init.protocol_version == 1
    new = await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[]), DEADLINE)
    return new.session_id


async def ask(conn: Any, session_id: str, task: str) -> Any:
    done = await asyncio.wait_for(
        conn.prompt(session_id=session_id, prompt=[text_block(task)]), DEADLINE
    )
    await asyncio.sleep(0.05)  # notifications handled before the response's waiter resumes
    return done


def edit_calls() -> list[Any]:
    return [
        tool_calls([call("read-file", {"path": "calc.py"})]),
        tool_calls(
            [
                call(
                    "edit-file",
                    {"path": "calc.py", "old_string": "    return a + b\n", "new_string": SUB},
                )
            ]
        ),
    ]


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def test_initialize_is_honest(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([])
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        init = await asyncio.wait_for(conn.initialize(protocol_version=1), DEADLINE)
        new = await asyncio.wait_for(conn.new_session(cwd=str(project), mcp_servers=[]), DEADLINE)
    caps = init.agent_capabilities
    assert caps.load_session is True
    assert caps.prompt_capabilities.image is False and caps.prompt_capabilities.audio is False
    assert caps.mcp_capabilities.http is True and caps.mcp_capabilities.sse is False
    assert init.agent_info.name == "zen"
    assert new.modes.current_mode_id == "single"
    assert [m.id for m in new.modes.available_modes] == [
        "single",
        "delegated",
        "autonomous",
        "controlled",
    ]
    assert fake.requests == []  # nothing asked of the model before a prompt


async def test_prompt_reads_and_edits_a_file(fake_llm, home: Path, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([*edit_calls(), text("Added sub() next to add().", reasoning="thinking")])
    editor = Editor(answer="allow")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        done = await ask(conn, sid, "add sub() next to add() in calc.py")
    assert done.stop_reason == "end_turn"
    assert "def sub(a, b):" in (project / "calc.py").read_text()
    assert editor.text() == "Added sub() next to add()."
    assert editor.text("agent_thought_chunk") == "thinking"
    read_id, edit_id = editor.calls()
    read, edit = editor.calls()[read_id], editor.calls()[edit_id]
    assert [u.status for u in read] == ["pending", "in_progress", "completed"]
    assert read[0].kind == "read" and read[1].title == "read-file calc.py"
    assert read[1].locations[0].path == str(project.resolve() / "calc.py")
    assert [u.status for u in edit] == ["pending", "in_progress", "completed"]
    assert edit[0].kind == "edit"
    assert edit[-1].content[0].type == "diff" and edit[-1].content[0].new_text == SUB
    # the read finished before the edit began; the answer came after both
    kinds = editor.kinds()
    assert kinds.index("agent_message_chunk") > max(
        i for i, u in enumerate(editor.updates) if u.session_update == "tool_call_update"
    )
    ((asked, options),) = editor.permissions
    assert asked.tool_call_id == edit_id and asked.kind == "edit"
    assert options == ["allow_once", "allow_always", "reject_once"]


async def test_reject_reaches_the_model(fake_llm, home: Path, project: Path) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([*edit_calls(), text("Understood, I left it.")])
    editor = Editor(answer="reject")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        done = await ask(conn, sid, "add sub()")
    assert done.stop_reason == "end_turn"
    assert (project / "calc.py").read_text() == CALC
    declined = tool_messages(fake.requests[2])[-1]
    assert "declined" in declined and "rejected it in the editor" in declined
    edit = list(editor.calls().values())[-1]
    assert edit[-1].status == "failed"


async def test_always_asks_once(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("bash", {"command": "touch one.txt"})]),
            tool_calls([call("bash", {"command": "touch two.txt"})]),
            text("done"),
        ]
    )
    editor = Editor(answer="always")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        await ask(conn, sid, "make two files")
    assert len(editor.permissions) == 1
    assert (project / "one.txt").exists() and (project / "two.txt").exists()
    assert [c[0].kind for c in editor.calls().values()] == ["execute", "execute"]


async def test_leaving_the_sandbox_is_not_offered_always(
    fake_llm, home: Path, project: Path
) -> None:
    """Issue 40 (6): "always allow" was offered, then not kept (asked again next time)."""
    from zen.tools.sandbox.runner import probe_now

    if (found := await asyncio.to_thread(probe_now)).program is None:
        pytest.skip(f"no working sandbox here: {found.problem}")
    outside = {"command": "touch one", "unsandboxed": "needs the network"}
    fake = fake_llm(
        [
            tool_calls([call("bash", outside)]),
            tool_calls([call("bash", {**outside, "command": "touch two"})]),
            text("done"),
        ]
    )
    editor = Editor(answer="allow")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        await ask(conn, sid, "make two files outside")
    assert [options for _, options in editor.permissions] == [["allow_once", "reject_once"]] * 2
    assert (project / "one").exists() and (project / "two").exists()


async def test_cancel_mid_turn_leaves_no_dangling_call(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([tool_calls([call("bash", {"command": "sleep 30"})]), text("after the cancel")])
    editor = Editor(answer="allow")
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        prompt = asyncio.ensure_future(
            conn.prompt(session_id=sid, prompt=[text_block("wait a while")])
        )
        await asyncio.wait_for(editor.asked.wait(), DEADLINE)
        await asyncio.sleep(0.5)  # the command is running
        await conn.cancel(session_id=sid)
        done = await asyncio.wait_for(prompt, 20)
        await asyncio.sleep(0.05)
        assert done.stop_reason == "cancelled"
        (updates,) = editor.calls().values()
        assert updates[-1].status == "failed"
        # the conversation is still valid: the next prompt carries an answer for the call
        again = await ask(conn, sid, "go on")
    assert again.stop_reason == "end_turn"
    (result,) = tool_messages(fake.requests[1])
    assert "Cancelled by the user" in result


async def test_plan_entries_follow_the_todo_list(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("todo", {"action": "add", "items": ["read", "fix"]})]),
            text("planned"),
        ]
    )
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        await ask(conn, sid, "plan it")
    (plan,) = [u for u in editor.updates if u.session_update == "plan"]
    assert [(e.content, e.status) for e in plan.entries] == [
        ("read", "pending"),
        ("fix", "pending"),
    ]


async def test_dual_mode_through_a_mode_switch(fake_llm, two_models: Path, project: Path) -> None:
    roles = Roles(
        orchestrator=[
            tool_calls([call("send-to-coder", {"task": "write hello.py printing hi"})]),
            text("The Coder wrote hello.py."),
        ],
        coder=[
            tool_calls([call("write-file", {"path": "hello.py", "content": "print('hi')\n"})]),
            text("wrote hello.py"),
        ],
    )
    fake = fake_llm(roles)
    editor = Editor(answer="allow")
    async with zen_acp(editor, fake, two_models, project) as conn:
        sid = await start(conn, project)
        await asyncio.wait_for(conn.set_session_mode(session_id=sid, mode_id="delegated"), 30)
        done = await ask(conn, sid, "add hello.py")
    assert done.stop_reason == "end_turn"
    assert (project / "hello.py").read_text() == "print('hi')\n"
    assert len(roles.requests["orchestrator"]) == 2 and len(roles.requests["coder"]) == 2
    assert editor.text() == "The Coder wrote hello.py."
    assert "wrote hello.py" in editor.text("agent_thought_chunk")
    ids = list(editor.calls())
    assert any(i.startswith("coder/") for i in ids)  # the Coder's calls are shown too
    assert all(updates[-1].status == "completed" for updates in editor.calls().values())


async def test_hostile_requests_get_errors(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([text("still here")])
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        bad = [
            conn.prompt(session_id="nope", prompt=[text_block("x")]),
            conn.new_session(cwd="relative/dir", mcp_servers=[]),
            conn.new_session(cwd=str(project / "missing"), mcp_servers=[]),
            conn.set_session_mode(session_id=sid, mode_id="chaos"),
            conn.prompt(session_id=sid, prompt=[text_block("   ")]),
            conn.load_session(cwd=str(project), session_id="../../etc", mcp_servers=[]),
        ]
        for request in bad:
            with pytest.raises(RequestError) as caught:
                await asyncio.wait_for(request, DEADLINE)
            assert caught.value.code in (-32602, -32603, -32600)
        raw = conn._conn  # params the SDK's client would not even build
        for params in ({"sessionId": 5}, {"prompt": "x"}, None, [1, 2]):
            with pytest.raises(RequestError):
                await asyncio.wait_for(raw.send_request("session/prompt", params), DEADLINE)
        with pytest.raises(RequestError):
            await asyncio.wait_for(raw.send_request("no/such/method", {}), DEADLINE)
        done = await ask(conn, sid, "are you alive?")  # and zen still answers
    assert done.stop_reason == "end_turn" and editor.text() == "still here"


async def test_untrusted_workspace_skips_its_inputs_and_says_so(
    fake_llm, home: Path, project: Path
) -> None:
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("max_turns: 1\n")
    fake = fake_llm([text("ok")])
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        await ask(conn, sid, "hi")
    said = editor.text()
    assert "ignored .zen/config.yaml" in said and "zen trust" in said
    assert said.endswith("ok")


async def test_load_resumes_a_stored_session(fake_llm, home: Path, project: Path) -> None:
    fake = fake_llm([text("first answer"), text("second answer")])
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, project)
        await ask(conn, sid, "first question")
    again = Editor()
    async with zen_acp(again, fake, home, project) as conn:
        await asyncio.wait_for(conn.initialize(protocol_version=1), DEADLINE)
        listed = await asyncio.wait_for(conn.list_sessions(cwd=str(project)), DEADLINE)
        assert [s.session_id for s in listed.sessions] == [sid]
        assert listed.sessions[0].title == "first question"
        await asyncio.wait_for(
            conn.load_session(cwd=str(project), session_id=sid, mcp_servers=[]), DEADLINE
        )
        await asyncio.sleep(0.05)
        assert again.kinds() == ["user_message_chunk", "agent_message_chunk"]
        again.updates.clear()
        await ask(conn, sid, "second question")
    assert again.text() == "second answer"
    sent = [asked(m["content"]) for m in fake.requests[1]["messages"][1:]]
    assert sent[:2] == ["first question", "first answer"]


def test_stdout_carries_protocol_messages_only(fake_llm, home: Path, project: Path) -> None:
    """Raw lines on the pipe, no SDK: every line zen writes to stdout is JSON-RPC, garbage
    input included."""
    fake = fake_llm([tool_calls([call("bash", {"command": "echo loud"})]), text("ok")])
    requests = [
        "this is not json",
        json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
        ),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/new",
                "params": {"cwd": str(project), "mcpServers": []},
            }
        ),
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "zen", "acp", *fake_args(fake)],
        cwd=project,
        env=zen_env(home),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert process.stdin is not None and process.stdout is not None
        for line in requests:
            process.stdin.write(line.encode() + b"\n")
        process.stdin.flush()
        lines = [process.stdout.readline() for _ in range(2)]
        new = json.loads(lines[1])
        sid = new["result"]["sessionId"]
        prompt = {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}]},
        }
        process.stdin.write(json.dumps(prompt).encode() + b"\n")
        process.stdin.flush()
        while True:
            line = process.stdout.readline()
            assert line, "zen ended before answering"
            message = json.loads(line)
            lines.append(line)
            if message.get("method") == "session/request_permission":
                answer = {
                    "jsonrpc": "2.0",
                    "id": message["id"],
                    "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
                }
                process.stdin.write(json.dumps(answer).encode() + b"\n")
                process.stdin.flush()
            if message.get("id") == 3:
                break
        process.stdin.close()
        assert process.wait(timeout=DEADLINE) == 0
        err = process.stderr.read().decode() if process.stderr else ""
    finally:
        reap(process)
    for line in lines:
        assert json.loads(line)["jsonrpc"] == "2.0"
    assert json.loads(lines[-1])["result"]["stopReason"] == "end_turn"
    assert "Traceback" not in err


def test_missing_extra_is_one_clear_line(home: Path, project: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "acp.py").write_text("raise ImportError('blocked for the test')\n")
    env = zen_env(home)
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), str(ROOT)])
    done = subprocess.run(
        [sys.executable, "-m", "zen", "acp"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
    )
    assert done.returncode == 2
    # a command that works: zen-code is not on the package index (issue 29)
    assert "pip install 'agent-client-protocol>=0.12,<0.13'" in done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


async def test_client_files_are_used_when_offered(fake_llm, home: Path, project: Path) -> None:
    """The editor's unsaved buffer is what read-file sees and edit-file changes; the disk is
    the editor's business. Every guard still runs in zen: nothing outside the workspace or
    inside .git/ is even asked of the editor."""
    (project / "calc.py").write_text("stale disk text\n")
    (project / ".git").mkdir()
    path = str(project.resolve() / "calc.py")
    editor = Editor(answer="allow", buffers={path: CALC})
    fake = fake_llm(
        [
            *edit_calls(),
            tool_calls(
                [
                    call("read-file", {"path": "../outside.txt"}),
                    call("write-file", {"path": ".git/config", "content": "[core]\n"}),
                ]
            ),
            text("done"),
        ]
    )
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(
            conn, project, fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
        )
        done = await ask(conn, sid, "add sub()")
    assert done.stop_reason == "end_turn"
    read_result = tool_messages(fake.requests[1])[0]
    assert "return a + b" in read_result and "stale disk text" not in read_result
    assert editor.writes == {path: CALC.replace("    return a + b\n", SUB)}
    assert (project / "calc.py").read_text() == "stale disk text\n"  # the editor saves, not zen
    outside, git = tool_messages(fake.requests[3])[-2:]
    assert "outside the workspace" in outside and ".git" in git
    assert set(editor.reads) == {path}


async def test_client_buffer_changed_since_the_read_is_stale(
    fake_llm, home: Path, project: Path
) -> None:
    path = str(project.resolve() / "calc.py")
    (project / "calc.py").write_text(CALC)
    editor = Editor(answer="allow", buffers={path: CALC})

    def script(body: dict[str, Any]) -> Any:
        n = len(fake.requests)
        if n == 2:  # after the read: the user types in the buffer
            editor.buffers[path] = CALC + "# typed by the user\n"
        return [*edit_calls(), text("ok"), text("ok")][n - 1]  # the last: after the nudge

    fake = fake_llm(script)
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(
            conn, project, fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
        )
        await ask(conn, sid, "edit it")
    (refused,) = tool_messages(fake.requests[2])[-1:]
    assert "changed since you read it" in refused
    assert editor.writes == {}
    assert editor.permissions == []  # a call that cannot succeed asks nobody


async def test_client_mcp_servers_are_added(fake_llm, home: Path, project: Path) -> None:
    command, args = stdio_command()
    fake = fake_llm(
        [tool_calls([call("mcp__editor__echo", {"text": "from the editor's server"})]), text("ok")]
    )
    editor = Editor(answer="allow")
    async with zen_acp(editor, fake, home, project) as conn:
        await asyncio.wait_for(conn.initialize(protocol_version=1), DEADLINE)
        servers = [
            McpServerStdio(name="editor", command=command, args=args, env=[]),
            SseMcpServer(name="old", url="http://127.0.0.1:9/sse", headers=[], type="sse"),
        ]
        new = await asyncio.wait_for(
            conn.new_session(cwd=str(project), mcp_servers=servers), DEADLINE
        )
        await ask(conn, new.session_id, "echo")
    assert "mcp__editor__echo" in {t["function"]["name"] for t in fake.requests[0]["tools"]}
    assert "from the editor's server" in tool_messages(fake.requests[1])[0]
    assert "'old' skipped" in editor.text()


def test_a_line_that_is_not_an_object_gets_an_error_and_zen_goes_on(
    fake_llm, home: Path, project: Path
) -> None:
    """`[]`, `42`, `"s"` crashed the SDK's connection and `null` stopped it silently: one
    client bug (or a JSON-RPC batch) ended every session."""
    import json
    import subprocess

    fake = fake_llm([text("hi")])
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}}
    lines = ["[]", "42", '"s"', "null", "[{}]", json.dumps(init)]
    done = subprocess.run(
        [sys.executable, "-m", "zen", "acp", *fake_args(fake)],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=zen_env(home),
        cwd=project,
        timeout=60,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    invalid = {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "Invalid Request"},
    }
    assert answers[:5] == [invalid] * 5, done.stderr
    assert answers[5]["id"] == 1 and answers[5]["result"]["protocolVersion"] == 1
    assert "Traceback" not in done.stderr and "AttributeError" not in done.stderr

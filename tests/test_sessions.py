"""Sessions end to end: `zen -p` runs saved as they happen, continued, resumed, listed,
exported; the store's own guarantees (branches, blobs once, privacy); the project notes."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import reap, zen_env
from tests.fakes.server import call, status, text, tool_calls
from tests.test_dual import base_args, rename_script
from zen.agent.session import Session
from zen.base import events as ev
from zen.base.preamble import asked
from zen.llm.types import LLMError
from zen.settings.schema import Config
from zen.stores.session_db import SessionError
from zen.stores.sessions import SessionStore
from zen.tools.workspace import Workspace


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "test-key", "--model", "fake-model"]


def roles(request: dict[str, Any]) -> list[str]:
    return [m["role"] for m in request["messages"]]


def user_texts(request: dict[str, Any]) -> list[str]:
    return [asked(m["content"]) for m in request["messages"] if m["role"] == "user"]


def result_of(out: str) -> dict[str, Any]:
    return json.loads(out.strip().splitlines()[-1])


def store_at(home: Path) -> SessionStore:
    return SessionStore(home / ".zen" / "sessions.db")


def wait_for(condition: Any, timeout: float = 20) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.05)
    return False


# -- one-shot runs ------------------------------------------------------------------------------


def test_continue_carries_the_conversation_memo_and_todos(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    (project / "a.py").write_text("print('a')\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("read-file", {"path": "a.py"}),
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "plan:x",
                            "content": "the plan",
                            "summary": "a plan",
                        },
                    ),
                    call("todo", {"action": "add", "items": ["first step", "second step"]}),
                ]
            ),
            text("First answer."),
            text("Second answer."),
            tool_calls(
                [
                    call("memo", {"action": "read", "key": "plan:x"}),
                    call("todo", {"action": "list"}),
                ]
            ),
            text("Third."),
        ]
    )
    first = run_zen("-p", "look at a.py", "--output-format", "json", *args_for(fake))
    assert first.code == 0, first.err
    sid = result_of(first.out)["session_id"]
    assert sid

    second = run_zen("-p", "and now?", "--continue", "--output-format", "json", *args_for(fake))
    assert second.code == 0, second.err
    assert result_of(second.out)["session_id"] == sid
    last = fake.requests[-1]
    assert user_texts(last)[-2:] == ["look at a.py", "and now?"]
    assert roles(last) == [
        "system",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
        "assistant",
        "user",
    ]
    # the earlier conversation is repeated byte for byte (prefix caches keep working)
    assert last["messages"][:6] == fake.requests[1]["messages"]

    third = run_zen("-p", "what was the plan?", "--output-format", "json", *args_for(fake), "-c")
    assert third.code == 0, third.err
    memo, todos = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"][-2:]
    assert "the plan" in memo
    assert "first step" in todos and "second step" in todos

    db = home / ".zen" / "sessions.db"
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    for side in db.parent.glob("sessions.db-*"):
        assert stat.S_IMODE(side.stat().st_mode) == 0o600, side
    shown = run_zen("sessions", "show", sid)
    assert shown.code == 0, shown.err
    assert "plan:x" in shown.out and "first step" in shown.out
    assert "look at a.py" in shown.out and "Second answer." in shown.out
    listed = run_zen("sessions", "list")
    assert sid in listed.out and "look at a.py" in listed.out and "3 tasks" in listed.out


def test_resume_by_id_picks_that_session(fake_llm, run_zen) -> None:
    fake = fake_llm([text("one"), text("two"), text("three")])
    a = result_of(run_zen("-p", "task A", "--output-format", "json", *args_for(fake)).out)
    b = result_of(run_zen("-p", "task B", "--output-format", "json", *args_for(fake)).out)
    assert a["session_id"] != b["session_id"]
    done = run_zen(
        "-p",
        "more on A",
        "--resume",
        a["session_id"][:6],
        "--output-format",
        "json",
        *args_for(fake),
    )
    assert done.code == 0, done.err
    assert result_of(done.out)["session_id"] == a["session_id"]
    assert user_texts(fake.requests[-1]) == ["task A", "more on A"]


def test_bad_session_references_are_one_clear_line(fake_llm, run_zen) -> None:
    fake = fake_llm([])
    done = run_zen("-p", "x", "--resume", "beef", *args_for(fake))
    assert done.code == 2 and "no session beef" in done.err and "Traceback" not in done.err
    done = run_zen("-p", "x", "--resume", "../../etc", *args_for(fake))
    assert done.code == 2 and "not a session id" in done.err
    done = run_zen("-p", "x", "--continue", *args_for(fake))
    assert done.code == 2 and "no earlier session" in done.err
    done = run_zen("-p", "x", "--resume", *args_for(fake))
    assert done.code == 2 and "needs a session ID" in done.err
    assert run_zen("sessions", "show", "abc").code == 2
    assert fake.requests == []


def test_a_failed_request_leaves_no_duplicate_user_message(fake_llm, run_zen) -> None:
    fake = fake_llm([status(400, message="nope")] * 4 + [text("finally")])
    first = run_zen("-p", "do it", "--output-format", "json", *args_for(fake))
    assert first.code == 1
    for _ in range(3):
        assert run_zen("-p", "do it", "-c", *args_for(fake)).code == 1
    done = run_zen("-p", "do it", "-c", *args_for(fake))
    assert done.code == 0, done.err
    assert user_texts(fake.requests[-1]) == ["do it"]
    assert all(user_texts(r) == ["do it"] for r in fake.requests)


def test_kill_9_mid_run_keeps_every_completed_message(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    (project / "a.py").write_text("A = 1\n")
    (project / "b.py").write_text("B = 2\n")
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "a.py"})]),
            tool_calls([call("read-file", {"path": "b.py"})], text="Now b."),
            text("never sent", delay=60),
            text("Resumed."),
        ]
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "read both", *args_for(fake)],
        cwd=project,
        env=zen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: len(fake.requests) == 3)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        reap(proc)
    done = run_zen("-p", "go on", "--continue", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "Resumed."
    sent = fake.requests[-1]["messages"]
    assert roles(fake.requests[-1]) == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "tool",
        "user",
    ]
    assert sent[1:6] == fake.requests[2]["messages"][1:6]
    assert "A = 1" in sent[3]["content"] and "B = 2" in sent[5]["content"]
    assert sent[-1]["content"] == "go on"


def test_two_processes_at_once(fake_llm, run_zen, project: Path, home: Path) -> None:
    def script(body: dict[str, Any]) -> Any:
        task = user_texts(body)[0]
        if len(body["messages"]) == 2:
            return tool_calls([call("glob", {"pattern": "*"})], delay=0.3)
        return text(f"done: {task}", delay=0.3)

    fake = fake_llm(script)
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "zen",
                "-p",
                f"task {n}",
                "--output-format",
                "json",
                *args_for(fake),
            ],
            cwd=project,
            env=zen_env(home),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    ids = []
    try:
        # while they run, another process reads the store
        assert wait_for(lambda: len(fake.requests) >= 2)
        listed = run_zen("sessions", "list")
        assert listed.code == 0, listed.err
        for proc in procs:
            out, err = proc.communicate(timeout=60)
            assert proc.returncode == 0, err
            ids.append(result_of(out)["session_id"])
    finally:
        for proc in procs:
            reap(proc)
    assert len(set(ids)) == 3
    store = store_at(home)
    for sid in ids:
        info = store.info(sid)
        messages = store.messages(sid)
        assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
        assert messages[-1]["content"] == f"done: {info.title}"
        assert info.owner == ""  # released at exit


def test_a_session_open_elsewhere_is_not_written_twice(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    fake = fake_llm([text("slow", delay=60), text("x")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "slow one", *args_for(fake)],
        cwd=project,
        env=zen_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for(lambda: len(fake.requests) == 1)
        done = run_zen("-p", "me too", "--continue", *args_for(fake))
        assert done.code == 2 and "open in another zen process" in done.err
        shown = run_zen("sessions", "show", store_at(home).latest(str(project.resolve())).id)
        assert shown.code == 0 and "slow one" in shown.out
    finally:
        reap(proc)
    assert len(fake.requests) == 1


def test_dual_mode_keeps_the_coders_transcript(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    (project / "greet.py").write_text("def greet(name):\n    return f'Hi {name}'\n")
    fake = fake_llm(rename_script())
    done = run_zen(
        "-p",
        "rename greet to welcome",
        "--dual",
        "--triage",
        "large",
        "--output-format",
        "json",
        *base_args(fake),
    )
    assert done.code == 0, done.err
    sid = result_of(done.out)["session_id"]
    store = store_at(home)
    (coder,) = store.children(sid)
    assert coder.agent == "coder"
    parent_calls = [
        c["id"]
        for m in store.messages(sid)
        for c in m.get("tool_calls") or []
        if c["function"]["name"] == "send-to-coder"
    ]
    assert coder.parent_call == parent_calls[0]
    coder_roles = [m["role"] for m in store.messages(coder.id)]
    assert coder_roles[0] == "user" and coder_roles.count("assistant") == 5
    assert "Renamed greet to welcome" in store.messages(coder.id)[-1]["content"]
    shown = run_zen("sessions", "show", sid)
    assert "coder: Renamed greet to welcome in greet.py." in shown.out
    exported = [json.loads(line) for line in run_zen("sessions", "export", sid).out.splitlines()]
    assert exported[0]["type"] == "Session" and exported[0]["agent_mode"] == "dual"
    assert {"coder", "orchestrator"} <= {e.get("agent") for e in exported[1:]}


def test_export_redacts_secrets_unless_asked(fake_llm, run_zen, project: Path) -> None:
    secret = "sk-proj-" + "A1b2C3d4" * 4
    (project / ".env").write_text(f"OPENAI_API_KEY={secret}\nAuthorization: Bearer tok123456789\n")
    fake = fake_llm([tool_calls([call("read-file", {"path": ".env"})]), text("read it")])
    done = run_zen("-p", f"my key is {secret}", "--output-format", "json", *args_for(fake))
    sid = result_of(done.out)["session_id"]
    exported = run_zen("sessions", "export", sid)
    assert exported.code == 0, exported.err
    assert secret not in exported.out and "tok123456789" not in exported.out
    assert "[redacted" in exported.out
    lines = [json.loads(line) for line in exported.out.splitlines()]
    assert [e["type"] for e in lines] == [
        "Session",
        "UserMessage",
        "TurnStarted",
        "TurnEnded",
        "ToolCallRunning",
        "ToolCallFinished",
        "TurnStarted",
        "TextDelta",
        "TurnEnded",
    ]
    raw = run_zen("sessions", "export", sid, "--raw-tool-outputs")
    finished = [json.loads(line) for line in raw.out.splitlines()][5]
    assert secret in finished["output"]
    assert raw.out.count(secret) == 1  # only in the tool output, not the user's message


def test_rm_deletes_a_session_and_its_blobs(fake_llm, run_zen, home: Path) -> None:
    fake = fake_llm([text("x" * 2000)])
    sid = result_of(run_zen("-p", "long", "--output-format", "json", *args_for(fake)).out)[
        "session_id"
    ]
    assert run_zen("sessions", "rm", sid).code == 0
    assert run_zen("sessions", "show", sid).code == 2
    db = sqlite3.connect(home / ".zen" / "sessions.db")
    assert db.execute("SELECT COUNT(*) FROM blobs").fetchone()[0] == 0
    assert db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0


# -- the project notes --------------------------------------------------------------------------


def notes_in(request: dict[str, Any]) -> str:
    first = [m["content"] for m in request["messages"] if m["role"] == "user"][0]
    return first.split("</notes>")[0] if "</notes>" in first else ""


def test_project_notes_across_three_sessions(fake_llm, run_zen, project: Path) -> None:
    (project / "a.py").write_text("def a():\n    return 1\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call(
                        "memo",
                        {
                            "action": "write",
                            "key": "file:a.py",
                            "content": "a() returns 1; nothing else in the file",
                            "summary": "a() returns 1",
                        },
                    )
                ]
            ),
            text("noted"),
            tool_calls([call("memo", {"action": "read", "key": "file:a.py"})]),
            text("seen"),
            text("third"),
        ]
    )
    assert run_zen("-p", "study a.py", *args_for(fake)).code == 0
    assert notes_in(fake.requests[0]) == ""

    second = run_zen("-p", "what does a.py do?", *args_for(fake))
    assert second.code == 0, second.err
    notes = notes_in(fake.requests[2])
    assert "file:a.py (sha256 " in notes and "a() returns 1" in notes
    assert "not instructions" in notes
    assert user_texts(fake.requests[2])[0].endswith("what does a.py do?")
    (memo_result,) = [m["content"] for m in fake.requests[3]["messages"] if m["role"] == "tool"]
    assert "nothing else in the file" in memo_result

    (project / "a.py").write_text("def a():\n    return 2\n")
    assert run_zen("-p", "and now?", *args_for(fake)).code == 0
    assert "file:a.py" not in user_texts(fake.requests[4])[0]


def test_project_notes_off_and_outside_files(fake_llm, run_zen, project: Path) -> None:
    (project / "a.py").write_text("x = 1\n")
    (project.parent / "outside.py").write_text("y = 1\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call("memo", {"action": "write", "key": "file:a.py", "content": "x is 1"}),
                    call("memo", {"action": "write", "key": "file:../outside.py", "content": "y"}),
                ]
            ),
            text("ok"),
            text("ok"),
            text("ok"),
            text("ok"),
        ]
    )
    assert run_zen("-p", "one", *args_for(fake)).code == 0
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text("memo:\n  persist: off\n")
    assert run_zen("-p", "two", "--trust", *args_for(fake)).code == 0
    assert notes_in(fake.requests[2]) == ""
    (project / ".zen" / "config.yaml").write_text("memo:\n  persist: on\n")
    assert run_zen("-p", "three", *args_for(fake)).code == 0  # untrusted: no notes
    assert notes_in(fake.requests[3]) == ""
    assert run_zen("-p", "four", "--trust", *args_for(fake)).code == 0
    notes = notes_in(fake.requests[4])
    assert "file:a.py" in notes and "outside" not in notes


# -- in process: hygiene ------------------------------------------------------------------------


def session_for(fake: Any, root: Path, store: SessionStore | None = None) -> Session:
    config = Config(model="fake-model", base_url=fake.base_url, api_key="k", retries=0)
    return Session(config, Workspace(root), store=store)


def test_an_interrupted_answer_stays_marked(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm(
        [text("Partial answer that goes on and on " * 20, chunk=8, chunk_delay=0.05), text("ok")]
    )
    store = SessionStore(tmp_path / "s.db")
    session = session_for(fake, tmp_path, store)

    async def go() -> None:
        seen: list[ev.Event] = []
        task = asyncio.ensure_future(session.run("tell me", seen.append))
        while not any(isinstance(e, ev.TextDelta) for e in seen[3:]):
            await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await session.run("go on", ev.ignore)
        await session.aclose()

    asyncio.run(go())
    sent = fake.requests[-1]["messages"]
    assert roles(fake.requests[-1]) == ["system", "user", "assistant", "user"]
    assert sent[2]["content"].startswith("Partial answer")
    assert sent[2]["content"].endswith("[interrupted by the user]")
    assert [m["role"] for m in store.messages(session.record.id or "")] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]


def test_four_failed_requests_then_one_user_message(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([status(400, message="bad")] * 4 + [text("ok")])
    store = SessionStore(tmp_path / "s.db")
    session = session_for(fake, tmp_path, store)

    async def go() -> None:
        for _ in range(4):
            with pytest.raises(LLMError):
                await session.run("same question", ev.ignore)
        await session.run("same question", ev.ignore)
        await session.aclose()

    asyncio.run(go())
    assert user_texts(fake.requests[-1]) == ["same question"]
    assert [m["role"] for m in store.messages(session.record.id or "")] == ["user", "assistant"]


def test_clear_starts_a_new_session_and_resume_restores_everything(
    fake_llm, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("A = 1\n")
    (root / "b.py").write_text("B = 1\n")
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "a.py"}), call("read-file", {"path": "b.py"})]),
            text("read"),
            text("new one"),
            text("back"),
        ]
    )
    store = SessionStore(tmp_path / "s.db")
    session = session_for(fake, root, store)

    async def go() -> None:
        await session.run("read them", ev.ignore)
        first = session.record.id
        session.always.add("bash")
        session.set_mode("dual")
        session.set_mode("single")
        await asyncio.sleep(0.01)
        (root / "b.py").write_text("B = 2 changed\n")
        session.clear()
        assert session.conversation.history == [] and session.record.id is None
        await session.run("other", ev.ignore)
        assert session.record.id != first
        assert first is not None
        session.resume(store.info(first))
        assert session.always == {"bash"}
        reads = {p.name for p in session.conversation.reads.seen}
        assert reads == {"a.py"}  # b.py changed since it was read
        await session.run("again", ev.ignore)
        await session.aclose()

    asyncio.run(go())
    assert user_texts(fake.requests[-1]) == ["read them", "again"]


# -- the store itself ---------------------------------------------------------------------------


def test_branches_for_rewind_and_compaction(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "s.db")
    sid = store.create("/w", title="t")
    big = "x" * 5000
    for n in range(4):
        store.append(sid, {"role": "user", "content": f"u{n}"})
        store.append(sid, {"role": "tool", "tool_call_id": f"c{n}", "content": big})
    assert len(store.messages(sid)) == 8
    rewound = store.fork(sid, 4)
    assert [m["content"] for m in store.messages(sid)] == ["u0", big, "u1", big]
    store.append(sid, {"role": "user", "content": "instead"})
    assert store.messages(sid)[-1]["content"] == "instead"
    assert len(store.messages(sid, branch=0)) == 8  # the undone messages are kept
    compacted = store.restart(sid, [{"role": "user", "content": "summary"}])
    assert store.messages(sid) == [{"role": "user", "content": "summary"}]
    assert [b["reason"] for b in store.branches(sid)] == ["start", "rewind", "compact"]
    assert (rewound, compacted) == (1, 2)
    blobs = store.db.execute("SELECT COUNT(*), SUM(LENGTH(text)) FROM blobs").fetchone()
    assert blobs == (1, 5000)  # eight copies of one tool output, stored once
    assert store.get(sid[:5]).turns == 1


def test_migrations_and_a_newer_schema(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    SessionStore(path).close()
    SessionStore(path).close()  # opening again migrates nothing
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.execute("PRAGMA user_version=99")
    db.commit()
    db.close()
    with pytest.raises(SessionError, match="newer zen"):
        SessionStore(path)


def test_an_unusable_store_is_a_warning_and_the_run_goes_on(fake_llm, run_zen, home: Path) -> None:
    (home / ".zen").mkdir(mode=0o700)
    (home / ".zen" / "sessions.db").write_bytes(b"this is not a database" * 100)
    fake = fake_llm([text("still works")])
    done = run_zen("-p", "hi", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "still works"
    assert "will not be saved" in done.err and "Traceback" not in done.err


@pytest.mark.skipif(os.name == "nt", reason="POSIX modes")
def test_store_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        store = SessionStore(tmp_path / "home" / ".zen" / "sessions.db")
        sid = store.create("/w")
        store.append(sid, {"role": "user", "content": "hi"})
    finally:
        os.umask(old)
    for path in (tmp_path / "home" / ".zen").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


async def test_compaction_restarts_the_stored_conversation_on_a_branch(
    fake_llm, tmp_path: Path
) -> None:
    from tests.test_compaction import FIRST, WINDOW, run_all, scripted
    from tests.test_compaction import state as summary_of
    from zen.app import make_workspace
    from zen.settings.loading import load_config

    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.txt").write_text("data line of the big file\n" * 500)
    fake = fake_llm(
        scripted(summary_of(f"Add a --verbose flag to cli.py.\n- {FIRST}")), context_window=WINDOW
    )
    config = load_config(root, {"base_url": fake.base_url, "api_key": "k"}, env={})
    store = SessionStore(tmp_path / "s.db")
    session = Session(config, make_workspace(config, root), store=store)
    await run_all(session, ev.EventLog())
    sid = session.record.id
    assert sid is not None
    assert [b["reason"] for b in store.branches(sid)] == ["start", "compact"]
    assert (
        store.messages(sid) == session.conversation.history
    )  # the active branch is what the model sees
    before = store.messages(sid, branch=0)
    assert FIRST in [
        asked(m["content"]) for m in before if m["role"] == "user"
    ]  # the old rows stay
    session.record.close()
    await session.aclose()

    again = Session(config, make_workspace(config, root), store=store)
    again.resume(store.info(sid))
    assert again.conversation.history == session.conversation.history
    assert again.memo.read("task:next") is not None  # compaction's memo keys were saved


async def test_rewind_to_an_earlier_user_message_keeps_a_branch(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([text("one"), text("two"), text("three"), text("other two")])
    store = SessionStore(tmp_path / "s.db")
    session = session_for(fake, tmp_path, store)
    for task in ("first", "second", "third"):
        await session.run(task, ev.ignore)
    turns = list(session.conversation.turns)
    assert [t.label for t in turns] == ["first", "second", "third"]
    assert session.conversation.rewind(turns[1])
    await session.run("second, differently", ev.ignore)
    assert user_texts(fake.requests[-1]) == ["first", "second, differently"]
    assert session.record.id is not None
    assert [asked(m["content"]) for m in store.messages(session.record.id)] == [
        "first",
        "one",
        "second, differently",
        "other two",
    ]
    undone = [asked(m["content"]) for m in store.messages(session.record.id, branch=0)]
    assert undone == ["first", "one", "second", "two", "third", "three"]
    assert not session.conversation.rewind(turns[2])  # already undone
    await session.aclose()


async def test_memo_runs_are_saved_and_older_sessions_without_them_still_load(
    fake_llm, tmp_path: Path
) -> None:
    from zen.stores.session_db import MIGRATIONS

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)  # a store written before memo entries had runs (schema 1)
    db.executescript(MIGRATIONS[0] + "; PRAGMA user_version=1;")
    db.execute(
        "INSERT INTO sessions(id, agent, workspace, created, updated) VALUES(?,?,?,?,?)",
        ("old1", "main", str(tmp_path), 1.0, 1.0),
    )
    db.execute(
        "INSERT INTO memo(session_id, key, content, summary, author, time) VALUES(?,?,?,?,?,?)",
        ("old1", "plan:x", "the plan", "a plan", "main", 2.0),
    )
    db.commit()
    db.close()

    fake = fake_llm(
        [
            tool_calls(
                [call("memo", {"action": "write", "key": "note:new", "content": "written now"})]
            ),
            text("ok"),
            text("ok: the note is in the memo"),  # the nudge's: a memo entry is no file
        ]
    )
    store = SessionStore(path)  # migrates: the old entry has no run
    session = session_for(fake, tmp_path, store)
    session.resume(store.info("old1"))
    old = session.memo.read("plan:x")
    assert old is not None and (old.content, old.author, old.run) == ("the plan", "main", "")
    await session.run("write a note", ev.ignore)
    new = session.memo.read("note:new")
    assert new is not None and len(new.run) == 8 and new.run != old.run
    saved = {m.key: m.run for m in store.memo("old1")}
    assert saved == {"plan:x": "", "note:new": new.run}
    session.record.close()
    await session.aclose()

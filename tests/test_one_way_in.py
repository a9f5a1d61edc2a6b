"""One way into the conversation: every message the model is told goes through `add()`, which
also saves it, so a resumed session tells the model exactly what the live one did.

Two messages once skipped it: the answers to calls cut at max_tokens, and a Stop hook's
instruction. Resumed, the cut calls read "zen stopped while this call ran… it may have partly
run" (they never ran) and the hook's instruction was gone.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.scripted import ScriptedModel
from tests.fakes.server import call, text, tool_calls
from zen.agent.session import Session
from zen.base import events as ev
from zen.settings.loading import load_config
from zen.settings.schema import Config
from zen.stores.sessions import SessionStore
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.hooks import Hook
from zen.tools.workspace import Workspace

pytestmark = pytest.mark.usefixtures("close_clients")

ZEN = Path(__file__).resolve().parent.parent / "zen"


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


def session_for(
    fake: Any, root: Path, store: SessionStore, hooks: list[Hook] | None = None, nudge: bool = True
):
    config = Config(
        model="fake-model", base_url=fake.base_url, api_key="k", retries=0, nudge_unchanged=nudge
    )
    return closing(Session(config, Workspace(root), store=store, hooks=hooks))


async def resumed_request(fake: Any, root: Path, store: SessionStore, sid: str) -> list[Any]:
    """The messages a session resumed from the store sends with its next task."""
    again = session_for(fake, root, store)
    again.resume(store.info(sid))
    await again.run("next", ev.ignore, yes)
    again.record.close()
    return fake.requests[-1]["messages"][1:]


async def test_resumed_after_a_cut_call_the_model_reads_why_it_did_not_run(
    fake_llm, tmp_path: Path
) -> None:
    fake = fake_llm(
        [
            tool_calls(
                [call("write-file", {"path": "big.py", "content": "x = 1\n"})],
                finish_reason="length",
            ),
            text("smaller steps then"),
            text("nothing written yet"),  # after the nudge: big.py was asked for
            text("ok"),
        ]
    )
    store = SessionStore(tmp_path / "s.db")
    session = session_for(fake, tmp_path, store)
    await session.run("write big.py", ev.ignore, yes)
    live = fake.requests[1]["messages"][1:]
    assert "cut at max_tokens" in live[-1]["content"]
    sid = session.record.id
    assert sid is not None
    assert store.messages(sid) == session.conversation.history
    session.record.close()

    told = await resumed_request(fake, tmp_path, store, sid)
    assert told[: len(live)] == live  # the same words, not "it may have partly run"
    assert not (tmp_path / "big.py").exists()


async def test_resumed_after_a_stop_hook_the_model_still_has_its_instruction(
    fake_llm, tmp_path: Path
) -> None:
    arm = tmp_path / "arm"
    arm.touch()
    script = tmp_path / "stop.py"
    script.write_text(
        "import os, sys\n"
        f"if os.path.exists({str(arm)!r}):\n"
        f"    os.remove({str(arm)!r})\n"
        "    sys.stderr.write('run the tests first'); sys.exit(2)\n"
    )
    fake = fake_llm([text("done early"), text("ran them, done"), text("ok")])
    store = SessionStore(tmp_path / "s.db")
    hook = Hook("Stop", "", f"{sys.executable} {script}")
    # no nudge: it would come before the hook's turn and hide what this test checks
    session = session_for(fake, tmp_path, store, [hook], nudge=False)
    result = await session.run("fix it", ev.ignore, yes)
    assert result.text == "ran them, done"
    live = fake.requests[1]["messages"][1:]
    assert live[-1] == {
        "role": "user",
        "content": "A Stop hook asks you to go on: run the tests first",
    }
    sid = session.record.id
    assert sid is not None
    session.record.close()

    told = await resumed_request(fake, tmp_path, store, sid)
    assert told[: len(live)] == live
    assert [m["role"] for m in told] == ["user", "assistant", "user", "assistant", "user"]


async def test_a_conversation_looked_at_before_its_first_task_is_saved(tmp_path: Path) -> None:
    """`/context` before the first message builds the agent before the record exists: its
    messages were never saved, and `--continue` found an empty session."""
    model = ScriptedModel([text("ok")])
    config = load_config(tmp_path, {"model": "m", "api_key": "k", "context_window": 8000}, env={})
    store = SessionStore(tmp_path / "s.db")
    session = Session(config, Workspace(tmp_path), store=store, connect=model.connect)
    await session.conversation.context_split()
    await session.run("hi", ev.ignore)
    assert session.record.id is not None
    assert [m["role"] for m in store.messages(session.record.id)] == ["user", "assistant"]


# -- the rule, checked on the source ----------------------------------------------------------

MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"}
REWRITES = {
    ("zen/agent/transcript.py", "Transcript.__init__"): "the conversation it starts from",
    ("zen/agent/transcript.py", "Transcript.set_system"): "the system prompt (never saved)",
    ("zen/agent/transcript.py", "Transcript.restart"): "a compaction's restart (a new branch)",
    ("zen/agent/transcript.py", "Transcript.take_back"): "a task whose request failed, unsaved",
    ("zen/agent/transcript.py", "Transcript.shrink"): "a scout's reads as stubs (in memory)",
    ("zen/agent/transcript.py", "Transcript.cut"): "a rewind (the record forks)",
}
"""The only other writers: none enters a message; each rewrites what exists."""


def writes(tree: ast.AST) -> list[tuple[str, int]]:
    """(enclosing function, line) of every write to an attribute named `messages`."""
    found: list[tuple[str, int]] = []

    def is_messages(node: ast.AST) -> bool:
        return isinstance(node, ast.Attribute) and node.attr in ("messages", "_messages")

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = where
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{where}.{child.name}" if where else child.name
            hit = False
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                hit = child.func.attr in MUTATORS and is_messages(child.func.value)
            elif isinstance(child, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
                targets = (
                    child.targets if isinstance(child, (ast.Assign, ast.Delete)) else [child.target]
                )
                for target in targets:
                    inner = target.value if isinstance(target, ast.Subscript) else target
                    hit = hit or is_messages(inner)
            if hit:
                found.append((where, child.lineno))
            visit(child, name)

    visit(tree, "")
    return found


def test_only_add_enters_a_message() -> None:
    allowed = {("zen/agent/transcript.py", "Transcript.add"), *REWRITES}
    found = [
        f"{rel}:{line} in {where or 'the module'}"
        for path in sorted(ZEN.rglob("*.py"))
        if (rel := path.relative_to(ZEN.parent).as_posix())
        for where, line in writes(ast.parse(path.read_text("utf-8")))
        if (rel, where) not in allowed
    ]
    assert found == [], "a message must enter the conversation through add(): " + ", ".join(found)


def test_the_check_sees_every_kind_of_write() -> None:
    source = (
        "class Agent:\n"
        "    def add(self, m):\n        self.messages.append(m)\n"
        "def a(agent, m):\n    agent.messages.append(m)\n"
        "def b(agent, m):\n    agent.messages[0] = m\n"
        "def c(agent):\n    del agent.messages[1:]\n"
        "def d(agent, ms):\n    agent.messages += ms\n"
        "def e(agent, ms):\n    agent.messages = ms\n"
        "def f(agent, m):\n    agent.messages.insert(0, m)\n"
    )
    assert [w for w, _ in writes(ast.parse(source))] == ["Agent.add", *"abcdef"]

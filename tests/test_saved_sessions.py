"""Sessions saved by an older zen still resume as they did: the conversation, memo, todos,
choices and usage it restores, and every message of the next request.

The store in `fixtures/saved_sessions.sql` was written by zen at 95d6057, before issue 36
reshaped the loop and the conversation's owner; `fixtures/saved_sessions.json` is what that zen
restored and sent (`fixtures/make_saved_sessions.py` says how both were made).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import text
from zen.agent.protocols.edit_blocks import example
from zen.agent.session import Session
from zen.app import make_workspace
from zen.base import events as ev
from zen.settings.loading import load_config
from zen.stores.sessions import SessionStore
from zen.tools.base import Approval, ApprovalRequest

pytestmark = pytest.mark.usefixtures("close_clients")

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAVED = json.loads((FIXTURES / "saved_sessions.json").read_text())
NEXT = "Thanks."


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


def restored(session: Session) -> dict[str, Any]:
    return {
        "history": session.conversation.history,
        "memo": {e.key: [e.content, e.author] for e in session.memo.index()},
        "todos": [[t.text, t.status] for t in session.todo.items],
        "always": sorted(session.always),
        "mode": [session.mode, session.collaboration],
        "usage": {r: u.to_json() for r, u in session.models.usage.items()},
    }


@pytest.mark.parametrize("name", sorted(SAVED["ids"]))
async def test_a_saved_session_resumes_as_it_did(name: str, fake_llm, tmp_path: Path) -> None:
    db = tmp_path / "sessions.db"
    connection = sqlite3.connect(db)
    connection.executescript((FIXTURES / "saved_sessions.sql").read_text())
    connection.close()
    root = tmp_path / name
    root.mkdir()
    for file, content in SAVED["files"][name].items():
        (root / file).write_text(content)
    fake = fake_llm([text("ok")])
    extra: dict[str, Any] = {"tool_protocol": "text"} if name == "text" else {}
    if name == "dual":  # the orchestrated path it was saved on (one model would go direct)
        extra["dual_agent"] = {"coder": {"model": "fake-coder"}}
    config = load_config(root, {"base_url": fake.base_url, "api_key": "k", **extra}, env={})
    store = SessionStore(db)
    session = closing(Session(config, make_workspace(config, root), store=store))
    session.resume(store.info(SAVED["ids"][name]))
    expected = SAVED["sessions"][name]
    assert restored(session) == {k: v for k, v in expected.items() if k != "next_request"}
    result = await session.run(NEXT, ev.ignore, yes)
    assert result.text == "ok"
    sent = fake.requests[0]["messages"][1:]
    if name == "text":  # edit blocks send their worked example first, never saved
        assert sent[: len(example())] == [dict(m) for m in example()]
        sent = sent[len(example()) :]
    assert sent == expected["next_request"]
    session.record.close()
    store.close()

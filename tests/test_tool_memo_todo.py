"""memo and todo over the real stores: every action, the MemoWritten event, and the errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from zen.base.events import EventLog, MemoWritten
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import RunContext, Tool, ToolContext, ToolResult
from zen.tools.memo import Memo
from zen.tools.todo import Todo
from zen.tools.workspace import Workspace


@pytest.fixture
def log() -> EventLog:
    return EventLog()


@pytest.fixture
def ctx(tmp_path: Path, log: EventLog) -> ToolContext:
    return ToolContext(
        Workspace(tmp_path),
        "orchestrator",
        ReadTracker(),
        MemoStore(),
        TodoStore(),
        run=RunContext(emit=log),
    )


async def call(tool: Tool, ctx: ToolContext, **args: Any) -> ToolResult:
    return await tool.execute(tool.Params.model_validate(args), ctx)


async def memo(ctx: ToolContext, **args: Any) -> ToolResult:
    return await call(Memo(), ctx, **args)


async def todo(ctx: ToolContext, **args: Any) -> ToolResult:
    return await call(Todo(), ctx, **args)


async def test_memo_write_stores_the_entry_and_tells_the_user(
    ctx: ToolContext, log: EventLog
) -> None:
    result = await memo(
        ctx, action="write", key="plan:auth", content="1. add login\n2. tests", summary="login plan"
    )
    assert result.ok and result.output == "wrote plan:auth"
    entry = ctx.memo.read("plan:auth")
    assert entry is not None
    assert (entry.content, entry.summary, entry.author) == (
        "1. add login\n2. tests",
        "login plan",
        "orchestrator",
    )
    assert log.events == [MemoWritten(agent="orchestrator", key="plan:auth", summary="login plan")]


async def test_memo_summary_defaults_to_the_first_line_cut_short(
    ctx: ToolContext, log: EventLog
) -> None:
    await memo(ctx, action="write", key="file:a.py", content="\n  parses args  \nmore")
    assert ctx.memo.entries["file:a.py"].summary == "parses args"
    long = "x" * 300
    await memo(ctx, action="write", key="k", content=long + "\nrest")
    summary = ctx.memo.entries["k"].summary
    assert len(summary) == 100 and summary.endswith("…")
    assert [e.summary for e in log.events if isinstance(e, MemoWritten)] == ["parses args", summary]


async def test_memo_read_list_delete(ctx: ToolContext) -> None:
    await memo(ctx, action="write", key="plan:x", content="body", summary="the plan")
    await memo(ctx, action="write", key="file:b.py", content="secret body", summary="b module")
    read = await memo(ctx, action="read", key="plan:x")
    assert read.output == "plan:x — the plan (orchestrator)\n\nbody"
    listing = await memo(ctx, action="list")
    assert listing.output == "file:b.py — b module (orchestrator)\nplan:x — the plan (orchestrator)"
    assert "secret body" not in listing.output
    assert listing.summary == "2 entries"
    deleted = await memo(ctx, action="delete", key="plan:x")
    assert deleted.ok and ctx.memo.read("plan:x") is None
    assert (await memo(ctx, action="list")).output == "file:b.py — b module (orchestrator)"


async def test_memo_empty_list(ctx: ToolContext) -> None:
    assert (await memo(ctx, action="list")).output == "(memo is empty)"


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        ({"action": "write", "content": "c"}, "`key`"),
        ({"action": "write", "key": "k"}, "`content`"),
        ({"action": "write", "key": "k", "content": ""}, "`content`"),
        ({"action": "read"}, "`key`"),
        ({"action": "delete", "key": "  "}, "`key`"),
    ],
)
async def test_memo_missing_parameters_are_named(
    ctx: ToolContext, log: EventLog, args: dict[str, Any], needs: str
) -> None:
    result = await memo(ctx, **args)
    assert not result.ok and needs in result.output
    assert not ctx.memo.entries and not log.events


async def test_memo_unknown_key_lists_the_known_ones(ctx: ToolContext) -> None:
    await memo(ctx, action="write", key="plan:x", content="body")
    for action in ("read", "delete"):
        result = await memo(ctx, action=action, key="plan:y")
        assert not result.ok and "'plan:y'" in result.output and "plan:x" in result.output


def test_memo_and_todo_reject_unknown_actions_and_accept_nulls() -> None:
    with pytest.raises(ValidationError):
        Memo.Params.model_validate({"action": "append", "key": "k"})
    with pytest.raises(ValidationError):
        Todo.Params.model_validate({"action": "remove"})
    Memo.Params.model_validate({"action": "list", "key": None, "content": None, "summary": None})
    Todo.Params.model_validate({"action": "list", "items": None, "id": None, "status": None})


async def test_todo_add_update_list_clear(ctx: ToolContext) -> None:
    added = await todo(ctx, action="add", items=["read the code", "write tests"])
    assert added.output == "[ ] 1. read the code\n[ ] 2. write tests"
    assert added.summary == "0/2 done"
    await todo(ctx, action="update", id=1, status="done")
    updated = await todo(ctx, action="update", id=2, status="in_progress")
    assert updated.output == "[x] 1. read the code\n[~] 2. write tests"
    assert updated.summary == "1/2 done"
    more = await todo(ctx, action="add", items=["ship"])
    assert more.output.splitlines()[-1] == "[ ] 3. ship"
    assert (await todo(ctx, action="list")).output == more.output
    cleared = await todo(ctx, action="clear")
    assert cleared.output == "(no todos)" and not ctx.todo.items


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        ({"action": "add"}, "`items`"),
        ({"action": "add", "items": ["", "  "]}, "`items`"),
        ({"action": "update", "status": "done"}, "`id`"),
        ({"action": "update", "id": 1}, "`status`"),
    ],
)
async def test_todo_missing_parameters_are_named(
    ctx: ToolContext, args: dict[str, Any], needs: str
) -> None:
    ctx.todo.add(["keep me"])
    result = await todo(ctx, **args)
    assert not result.ok and needs in result.output
    assert [i.text for i in ctx.todo.items] == ["keep me"]


async def test_todo_unknown_id_lists_the_known_ones(ctx: ToolContext) -> None:
    ctx.todo.add(["a", "b"])
    result = await todo(ctx, action="update", id=7, status="done")
    assert not result.ok and "7" in result.output and "1, 2" in result.output
    assert all(i.status == "pending" for i in ctx.todo.items)


def test_bad_status_is_a_validation_error() -> None:
    with pytest.raises(ValidationError):
        Todo.Params.model_validate({"action": "update", "id": 1, "status": "finished"})


def test_key_args_for_the_log_line() -> None:
    assert Memo().key_arg({"action": "read", "key": "plan:x"}) == "read plan:x"
    assert Memo().key_arg({"action": "list"}) == "list"
    assert Todo().key_arg({"action": "add", "items": ["a"]}) == "add"

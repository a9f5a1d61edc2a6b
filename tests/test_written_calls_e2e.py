"""Calls written as text, end to end: the real client against the fake server, the real loop."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_runaway import session_for, yes
from zen.base import events as ev

pytestmark = pytest.mark.usefixtures("close_clients")

READ = {"name": "read-file", "arguments": {"path": "a.txt"}}
SHAPES = {
    "bare": json.dumps(READ),
    "parameters": json.dumps({"name": "read-file", "parameters": {"path": "a.txt"}}),
    "string arguments": json.dumps({"name": "read-file", "arguments": '{"path": "a.txt"}'}),
    "doubled braces": json.dumps(READ).replace("{", "{{").replace("}", "}}"),
    "fenced": f"```json\n{json.dumps(READ)}\n```",
    "fenced list": f"```\n{json.dumps([READ])}\n```",
    "hermes": f"<tool_call>\n{json.dumps(READ)}\n</tool_call>",
    "qwen3": "<tool_call>\n<function=read-file>\n<parameter=path>\na.txt\n</parameter>\n"
    "</function>\n</tool_call>",
}


@pytest.mark.parametrize("shape", SHAPES)
async def test_each_shape_runs_as_a_native_call(fake_llm, tmp_path: Path, shape: str) -> None:
    (tmp_path / "a.txt").write_text("the file's words\n")
    fake = fake_llm([text(SHAPES[shape]), text("done")])
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("read a.txt", log, yes)
    assert result.text == "done" and result.stop == "done"
    messages = fake.requests[1]["messages"]
    assistant, tool = messages[-2], messages[-1]
    # stored as a native call: a strict server accepts the next request
    assert assistant["content"] is None
    (native,) = assistant["tool_calls"]
    assert native["function"]["name"] == "read-file"
    assert json.loads(native["function"]["arguments"]) == {"path": "a.txt"}
    assert len(native["id"]) == 9 and native["id"].isalnum()
    assert tool["tool_call_id"] == native["id"] and "the file's words" in tool["content"]
    finished = [e for e in log.events if isinstance(e, ev.ToolCallFinished)]
    assert [(e.name, e.origin, e.ok) for e in finished] == [("read-file", "text", True)]
    notices = [e.text for e in log.events if isinstance(e, ev.Notice)]
    assert "1 tool call recovered from the model's text: read-file" in notices
    ended = [e for e in log.events if isinstance(e, ev.TurnEnded)]
    assert ended[0].text == "" and ended[0].tool_calls == 1  # the markup is no answer


@pytest.mark.parametrize(
    "answer",
    [
        f"To read a file, the call looks like this:\n\n{SHAPES['fenced']}\n\nThat is all.",
        f"Here is an example: {SHAPES['hermes']}",
        f"{SHAPES['bare']}\nwould read the file.",
    ],
)
async def test_a_call_quoted_in_an_explanation_never_runs(
    fake_llm, tmp_path: Path, answer: str
) -> None:
    (tmp_path / "a.txt").write_text("secret\n")
    fake = fake_llm([text(answer)])
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("how do I read a file?", log, yes)
    assert result.text == answer and len(fake.requests) == 1
    assert not [e for e in log.events if isinstance(e, ev.ToolCallRunning)]
    assert not [e for e in log.events if isinstance(e, ev.Notice) and "recovered" in e.text]


async def test_an_echo_of_the_tool_list_never_runs(fake_llm, tmp_path: Path) -> None:
    fake = fake_llm([text("ok")])
    await session_for(fake, tmp_path).run("hi", ev.EventLog(), yes)
    tools = fake.requests[0]["tools"]
    echo = f"<tools>\n{json.dumps(tools[:3])}\n</tools>"
    fake = fake_llm([text(echo)])
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("what can you do?", log, yes)
    assert result.text == echo and len(fake.requests) == 1
    assert not [e for e in log.events if isinstance(e, ev.ToolCallRunning)]


async def test_an_unknown_tool_gets_one_short_correction_text_or_native(
    fake_llm, tmp_path: Path
) -> None:
    fake = fake_llm(
        [
            text('{"name": "add_sub", "arguments": {"a": 1}}'),
            tool_calls([call("rename-function", {"a": 1})]),
            text("no such tool"),
            text("sorry"),  # the answer to the nudge: "add it" asked for a change
        ]
    )
    log = ev.EventLog()
    result = await session_for(fake, tmp_path).run("add it", log, yes)
    assert result.text == "sorry"
    first = fake.requests[1]["messages"][-1]["content"]
    second = fake.requests[2]["messages"][-1]["content"]
    for said, name in ((first, "add_sub"), (second, "rename-function")):
        assert said.startswith(f"Error: unknown tool {name!r}; available tools: ")
        assert "read-file" in said and "edit-file" in said and len(said) < 200
    assert first.split(";")[1] == second.split(";")[1]  # the same list, the same words

"""`tool_protocol: auto` switches to edit blocks by evidence (issue 38, part 4): when 2 of the
conversation's first 3 turns made only calls that could not run (an unknown tool, arguments
that do not parse or validate), through `zen -p` and the fake server. A tool that ran and
failed is no evidence; after the third turn the rule is silent; the switch happens once."""

from __future__ import annotations

from typing import Any

from tests.fakes.server import call, text, tool_calls

CALC = "def add(a, b):\n    return a + b\n"
EDIT = "calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return a - b\n>>>>>>> REPLACE\n"
TASK = "make add in calc.py subtract"
NO_TOOL = tool_calls([call("run-python", {"code": "1"})])  # no such tool
BAD_JSON = tool_calls([call("read-file", '{"path": "calc.py"')])
INVALID = tool_calls([call("read-file", {"file": "calc.py"})])  # no `path`
GOOD = tool_calls([call("read-file", {"path": "calc.py"})])
TOOL_ERROR = tool_calls([call("read-file", {"path": "missing.py"})])  # ran, and failed
MIXED = tool_calls([call("read-file", {"path": "calc.py"}), call("nope", {})])
WHY = "2 of the model's first 3 turns made only calls that could not run"


def flags(fake: Any) -> list[str]:
    base = ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]
    return [*base, "--tool-protocol", "auto", "--yes"]


def on_tools(fake: Any) -> list[bool]:
    """Per request: it carried tools."""
    return [bool(r.get("tools")) for r in fake.requests]


def quiet(home: Any) -> None:
    """No nudge: these tasks ask for a change and end with none, and the nudge's turn is no
    part of the switch (tests/test_nothing_changed.py)."""
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("nudge_unchanged: false\n")


def switch_messages(request: dict[str, Any]) -> list[str]:
    return [
        m["content"]
        for m in request["messages"]
        if m["role"] == "user" and "Tools are off from now on" in m["content"]
    ]


def test_two_failing_turns_of_the_first_three_switch(fake_llm, run_zen, project) -> None:
    """A usable call in between does not save the model: 2 of the first 3 turns failed."""
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([NO_TOOL, GOOD, BAD_JSON, text(EDIT), text("Done.")])
    done = run_zen("-p", TASK, *flags(fake))
    assert done.code == 0, done.err
    assert on_tools(fake) == [True, True, True, False, False]
    fourth = fake.requests[3]
    system = fourth["messages"][0]["content"]
    assert "You have no tools" in system
    (again,) = switch_messages(fourth)
    assert again.startswith("[zen] Your tool calls could not run twice")
    assert TASK in again and '<file path="calc.py">' in again  # the task again, with its file
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    assert done.err.count("switching to edit blocks") == 1 and WHY in done.err


def test_one_failing_turn_of_three_does_not_switch_nor_later_ones(
    fake_llm, run_zen, project, home
) -> None:
    (project / "calc.py").write_text(CALC)
    quiet(home)
    # A turn with one good call among bad ones did not fail; turns 4 and 5 are past the rule.
    fake = fake_llm([INVALID, MIXED, GOOD, NO_TOOL, BAD_JSON, text("It adds.")])
    done = run_zen("-p", TASK, *flags(fake))
    assert done.code == 0, done.err
    assert on_tools(fake) == [True] * 6 and "switching" not in done.err
    # The other side of the line: the second and third turns fail.
    fake = fake_llm([GOOD, INVALID, NO_TOOL, text("It adds.")])
    done = run_zen("-p", TASK, *flags(fake))
    assert done.code == 0, done.err
    assert on_tools(fake) == [True, True, True, False] and WHY in done.err


def test_a_tool_that_ran_and_failed_is_no_evidence(fake_llm, run_zen, project, home) -> None:
    """ "No such file" is the model's business: counted, it would switch after turn 2."""
    (project / "calc.py").write_text(CALC)
    quiet(home)
    fake = fake_llm([TOOL_ERROR, NO_TOOL, INVALID, text("It adds.")])
    done = run_zen("-p", TASK, *flags(fake))
    assert done.code == 0, done.err
    assert on_tools(fake) == [True, True, True, False]
    assert "missing.py" in fake.requests[1]["messages"][-1]["content"]  # the error went back


def test_the_switch_happens_once(fake_llm, run_zen, project) -> None:
    """After the switch neither rule fires again: failed calls, then code without a call."""
    (project / "calc.py").write_text(CALC)
    code = "Like this:\n```python\ndef add(a, b):\n    return a - b\n```"
    fake = fake_llm([NO_TOOL, BAD_JSON, NO_TOOL, INVALID, text(code), text("Done.")])
    done = run_zen("-p", TASK, *flags(fake))
    assert done.code == 0, done.err
    assert on_tools(fake)[:3] == [True, True, False] and not any(on_tools(fake)[2:])
    assert done.err.count("switching to edit blocks") == 1
    assert len(switch_messages(fake.requests[-1])) == 1

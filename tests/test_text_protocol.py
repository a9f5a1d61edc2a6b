"""The text protocol end to end: `zen -p --tool-protocol text|auto` against the fake server.

No tool schema goes on the wire; the task's files come with it; the model's edit blocks are
applied through the file tools' own guards (confinement, the stale check, approvals,
checkpoints), and their results come back as the next user message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import Reply, call, text, tool_calls
from zen.agent.compacted import user_texts
from zen.agent.conversation import Conversation
from zen.agent.protocols.edit_blocks import example
from zen.agent.session import Session
from zen.base import events as ev
from zen.base.preamble import asked, label
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace

CALC = "def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    return a * b\n"
EDIT = "calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return a - b\n>>>>>>> REPLACE\n"


def args_for(fake: Any, protocol: str = "text", *more: str) -> list[str]:
    base = ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]
    return [*base, "--tool-protocol", protocol, *more]


def users(request: dict[str, Any]) -> list[str]:
    """The user's messages, after the worked example's (edit blocks send it first)."""
    messages = request["messages"][1:]
    shown = [dict(m) for m in example()]
    if messages[: len(shown)] == shown:
        messages = messages[len(shown) :]
    return [m["content"] for m in messages if m["role"] == "user"]


def system(request: dict[str, Any]) -> str:
    return str(request["messages"][0]["content"])


def test_an_edit_block_is_applied_with_the_file_in_context(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([text("Here:\n\n" + EDIT), text("add() now subtracts.")])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "add() now subtracts."
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    first, second = fake.requests
    assert "tools" not in first and "tools" not in second  # nothing on the wire to call
    assert "You have no tools" in system(first) and "read-file" not in system(first)
    (task,) = users(first)
    assert asked(task).startswith('<file path="calc.py">')
    assert asked(task).endswith("\n\nmake add in calc.py subtract")
    assert f'<file path="calc.py">\n{CALC.rstrip()}\n</file>' in task
    result = users(second)[-1]
    assert result.startswith("[zen] results of your blocks:\n1. calc.py: +1 -1")
    assert "answer in a sentence" in result
    assert "edit-file calc.py" in done.err  # the user sees the edit like a tool call


def test_a_whole_file_block_creates_a_file(fake_llm, run_zen, project) -> None:
    new = "`greet.py`:\n```python\ndef greet(name):\n    return f'hi {name}'\n```\n"
    fake = fake_llm([text(new), text("Created greet.py.")])
    done = run_zen("-p", "write greet.py with greet(name)", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "greet.py").read_text() == "def greet(name):\n    return f'hi {name}'\n"
    assert "1. greet.py: created, 2 lines" in users(fake.requests[1])[-1]


def test_a_block_that_does_not_match_gets_an_exact_error_and_is_fixed(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    wrong = EDIT.replace("    return a + b\n=", "    return a+b  # sum\n=")
    fake = fake_llm([text(wrong), text(EDIT), text("Fixed.")])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    error = users(fake.requests[1])[-1]
    head = "[zen] results of your blocks:\n1. Error: the SEARCH text was not found in calc.py:\n"
    assert error.startswith(head)
    assert "    return a+b  # sum\n" in error
    assert "closest lines in calc.py (from line 2):\n    return a + b" in error
    assert "Fix what failed" in error
    assert "1. calc.py: +1 -1" in users(fake.requests[2])[-1]


def test_a_file_changed_after_the_model_saw_it_is_not_clobbered(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    theirs = CALC.replace("def mul", "# the user's line\ndef mul")
    later = EDIT.replace("a - b", "a - b  # after")

    def script(body: dict[str, Any]) -> Reply:
        sent = len(body["messages"]) - len(example())
        if sent == 2:  # the user edits the file while the model thinks
            (project / "calc.py").write_text(theirs)
            return text(EDIT)
        return text(later) if sent == 4 else text("Done.")

    fake = fake_llm(script)
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    stale = users(fake.requests[1])[-1]
    assert "1. Error: calc.py changed since you saw it; its current text is below" in stale
    assert "# the user's line" in stale and '<file path="calc.py">' in stale
    # The second block was written against the text the model was then shown: both kept.
    assert (project / "calc.py").read_text() == theirs.replace("a + b", "a - b  # after")


def test_a_declined_approval_changes_nothing_and_the_model_is_told(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([text(EDIT), text("I could not edit it.")])
    done = run_zen("-p", "make add in calc.py subtract", *args_for(fake))  # no --yes
    assert done.code == 7, done.err  # refused for want of approval, as for a native call
    assert (project / "calc.py").read_text() == CALC
    told = users(fake.requests[1])[-1]
    assert "1. The user declined this edit-file call" in told and "--yes" in told


@pytest.mark.skipif(sys.platform == "win32", reason="checkpoints' shell test is POSIX")
def test_rewind_restores_what_edit_blocks_changed(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    new = "notes.md\n```\n# notes\n```\n"
    fake = fake_llm([text(EDIT + "\n" + new), text("Done.")])
    done = run_zen("-p", "edit calc.py", "--yes", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    assert json.loads(done.out)["checkpoint"]
    assert (project / "notes.md").exists()
    rewound = run_zen("rewind")
    assert rewound.code == 0, rewound.err
    assert (project / "calc.py").read_text() == CALC
    assert not (project / "notes.md").exists()


def test_paths_outside_the_workspace_are_refused(fake_llm, run_zen, project) -> None:
    outside = project.parent / "outside.py"
    outside.write_text("x = 1\n")
    blocks = (
        "../outside.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n\n"
        f"{project.parent / 'planted.py'}\n```python\nevil()\n```\n"
    )
    fake = fake_llm([text(blocks), text("ok"), text("ok")])  # the second: the nudge's turn
    done = run_zen("-p", "change ../outside.py", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert outside.read_text() == "x = 1\n"
    assert not (project.parent / "planted.py").exists()
    assert "x = 1" not in users(fake.requests[0])[0]  # never shown to the model either
    result = users(fake.requests[1])[-1]
    assert result.count("outside the workspace") == 2, result


def test_auto_switches_to_edit_blocks_after_an_answer_without_a_call(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    prose_code = "You can change it like this:\n```python\ndef add(a, b):\n    return a - b\n```"
    fake = fake_llm([text(prose_code), text(EDIT), text("Done.")])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake, "auto"))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    first, second, _ = fake.requests
    assert first["tools"] and "tools" not in second
    assert "You have no tools" not in system(first) and "You have no tools" in system(second)
    again = users(second)[-1]
    assert "Tools are off" in again and "make add in calc.py subtract" in again
    assert "Environment:" not in again  # the task again, without the facts framed before it
    assert '<file path="calc.py">' in again
    assert "switching to edit blocks" in done.err


def test_auto_keeps_tools_for_a_model_that_calls_them_or_only_talks(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm([text("calc.py adds two numbers.")])
    done = run_zen("-p", "what does calc.py do?", *args_for(fake, "auto"))
    assert done.code == 0, done.err
    assert done.out.strip() == "calc.py adds two numbers." and len(fake.requests) == 1

    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "calc.py"})]),
            text("It adds:\n```python\nreturn a + b\n```"),
        ]
    )
    done = run_zen("-p", "what does add do?", *args_for(fake, "auto"))
    assert done.code == 0, done.err
    assert len(fake.requests) == 2 and fake.requests[1]["tools"]  # it can call: no switch


def test_dual_mode_coder_on_edit_blocks(fake_llm, run_zen, project: Path, home: Path) -> None:
    (project / "calc.py").write_text(CALC)
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(
        "dual_agent: {coder: {tool_protocol: text, model: fake-coder}}\n"
    )
    task = {"task": "[goal] make add subtract [files] calc.py"}
    fake = fake_llm(
        [
            tool_calls([call("send-to-coder", task)]),
            text(EDIT),  # the Coder
            text("Changed add()."),  # the Coder, done
            text("The Coder changed add()."),
        ]
    )
    done = run_zen("-p", "make add subtract", "--dual", "--yes", *args_for(fake, "native"))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")
    orchestrator, coder, coder_again, _ = fake.requests
    assert orchestrator["tools"] and "tools" not in coder and "tools" not in coder_again
    assert '<file path="calc.py">' in users(coder)[0]
    assert "calc.py" in json.dumps(fake.requests[3]["messages"][-1])


def test_the_protocols_own_messages_are_not_the_users_words() -> None:
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "fix calc.py"},
        {"role": "assistant", "content": EDIT},
        {"role": "user", "content": "[zen] results of your blocks:\n1. calc.py: +1 -1"},
    ]
    assert user_texts(messages) == ["fix calc.py"]  # a compaction keeps only the user's
    conversation = Conversation(lambda history, reads: None, lambda index: None)  # type: ignore[arg-type,return-value]
    conversation.load(messages[1:])
    assert [t.label for t in conversation.turns] == ["fix calc.py"]


@pytest.mark.usefixtures("close_clients")
async def test_a_file_is_shown_again_only_once_it_changed(fake_llm, tmp_path: Path) -> None:
    async def yes(request: ApprovalRequest) -> Approval:
        return Approval("yes")

    (tmp_path / "calc.py").write_text(CALC)
    fake = fake_llm([text("It adds."), text("Still adds."), text(EDIT), text("Done."), text("ok")])
    config = Config(model="m", base_url=fake.base_url, api_key="k", tool_protocol="text")
    session = closing(Session(config, Workspace(tmp_path)))
    await session.run("what does calc.py do?", ev.ignore)
    await session.run("and calc.py's mul?", ev.ignore)  # unchanged, still in the conversation
    assert users(fake.requests[1])[-1] == "and calc.py's mul?"
    await session.run("make calc.py's add subtract", ev.ignore, yes)
    await session.run("check calc.py", ev.ignore)  # zen's edit changed it: shown again
    assert "    return a - b" in users(fake.requests[4])[-1]
    assert users(fake.requests[4])[-1].startswith('<file path="calc.py">')
    assert users(fake.requests[4])[-1].endswith("\n\ncheck calc.py")


@pytest.mark.usefixtures("close_clients")
async def test_a_turn_whose_files_came_first_is_listed_and_rewound_by_its_words(
    fake_llm, tmp_path: Path
) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    fake = fake_llm([text("It adds."), text("It multiplies.")])
    config = Config(model="m", base_url=fake.base_url, api_key="k", tool_protocol="text")
    session = closing(Session(config, Workspace(tmp_path)))
    await session.run("what does calc.py do?", ev.ignore)
    await session.run("and mul in calc.py?", ev.ignore)
    history = session.conversation.history
    assert history[0]["content"].split("</context>\n\n", 1)[1].startswith('<file path="calc.py">')
    assert [label(m["content"]) for m in history if m["role"] == "user"] == [
        "what does calc.py do?",
        "and mul in calc.py?",
    ]
    assert session.conversation.rewind(session.conversation.turns[0])
    assert session.conversation.history == []


def test_an_answer_with_nothing_left_to_do_ends_the_run(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    again = "Here it is again:\n" + EDIT
    fake = fake_llm([text(EDIT), text(again)])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert len(fake.requests) == 2  # the second answer only repeated an applied block
    assert done.out.strip().startswith("Here it is again:")
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")


def test_a_python_snippet_is_merged_and_another_languages_is_refused(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    js = "function add(a, b) {\n  return a + b;\n}\n\nfunction mul(a, b) {\n  return a * b;\n}\n"
    (project / "calc.js").write_text(js)
    snippet = "Here's the updated `calc.py`:\n```python\ndef add(a, b):\n    return a - b\n```"
    partial = "calc.js\n```js\nfunction add(a, b) {\n  return a - b;\n}\n```"
    fake = fake_llm([text(snippet + "\n\n" + partial), text("Done.")])
    done = run_zen("-p", "make add in calc.py and calc.js subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == CALC.replace("a + b", "a - b")  # mul kept
    assert (project / "calc.js").read_text() == js
    results = users(fake.requests[1])[-1]
    assert (
        "1. calc.py: " in results and "(merged: replaced add; the rest of the file kept)" in results
    )
    assert (
        "2. Error: the block for calc.js would delete mul (a part of a file is merged only in "
        "Python)" in results
    )


def test_a_snippet_under_the_modules_docstring_is_merged(fake_llm, run_zen, project) -> None:
    """Qwen2.5-Coder-1.5B on fix-failing-test: the docstring copied, then the one function it
    fixed; refused as a file that would delete the other, three times over, before."""
    stats = '"""Stats."""\n\n\n' + CALC
    (project / "stats.py").write_text(stats)
    answer = 'stats.py\n```python\n"""Stats."""\n\n\ndef add(a, b):\n    return a - b\n```'
    fake = fake_llm([text(answer), text("Done.")])
    done = run_zen("-p", "make add in stats.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "stats.py").read_text() == stats.replace("a + b", "a - b")
    assert "(merged: replaced add; the rest of the file kept)" in users(fake.requests[1])[-1]


def test_a_copied_placeholder_is_answered_as_a_format_error(fake_llm, run_zen, project) -> None:
    """Qwen2.5-Coder-1.5B copied `<path of the file>` from the prompt once it showed one."""
    (project / "stats.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    new = "def mean(xs):\n    return sum(xs) / len(xs)\n\n\ndef median(xs):\n    return 0\n"
    fake = fake_llm([text(f"<path of the file>\n```\n{new}```\n"), text("ok"), text("ok")])
    task = "Add median(xs) to stats.py."
    done = run_zen("-p", task, "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert "median" not in (project / "stats.py").read_text()
    assert "1. Error: format error: you copied a placeholder" in users(fake.requests[1])[-1]
    assert "<path of the file>" not in system(fake.requests[0])  # nothing to copy

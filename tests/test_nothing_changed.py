"""A task that asked for a change and changed nothing (issue 38): by default the agent is told
once and gets a turn; if it still changes nothing, the run says so. Through `zen -p` on the
fake server, in both tool protocols and dual mode's Coder; one session's tasks in process."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_compaction import session_for
from tests.test_direct import BIG, Roles, args
from tests.test_direct import result as direct_result
from tests.test_edit_checks import READ, TWO_MODELS, edit, last_tool, p, result, setup
from tests.test_text_protocol import CALC, EDIT, users
from zen.agent.nothing_changed import LINE
from zen.agent.triage import asks_for_change
from zen.base import events as ev
from zen.settings.prompts import load_prompt
from zen.tools.send_to_coder import CHANGED_NOTHING

NUDGE = load_prompt("nothing-changed")
TASK = "add a docstring to add() in calc.py"
NOTES = {"path": "notes.txt", "content": "limits\n"}


@pytest.mark.parametrize("protocol", ["native", "text"])
def test_a_change_not_made_is_nudged_once_then_reported(
    fake_llm, run_zen, project: Path, home: Path, protocol: str
) -> None:
    setup(project, home, "")  # the default: nudge_unchanged on
    fake = fake_llm([text("Done."), text("Done, really.")])
    done = p(run_zen, fake, TASK, "--yes", protocol=protocol)
    assert done.code == 0, done.err
    assert len(fake.requests) == 2  # once: the second answer without a change ends the run
    assert users(fake.requests[1])[-1] == NUDGE
    assert result(done)["changed_nothing"] is True
    assert done.err.count(LINE) == 1


def test_an_edit_block_after_the_nudge_is_applied_and_not_reported(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    setup(project, home, "")
    fake = fake_llm([text("Done."), text(EDIT), text("Now done.")])
    done = p(run_zen, fake, "make add in calc.py subtract", "--yes", protocol="text")
    assert done.code == 0, done.err
    assert users(fake.requests[1])[-1] == NUDGE and len(fake.requests) == 3
    assert "return a - b" in (project / "calc.py").read_text()
    assert result(done)["changed_nothing"] is False and LINE not in done.err


def test_a_change_made_after_the_nudge_is_not_reported(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    setup(project, home, "")
    fake = fake_llm([text("Done."), READ, edit("a + b", "a - b"), text("Now done.")])
    done = p(run_zen, fake, "make add in calc.py subtract", "--yes")
    assert done.code == 0, done.err
    assert result(done)["changed_nothing"] is False and LINE not in done.err
    assert len(fake.requests) == 4


def test_a_change_made_at_once_is_not_nudged(fake_llm, run_zen, project: Path, home: Path) -> None:
    setup(project, home, "")
    fake = fake_llm([READ, edit("a + b", "a - b"), text("Done.")])
    done = p(run_zen, fake, "make add in calc.py subtract", "--yes")
    assert done.code == 0, done.err
    assert len(fake.requests) == 3 and NUDGE not in str(fake.requests[-1]["messages"])
    assert result(done)["changed_nothing"] is False


def test_turned_off_a_change_not_made_is_only_reported(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    setup(project, home, "", "nudge_unchanged: false\n")
    fake = fake_llm([text("Done.")])
    done = p(run_zen, fake, TASK, "--yes")
    assert done.code == 0, done.err
    assert len(fake.requests) == 1 and result(done)["changed_nothing"] is True
    assert LINE in done.err


@pytest.mark.parametrize(
    "question",
    [
        "what does calc.py do?",
        "what does add do in calc.py?",  # the function's name is an edit verb
        "Which value does add return when b is not set? Do not change any file.",
    ],
)
def test_a_question_that_changes_nothing_is_not_nudged(
    fake_llm, run_zen, project: Path, home: Path, question: str
) -> None:
    setup(project, home, "")
    fake = fake_llm([text("It adds and multiplies.")])
    done = p(run_zen, fake, question, "--yes")
    assert done.code == 0, done.err
    assert len(fake.requests) == 1 and result(done)["changed_nothing"] is False
    assert LINE not in done.err


@pytest.mark.parametrize(
    ("task", "wanted"),
    [
        ("make add in calc.py subtract", True),
        ("Could you add a docstring to add() in calc.py?", True),  # a request, asked politely
        ("Why does add fail? Fix it.", True),  # a question, then the request
        ("Regenerate TABLE.md by running tools/make_table.py.", True),  # the run writes it
        ("Bump the version in pyproject.toml.", True),
        ("What does make_table.py generate?", False),
        ("what does add do?", False),
        ("what would I change to make it faster?", False),
        ("How many rows does data.csv have when the header is not set? Answer with it.", False),
        ("Do not change any file. Tell me about calc.py.", False),
    ],
)
def test_a_change_is_asked_outside_questions(task: str, wanted: bool) -> None:
    assert asks_for_change(task) is wanted


@pytest.mark.parametrize("protocol", ["native", "text"])
def test_a_declined_edit_is_not_nudged(
    fake_llm, run_zen, project: Path, home: Path, protocol: str
) -> None:
    """The nudge would send the model back to what the user refused (here: nobody to ask)."""
    setup(project, home, "")
    asked = edit("a + b", "a - b") if protocol == "native" else text(EDIT)
    first = [READ, asked] if protocol == "native" else [asked]
    fake = fake_llm([*first, text("I could not edit it.")])
    done = p(run_zen, fake, "make add in calc.py subtract", protocol=protocol)  # no --yes
    assert done.code == 7, done.err  # refused for want of approval
    assert (project / "calc.py").read_text() == CALC
    assert NUDGE not in str(fake.requests[-1]["messages"])
    assert len(fake.requests) == len(first) + 1
    assert result(done)["changed_nothing"] is True


def test_the_coder_is_nudged_and_the_orchestrator_reads_it_changed_nothing(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    setup(project, home, "", TWO_MODELS)
    fake = fake_llm(
        [
            text("Done."),  # the Coder (triage sent it the task at once)
            text("Done, I promise."),  # the Coder, after the nudge
            text("The Coder did not make the change."),  # the Orchestrator
            text("Still not made."),  # the Orchestrator, after its own nudge
        ]
    )
    done = p(run_zen, fake, TASK, "--yes", "--dual")
    assert done.code == 0, done.err
    assert fake.requests[0]["model"] == fake.requests[1]["model"] == "fake-coder"
    assert users(fake.requests[1])[-1] == NUDGE
    assert CHANGED_NOTHING in last_tool(fake.requests[2])
    assert users(fake.requests[3])[-1] == NUDGE and len(fake.requests) == 4
    assert result(done)["changed_nothing"] is True


@pytest.mark.usefixtures("close_clients")
async def test_each_task_of_a_session_is_nudged_once(fake_llm, tmp_path: Path) -> None:
    (tmp_path / "calc.py").write_text(CALC)
    fake = fake_llm([text("Done."), text("Done."), text("Done."), text("Done.")])
    session = session_for(fake, tmp_path)
    for _ in range(2):
        log = ev.EventLog()
        done = await session.run(TASK, log)
        assert done.changed_nothing
        assert [e.text for e in log.events if isinstance(e, ev.Notice)].count(LINE) == 1
    nudged = [users(r)[-1] == NUDGE for r in fake.requests]
    assert nudged == [False, True, False, True]


def test_what_the_direct_agent_changed_before_the_handover_counts(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    """The Orchestrator that takes a grown task over changes nothing itself; the task did
    (checkpoints off: only the file tools' record tells)."""
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(
        "context_window: 20000\ncheckpoints: {enabled: off}\n"
    )
    (project / "mod0.py").write_text(BIG)
    first = [call("read-file", {"path": "mod0.py"}), call("write-file", NOTES)]
    roles = Roles(
        "## task:goal\nRaise every LIMIT to 20.",
        main=[tool_calls(first)],  # past 15 % of the window: the next turn hands over
        orchestrator=[text("Done already.")],
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "raise every limit to 20", *args(fake), "--output-format", "json")
    obj = direct_result(done)
    assert roles.order == ["main", "compaction", "orchestrator"]  # no nudge
    assert obj["triage_escalated"] is True and obj["changed_nothing"] is False
    assert (project / "notes.txt").read_text() == "limits\n"

"""Dual mode's triage: the rule, each path end to end through `zen -p --dual` against the fake
server, the override, the escalation from small to large, and hostile task text."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import Reply, call, text, tool_calls
from zen.agent.triage import decide, inside, triage
from zen.bench.child import Outcome
from zen.bench.rows import make_row
from zen.bench.verify import Verdict
from zen.tools.workspace import Workspace

pytestmark = pytest.mark.usefixtures("two_models")  # orchestrated paths: a Coder model

GREET = "def greet(name):\n    return f'Hi {name}'\n"


class Roles:
    """Each role pops its own replies (the Orchestrator is the one offered send-to-coder);
    `order` is which role each request came from."""

    def __init__(self, orchestrator: list[Reply], coder: list[Reply]) -> None:
        self.replies = {"orchestrator": orchestrator, "coder": coder}
        self.requests: dict[str, list[dict[str, Any]]] = {"orchestrator": [], "coder": []}
        self.order: list[str] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        names = {t["function"]["name"] for t in body.get("tools", [])}
        role = "orchestrator" if "send-to-coder" in names else "coder"
        self.requests[role].append(body)
        self.order.append(role)
        return self.replies[role].pop(0)


def args(fake: Any, *more: str) -> list[str]:
    return [
        "--dual",
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        "--model",
        "fake-model",
        "--yes",
        *more,
    ]


def result(done: Any) -> dict[str, Any]:
    assert done.code == 0, done.err
    return json.loads(done.out.strip().splitlines()[-1])


def first_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


RENAME = call(
    "edit-file", {"path": "greet.py", "old_string": "def greet(", "new_string": "def welcome("}
)
CODER_DONE = [
    tool_calls([call("read-file", {"path": "greet.py"})]),
    tool_calls([RENAME]),
    text("Renamed greet to welcome in greet.py."),
]


# -- the rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "files", "path"),
    [
        ("what does greet.py do?", ["greet.py"], "question"),
        ("Explain the retry logic", [], "question"),
        ("why does greet fail? fix it in greet.py", ["greet.py"], "small"),
        ("rename greet to welcome in greet.py", ["greet.py"], "small"),
        ("rename greet to welcome everywhere", [], "large"),
        ("update a.py b.py c.py d.py", ["a.py", "b.py", "c.py", "d.py"], "large"),
        ("fix greet.py " + "and more " * 80, ["greet.py"], "large"),
        # zen bench's answer-question: the guard is no edit
        (
            "On which port does server.py listen? Answer with the number. Do not change any file.",
            ["server.py"],
            "question",
        ),
        ("Don't edit: what does greet.py return?", ["greet.py"], "question"),
        ("Add a test; do not modify greet.py", ["greet.py"], "small"),
    ],
)
def test_the_rule(task: str, files: list[str], path: str) -> None:
    assert decide(task, files).path == path


def test_controlled_is_never_small_by_the_rule() -> None:
    chosen = decide("rename greet in greet.py", ["greet.py"], collaboration="controlled")
    assert chosen.path == "large"


def test_the_setting_overrides_the_rule() -> None:
    chosen = decide("what does greet.py do?", ["greet.py"], "large")
    assert (chosen.path, chosen.forced) == ("large", True)
    assert decide("what does greet.py do?", [], "auto").path == "question"


def test_only_files_inside_the_workspace_are_named(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "sub").mkdir(parents=True)
    (tmp_path / "secret.py").write_text("KEY = 1\n")
    (root / "ok.py").write_text("x = 1\n")
    os.symlink(tmp_path / "secret.py", root / "link.py")
    os.symlink(tmp_path / "secret.py", root / "sub" / "deep.py")
    ws = Workspace(root)
    task = f"fix ok.py, link.py, deep.py, ../secret.py and {tmp_path / 'secret.py'}"
    decision = asyncio.run(triage(task, ws))
    assert decision.files == ("ok.py",)
    assert inside(ws, ["../secret.py", "link.py", str(tmp_path / "secret.py"), "sub"]) == []


# -- end to end ----------------------------------------------------------------------------


def test_a_question_is_answered_without_delegating(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(
        orchestrator=[
            tool_calls([call("read-file", {"path": "greet.py"})]),
            text("greet(name) returns a greeting."),
        ],
        coder=[],
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "what does greet.py do?", *args(fake, "--output-format", "json"))
    obj = result(done)
    assert obj["result"] == "greet(name) returns a greeting."
    assert obj["triage"] == "question" and obj["triage_escalated"] is False
    assert roles.order == ["orchestrator", "orchestrator"]
    assert "zen's triage: a question" in first_user(roles.requests["orchestrator"][0])


def test_a_named_file_goes_to_the_coder_at_once(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[], coder=list(CODER_DONE))
    fake = fake_llm(roles)
    done = run_zen("-p", "rename greet to welcome in greet.py", *args(fake))
    assert done.code == 0, done.err
    assert roles.order == ["coder"] * 3  # no Orchestrator request, no scouting round
    assert "[files] greet.py" in first_user(roles.requests["coder"][0])
    assert "def welcome(name):" in (project / "greet.py").read_text()
    assert done.out.strip() == "Renamed greet to welcome in greet.py."
    lines = [line for line in done.err.splitlines() if line.startswith("triage:")]
    assert lines == ["triage: small (greet.py): the task names its files: straight to the Coder"]


def test_the_small_path_in_json(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    fake = fake_llm(Roles(orchestrator=[], coder=list(CODER_DONE)))
    obj = result(
        run_zen("-p", "rename greet to welcome in greet.py", *args(fake, "--output-format", "json"))
    )
    assert (obj["triage"], obj["triage_escalated"]) == ("small", False)
    assert obj["files_changed"] == ["greet.py"]


def test_a_large_change_is_still_scouted(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(
        orchestrator=[
            tool_calls(
                [
                    call(
                        "spawn-agents",
                        {"tasks": [{"description": "scout", "prompt": "note greet.py"}]},
                    )
                ]
            ),
            text("Nothing to change."),
            text("Nothing to change, as I said."),  # after the nudge: a rename was asked
        ],
        coder=[text("greet.py defines greet(name).")],  # the scout runs on the Coder's tools
    )
    fake = fake_llm(roles)
    done = run_zen(
        "-p", "rename greet to welcome everywhere", *args(fake, "--output-format", "json")
    )
    obj = result(done)
    assert obj["triage"] == "large"
    assert roles.order[0] == "orchestrator"
    assert "zen's triage: a large change" in first_user(roles.requests["orchestrator"][0])


def test_the_override(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[text("I would plan this first."), text("Planned.")], coder=[])
    fake = fake_llm(roles)
    task = "rename greet to welcome in greet.py"
    obj = result(run_zen("-p", task, *args(fake, "--triage", "large", "--output-format", "json")))
    assert obj["triage"] == "large" and roles.order == ["orchestrator"] * 2  # once nudged


def test_a_failed_small_path_escalates(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(
        orchestrator=[text("The Coder could not do it."), text("Planned and done another way.")],
        coder=[text("I could not find greet."), text("It is not there.")],  # changed nothing
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "rename greet to welcome in greet.py", *args(fake))
    assert done.code == 0, done.err
    assert roles.order == ["coder", "coder", "orchestrator", "orchestrator"]  # each nudged once
    messages = roles.requests["orchestrator"][0]["messages"]
    assert "sent to the Coder at once" in messages[1]["content"]
    assert messages[-1]["role"] == "tool" and "It is not there." in messages[-1]["content"]
    assert "triage: small → large" in done.err
    assert done.out.strip() == "Planned and done another way."


def test_escalation_in_json(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[text("Done another way.")] * 2, coder=[text("No.")] * 2)
    fake = fake_llm(roles)  # each role answers the nudge too
    task = "rename greet to welcome in greet.py"
    obj = result(run_zen("-p", task, *args(fake, "--output-format", "json")))
    assert (obj["triage"], obj["triage_escalated"]) == ("small", True)


def test_hostile_names_reach_neither_coder_nor_terminal(
    fake_llm, run_zen, project: Path, tmp_path: Path
) -> None:
    (tmp_path / "secret.py").write_text("KEY = 'hunter2'\n")
    os.symlink(tmp_path / "secret.py", project / "link.py")
    roles = Roles(orchestrator=[text("Planned."), text("Planned, still.")], coder=[])
    fake = fake_llm(roles)
    done = run_zen("-p", "fix link.py and ../secret.py", *args(fake))
    assert done.code == 0, done.err
    assert roles.order == ["orchestrator"] * 2  # nothing named: the large path, no Coder
    assert "triage: large:" in done.err and "link.py" not in done.err.split("triage:")[1]
    (project / "greet.py").write_text(GREET)
    fake2 = fake_llm(Roles(orchestrator=[], coder=list(CODER_DONE)))
    done = run_zen("-p", "rename greet to welcome in greet.py\x1b]0;owned\x07\x1b[2J", *args(fake2))
    line = next(x for x in done.err.splitlines() if x.startswith("triage:"))
    assert line.startswith("triage: small (greet.py)")
    assert "\x1b" not in done.err and "\x07" not in done.err


def test_bench_rows_keep_only_known_triage_paths() -> None:
    verdict = Verdict("passed", "")
    row = make_row("t", "delegated", 0, Outcome({"triage": "small", "stop": "done"}), verdict)
    assert (row["triage"], row["triage_escalated"]) == ("small", False)
    assert row["changed_nothing"] is False
    odd = Outcome({"triage": "\x1b[2Jlarge", "triage_escalated": "yes", "changed_nothing": 1})
    row = make_row("t", "delegated", 0, odd, verdict)
    assert (row["triage"], row["triage_escalated"], row["changed_nothing"]) == (None, False, False)


def test_the_shell_shows_the_line_once_and_safe() -> None:
    from tests.test_render import PIPE, renderer
    from zen.agent.triage import Decision

    log, sink = renderer(PIPE)
    names = tuple(f"m{i}.py" for i in range(9))
    log(Decision("large", names, "no file named\x1b[2J").event("orchestrator"))
    out = sink.getvalue()
    assert out.count("triage: large (m0.py, m1.py, m2.py, m3.py, m4.py, …)") == 1
    assert "\x1b" not in out and "m5.py" not in out


def test_controlled_small_path_has_the_orchestrator_apply(fake_llm, run_zen, project: Path) -> None:
    (project / "greet.py").write_text(GREET)
    roles = Roles(
        orchestrator=[
            tool_calls([call("read-file", {"path": "greet.py"})]),
            tool_calls([RENAME]),
            text("Applied the Coder's rename."),
        ],
        coder=[text("path: greet.py\n```python\ndef welcome(name): ...\n```\nRenamed.")],
    )
    fake = fake_llm(roles)
    task = "rename greet to welcome in greet.py"
    flags = ("--collab", "controlled", "--triage", "small", "--output-format", "json")
    obj = result(run_zen("-p", task, *args(fake, *flags)))
    assert roles.order == ["coder", "orchestrator", "orchestrator", "orchestrator"]
    assert (obj["triage"], obj["triage_escalated"]) == ("small", False)
    assert "def welcome(name):" in (project / "greet.py").read_text()


def test_a_work_mode_without_a_coder_is_not_triaged(fake_llm, run_zen, project: Path) -> None:
    """`explain` has no send-to-coder: a named-file change is not sent to a Coder it lacks."""
    (project / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[], coder=[text("greet.py greets.")])  # no send-to-coder offered
    fake = fake_llm(roles)
    done = run_zen(
        "-p", "rename greet to welcome in greet.py", *args(fake, "--work-mode", "explain")
    )
    assert done.code == 0, done.err
    assert done.out.strip() == "greet.py greets." and len(fake.requests) == 1
    assert "triage" not in done.err
    assert "zen's triage" not in first_user(roles.requests["coder"][0])


def test_the_small_path_holds_with_tool_protocol_auto(fake_llm, run_zen, project: Path) -> None:
    """`auto` keeps tools until the model shows it cannot call them: zen still makes the call
    (a local model's Orchestrator once reverted the Coder's right change on its own turn)."""
    (project / "greet.py").write_text(GREET)
    roles = Roles(orchestrator=[], coder=list(CODER_DONE))
    fake = fake_llm(roles)
    task = "rename greet to welcome in greet.py"
    done = run_zen("-p", task, *args(fake, "--tool-protocol", "auto"))
    assert done.code == 0, done.err
    assert roles.order == ["coder"] * 3
    assert "def welcome(name):" in (project / "greet.py").read_text()

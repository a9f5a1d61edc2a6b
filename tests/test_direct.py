"""Dual mode with one model (issue 39): a task starts direct, as a single agent would, and
becomes orchestrated only when its conversation outgrows `ESCALATE_AT` of the window, through
`zen -p --dual` against the fake server (every role on the same model)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.server import Reply, call, text, tool_calls

SYSTEMS = {
    "You are zen": "main",
    "You are the Orchestrator": "orchestrator",
    "You are the Coder": "coder",
    "You are an explorer": "scout",
}
COMPACT = "The conversation is about to be compacted"
BIG = "".join(f"LIMIT_{i} = 10  # a line of the module, long enough to count\n" for i in range(400))


class Roles:
    """Each role (told apart by its system prompt: one model serves them all) pops its own
    replies; a compaction's request gets `summary`."""

    def __init__(self, summary: str = "", **replies: list[Reply]) -> None:
        self.replies = replies
        self.summary = summary
        self.order: list[str] = []
        self.requests: list[dict[str, Any]] = []

    def __call__(self, body: dict[str, Any]) -> Reply:
        self.requests.append(body)
        last = body["messages"][-1]
        if last["role"] == "user" and str(last["content"]).startswith(COMPACT):
            self.order.append("compaction")
            return text(self.summary)
        system = str(body["messages"][0]["content"])
        role = next(r for start, r in SYSTEMS.items() if system.startswith(start))
        self.order.append(role)
        return self.replies[role].pop(0)


def args(fake: Any, *more: str) -> list[str]:
    return ["--dual", "--base-url", fake.base_url, "--api-key", "k", "--model", "one", "--yes"]


def result(done: Any) -> dict[str, Any]:
    assert done.code == 0, done.err
    return json.loads(done.out.strip().splitlines()[-1])


def test_a_short_task_stays_direct(fake_llm, run_zen, project: Path) -> None:
    (project / "app.py").write_text("LIMIT = 10\n")
    roles = Roles(
        main=[
            tool_calls([call("grep", {"pattern": "LIMIT"})]),
            tool_calls([call("read-file", {"path": "app.py"})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "app.py", "old_string": "= 10", "new_string": "= 20"},
                    )
                ]
            ),
            text("Raised the limit to 20."),
        ]
    )
    fake = fake_llm(roles)
    done = run_zen("-p", "raise the limit to 20", *args(fake), "--output-format", "json")
    obj = result(done)
    assert roles.order == ["main"] * 4  # one agent's requests, nothing else
    assert (obj["triage"], obj["triage_escalated"]) == ("direct", False)
    assert set(obj["usage"]) == {"main"}
    assert obj["result"] == "Raised the limit to 20."
    assert (project / "app.py").read_text() == "LIMIT = 20\n"
    first = roles.requests[0]
    assert "zen's triage" not in json.dumps(first["messages"])  # as single mode sends it


def long_task(project: Path) -> Roles:
    for i in range(3):
        (project / f"mod{i}.py").write_text(BIG)
    summary = "\n".join(
        [
            "## task:goal\nRaise every LIMIT to 20.",
            "## task:constraints\nraise every limit to 20",
            "## task:next\nChange the LIMIT lines.",
            "## file:mod0.py\nmod0.py: 400 LIMIT_N = 10 lines, one per line.",
            "## file:mod1.py\nmod1.py: 400 LIMIT_N = 10 lines, one per line.",
        ]
    )
    return Roles(
        summary,
        main=[tool_calls([call("read-file", {"path": f"mod{i}.py"})]) for i in range(3)],
        orchestrator=[
            tool_calls([call("send-to-coder", {"task": "raise LIMIT_0 in mod0.py to 20"})]),
            text("Raised them through the Coder."),
        ],
        coder=[
            tool_calls([call("read-file", {"path": "mod0.py", "offset": 1, "limit": 2})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {
                            "path": "mod0.py",
                            "old_string": "LIMIT_0 = 10",
                            "new_string": "LIMIT_0 = 20",
                        },
                    )
                ]
            ),
            text("Raised LIMIT_0."),
        ],
    )


def small_window(home: Path) -> None:
    """A 20,000-token window: one read of ~5,000 tokens passes 15 % of it, once."""
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("context_window: 20000\n")


def test_a_long_task_escalates_once(fake_llm, run_zen, home: Path, project: Path) -> None:
    small_window(home)
    roles = long_task(project)
    fake = fake_llm(roles)
    done = run_zen("-p", "raise every limit to 20", *args(fake), "--output-format", "json")
    obj = result(done)
    assert roles.order == [
        "main",
        "compaction",
        "orchestrator",
        "coder",
        "coder",
        "coder",
        "orchestrator",
    ]
    assert (obj["triage"], obj["triage_escalated"]) == ("direct", True)
    assert obj["result"] == "Raised them through the Coder."
    assert "mod0.py" in obj["files_changed"]
    orchestrator = roles.requests[2]["messages"]
    sent = json.dumps(orchestrator)
    assert "LIMIT_399 = 10" not in sent  # the raw reads are gone
    assert "file:mod0.py" in sent and "this task grew long" in sent
    assert orchestrator[0]["content"].startswith("You are the Orchestrator")
    coder = json.dumps(roles.requests[3]["messages"])
    assert "400 LIMIT_N = 10 lines" in coder  # the note of its file, from the handover


def test_the_line_shown(fake_llm, run_zen, home: Path, project: Path) -> None:
    small_window(home)
    fake = fake_llm(long_task(project))
    done = run_zen("-p", "raise every limit to 20", *args(fake))
    assert done.code == 0, done.err
    lines = [line for line in done.err.splitlines() if line.startswith("triage:")]
    assert lines == [
        "triage: direct: one model: done directly, orchestrated if it grows long",
        "triage: direct → large: the task grew long; the Orchestrator delegates the rest",
    ]
    assert done.out.strip() == "Raised them through the Coder."


def test_the_override(fake_llm, run_zen, project: Path) -> None:
    (project / "app.py").write_text("LIMIT = 10\n")
    roles = Roles(orchestrator=[text("I would gather with scouts first."), text("Not yet.")])
    fake = fake_llm(roles)
    done = run_zen(
        "-p", "raise the limit to 20", *args(fake), "--triage", "large", "--output-format", "json"
    )
    obj = result(done)
    assert roles.order == ["orchestrator"] * 2  # the second: the nudge's turn
    assert (obj["triage"], obj["triage_escalated"]) == ("large", False)
    assert "zen's triage: a large change" in json.dumps(roles.requests[0]["messages"])


def test_the_override_to_direct_with_two_models(
    fake_llm, run_zen, two_models: Path, project: Path
) -> None:
    (project / "app.py").write_text("LIMIT = 10\n")
    roles = Roles(main=[text("It is 10."), text("Still 10.")])  # then the nudge's turn
    fake = fake_llm(roles)  # a Coder model of its own: direct only when asked
    task = "raise LIMIT in app.py to 20"
    done = run_zen("-p", task, *args(fake), "--triage", "direct", "--output-format", "json")
    obj = result(done)
    assert roles.order == ["main"] * 2 and obj["triage"] == "direct"

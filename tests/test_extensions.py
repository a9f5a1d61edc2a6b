"""Skills, the user's commands and work modes, end to end against the fake model server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.server import call, text, tool_calls
from zen.agent.prompt import system_prompt
from zen.settings.extensions import load_skills, skills_index

BODY = "To fill a PDF form: run scripts/fill.py with the field names.\nSECRET-STEP-42"


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]


def skill(root: Path, name: str, description: str, body: str = BODY) -> Path:
    folder = root / name
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n---\n{body}\n"
    )
    (folder / "scripts" / "fill.py").write_text("print('filled')\n")
    return folder


def tool_names(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools", [])}


def test_a_skill_is_one_prompt_line_until_the_model_loads_it(fake_llm, run_zen, home: Path) -> None:
    skill(home / ".zen" / "skills", "pdf-forms", "Fill PDF forms from data")

    def load(**extra: str) -> Any:
        return tool_calls([call("skill", {"name": "pdf-forms", **extra})])

    fake = fake_llm(
        [load(), load(file="scripts/fill.py"), load(file="../../config.yaml"), text("done")]
    )
    done = run_zen("-p", "fill the form", *args_for(fake))
    assert done.code == 0, done.err
    first = json.dumps(fake.requests[0])
    assert "- pdf-forms: Fill PDF forms from data" in fake.requests[0]["messages"][0]["content"]
    assert "SECRET-STEP-42" not in first and "skill" in tool_names(fake.requests[0])
    results = [m["content"] for m in fake.requests[3]["messages"] if m["role"] == "tool"]
    assert "SECRET-STEP-42" in results[0] and "scripts/fill.py" in results[0]
    assert results[1] == "print('filled')\n"
    assert "not a file inside skill pdf-forms" in results[2]


def test_project_skills_need_a_trusted_folder(fake_llm, run_zen, project: Path) -> None:
    skill(project / ".claude" / "skills", "deploy", "Deploy this service")
    fake = fake_llm([text("a"), text("b")])
    assert run_zen("-p", "go", *args_for(fake)).code == 0
    assert "deploy" not in fake.requests[0]["messages"][0]["content"]
    assert "skill" not in tool_names(fake.requests[0])
    assert run_zen("-p", "go", "--trust", *args_for(fake)).code == 0
    assert "- deploy: Deploy this service" in fake.requests[1]["messages"][0]["content"]


def test_explain_mode_sends_no_tool_that_writes(fake_llm, run_zen, two_models: Path) -> None:
    fake = fake_llm([text("a"), text("b"), text("b, after the nudge")])
    assert run_zen("-p", "how does it work", "--work-mode", "explain", *args_for(fake)).code == 0
    tools = tool_names(fake.requests[0])
    assert "read-file" in tools and "grep" in tools
    assert not tools & {"write-file", "edit-file", "bash", "spawn-agents"}
    assert "Work mode: explain" in fake.requests[0]["messages"][0]["content"]
    assert run_zen("-p", "fix it", "--work-mode", "bug-fix", "--dual", *args_for(fake)).code == 0
    assert "send-to-coder" in tool_names(fake.requests[1])
    assert "Work mode: bug fix" in fake.requests[1]["messages"][0]["content"]


def test_a_users_own_mode_overrides_and_an_unknown_one_is_a_config_error(
    fake_llm, run_zen, home: Path
) -> None:
    (home / ".zen" / "modes").mkdir(parents=True)
    (home / ".zen" / "modes" / "review.md").write_text("Work mode: review. Be terse.\n")
    fake = fake_llm([text("ok")])
    assert run_zen("-p", "go", "--work-mode", "review", *args_for(fake)).code == 0
    assert "Work mode: review. Be terse." in fake.requests[0]["messages"][0]["content"]
    bad = run_zen("-p", "go", "--work-mode", "yolo", *args_for(fake))
    assert bad.code == 2 and "unknown work mode 'yolo'" in bad.err


def test_ten_skills_cost_few_prompt_characters(tmp_path: Path, monkeypatch) -> None:
    """The prompt budget for skills: names and one-line descriptions only."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    for i in range(10):
        skill(
            tmp_path / ".zen" / "skills",
            f"skill-{i}",
            "Does one well-described thing for this team's workflow " + "x" * 20,
            "B" * 5000,
        )
    skills = load_skills(tmp_path / "ws", trusted=False)
    added = len(system_prompt("core", top=skills_index(skills))) - len(system_prompt("core"))
    assert len(skills) == 10 and added < 1100, added

"""The trust fingerprint covers every file it guards: a skill changed after trusting, behind
thousands of other files, is asked about again; a folder too large to read is asked about
every time, never trusted unread."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakes.server import text
from zen.settings import trust


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model"]


def skill(project: Path, description: str) -> None:
    folder = project / ".zen" / "skills" / "zzz-deploy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: zzz-deploy\ndescription: {description}\n---\nRun the deploy.\n"
    )


def filler(project: Path, count: int) -> None:
    """`count` small files walked before the skill (sorted first)."""
    folder = project / ".zen" / "skills" / "aaa-data"
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(count):
        (folder / f"{n:05}.txt").write_text("x")


def test_a_skill_changed_behind_thousands_of_files_is_asked_about_again(
    fake_llm: Any, run_zen: Any, project: Path
) -> None:
    filler(project, 2_100)
    skill(project, "deploys to staging")
    assert run_zen("trust").code == 0
    fake = fake_llm([text("ok"), text("ok")])
    done = run_zen("-p", "hi", *args_for(fake))
    assert done.code == 0, done.err
    assert "deploys to staging" in json.dumps(fake.requests[0])  # trusted: the skill is used

    skill(project, "SENDS THE KEYS AWAY")
    done = run_zen("-p", "hi", *args_for(fake))
    assert done.code == 0, done.err
    assert "SENDS THE KEYS AWAY" not in json.dumps(fake.requests[1])
    assert "changed since you trusted" in done.err


def test_a_folder_too_large_to_fingerprint_is_asked_about_every_time(
    fake_llm: Any, run_zen: Any, project: Path
) -> None:
    filler(project, trust.FILE_LIMIT + 1)
    skill(project, "deploys to staging")
    trusted = run_zen("trust")
    assert "too large to fingerprint" in trusted.out
    fake = fake_llm([text("ok")])
    done = run_zen("-p", "hi", *args_for(fake))
    assert done.code == 0, done.err
    assert "deploys to staging" not in json.dumps(fake.requests[0])
    assert "too large to fingerprint" in done.err
    assert "(too large to fingerprint" in run_zen("trust", "--list").out

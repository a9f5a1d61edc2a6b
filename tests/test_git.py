"""git awareness: facts in the prompt, and a git tool that reads freely but asks before changing.

Everything runs the real git binary in a throwaway repository; the model is the fake server.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import call, text, tool_calls
from zen.agent.git_facts import describe_branch, find_work_tree, git_facts, summarize
from zen.agent.session import Session
from zen.base import events as ev
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest, ToolContext
from zen.tools.git import Git, GitError, GitParams, run_git
from zen.tools.workspace import Workspace

pytestmark = pytest.mark.usefixtures("close_clients")


IDENTITY = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, **IDENTITY},
    ).stdout


@pytest.fixture(autouse=True)
def isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No user or system git config (a pager, colours, hooks) leaks into the tests."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)


@pytest.fixture
def repo(project: Path) -> Path:
    """main with two commits; then one staged file, one modified file, two untracked."""
    git(project, "init", "-q", "-b", "main")
    (project / "app.py").write_text("print('v1')\n")
    (project / "lib.py").write_text("X = 1\n")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "first")
    (project / "app.py").write_text("print('v2')\n")
    git(project, "commit", "-q", "-am", "second")
    (project / "lib.py").write_text("X = 2\n")
    git(project, "add", "lib.py")
    (project / "app.py").write_text("print('v3')\n")
    (project / "new.txt").write_text("new\n")
    (project / "other.txt").write_text("other\n")
    return project


class Approver:
    def __init__(self, decision: str) -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval(self.decision)  # type: ignore[arg-type]


def config(fake: Any) -> Config:
    return Config(model="fake-model", base_url=fake.base_url, api_key="test-key")


def tool_results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


async def session_for(fake: Any, root: Path) -> Session:
    """Built as the composition root builds it: git facts gathered first."""
    facts = await git_facts(root, "auto")
    return closing(Session(config(fake), Workspace(root), git_facts=facts))


def commits(repo: Path) -> int:
    return int(git(repo, "rev-list", "--count", "HEAD"))


# -- facts --------------------------------------------------------------------------------------


async def test_facts_summarise_branch_and_status(repo: Path) -> None:
    facts = await git_facts(repo, "auto")
    assert facts == "Git: branch main; 1 staged, 1 modified, 2 untracked"
    git(repo, "checkout", "-q", "-b", "feature/x")
    assert (await git_facts(repo, "on")).startswith("Git: branch feature/x; ")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "third")
    assert await git_facts(repo, "auto") == "Git: branch feature/x; clean"


async def test_facts_from_a_subfolder_and_an_unborn_branch(project: Path) -> None:
    git(project, "init", "-q", "-b", "trunk")
    (project / "pkg").mkdir()
    (project / "pkg" / "a.py").write_text("")
    assert find_work_tree(project / "pkg") == project.resolve()
    facts = await git_facts(project / "pkg", "auto")
    assert facts == "Git: branch trunk (no commits yet); 1 untracked"


async def test_off_and_outside_a_repository(project: Path, monkeypatch) -> None:
    assert find_work_tree(project) is None
    with monkeypatch.context() as m:  # auto outside a work tree starts no process at all
        m.setenv("PATH", "")
        assert await git_facts(project, "auto") == ""
    assert await git_facts(project, "off") == ""
    forced = await git_facts(project, "on")
    assert forced.startswith("Git: branch none; ") and "not a git repository" in forced


def test_porcelain_parsing() -> None:
    porcelain = "## main...origin/main [ahead 2, behind 1]\nUU a\nAM b\n D c\n?? d\nR  e -> f\n"
    assert summarize(porcelain) == (
        "main (ahead 2, behind 1)",
        "1 conflicted, 2 staged, 2 modified, 1 untracked",
    )
    assert describe_branch("HEAD (no branch)") == "detached HEAD"
    assert describe_branch("dev...origin/dev") == "dev"
    assert describe_branch("dev...origin/dev [gone]") == "dev (gone)"


async def test_status_reaches_the_first_message(fake_llm, repo: Path) -> None:
    """The run's facts open the first message; the system prompt, shared by every run, has
    none of them."""
    fake = fake_llm([text("noted")])
    session = await session_for(fake, repo)
    await session.run("what branch is this?", ev.ignore)
    system, first = fake.requests[0]["messages"][:2]
    assert system["role"] == "system" and "Git:" not in system["content"]
    assert first["role"] == "user" and first["content"].endswith("what branch is this?")
    assert "Git: branch main; 1 staged, 1 modified, 2 untracked" in first["content"]
    assert "git" in {t["function"]["name"] for t in fake.requests[0]["tools"]}


async def test_no_git_layer_or_tool_outside_a_repository(fake_llm, project: Path) -> None:
    fake = fake_llm([text("ok")])
    session = await session_for(fake, project)
    await session.run("hi", ev.ignore)
    assert "Environment:" in fake.requests[0]["messages"][1]["content"]
    assert "Git:" not in fake.requests[0]["messages"][1]["content"]
    assert "git" not in {t["function"]["name"] for t in fake.requests[0]["tools"]}


# -- the tool -----------------------------------------------------------------------------------


async def test_reading_commands_run_without_asking(fake_llm, repo: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("git", {"args": "status --short"})]),
            tool_calls([call("git", {"args": ["log", "--format=%s"]})]),
            tool_calls([call("git", {"args": "git diff --cached"})]),
            text("looked"),
        ]
    )
    session = await session_for(fake, repo)
    approver = Approver("no")
    await session.run("look around", ev.ignore, approver)
    assert approver.asked == []
    status, log, diff = (tool_results(b)[-1] for b in fake.requests[1:])
    assert "M  lib.py" in status and " M app.py" in status and "?? new.txt" in status
    assert log.split() == ["second", "first"]
    assert "-X = 1\n+X = 2" in diff


@pytest.mark.parametrize(
    "args",
    [
        ["commit", "-am", "sneaky"],
        "checkout -q HEAD~1",
        "-C . commit -am sneaky",
        "diff --output=leak.txt",
    ],
)
async def test_changing_commands_need_confirmation(fake_llm, repo: Path, args: Any) -> None:
    head = git(repo, "rev-parse", "HEAD")
    fake = fake_llm([tool_calls([call("git", {"args": args})]), text("refused")])
    session = await session_for(fake, repo)
    approver = Approver("no")
    await session.run("change it", ev.ignore, approver)
    assert [a.tool for a in approver.asked] == ["git"]
    assert "declined" in tool_results(fake.requests[1])[0]
    assert len(fake.requests) == 2  # declined: no nudge back to the change (nothing_changed.py)
    assert git(repo, "rev-parse", "HEAD") == head
    assert not (repo / "leak.txt").exists()
    assert await git_facts(repo, "auto") == "Git: branch main; 1 staged, 1 modified, 2 untracked"


async def test_a_confirmed_commit_runs_without_an_editor(fake_llm, repo: Path) -> None:
    fake = fake_llm(
        [
            tool_calls([call("git", {"args": "commit"})]),  # no -m: would open an editor
            tool_calls([call("git", {"args": ["commit", "-m", "third"]})]),
            text("committed"),
        ]
    )
    session = await session_for(fake, repo)
    approver = Approver("yes")
    started = time.monotonic()
    await session.run("commit", ev.ignore, approver)
    assert time.monotonic() - started < 10
    assert approver.asked[0].preview == "git commit"
    no_message, committed = (tool_results(b)[-1] for b in fake.requests[1:])
    assert no_message.startswith("git commit exited with 1") and "empty" in no_message
    assert "third" in committed
    assert commits(repo) == 3


async def test_user_permissions_override_the_per_call_level(fake_llm, repo: Path) -> None:
    fake = fake_llm([tool_calls([call("git", {"args": "status"})]), text("denied")])
    cfg = config(fake).model_copy(update={"permissions": {"git": "deny"}})
    session = closing(Session(cfg, Workspace(repo), git_facts=await git_facts(repo, "auto")))
    await session.run("status", ev.ignore)
    assert "denied by the permissions" in tool_results(fake.requests[1])[0]


def test_level_depends_on_the_subcommand(ctx: ToolContext) -> None:
    tool = Git()
    for args in ("status", "diff HEAD~1", "log -5", "show HEAD", "blame app.py", ["log"]):
        assert tool.level_for(GitParams(args=args), ctx) == "auto", args
    for args in (
        "commit -m x",
        "push",
        "reset --hard",
        "-c core.pager=less log",
        "diff --no-index /etc/passwd x",
        "blame --contents /etc/passwd app.py",
    ):
        assert tool.level_for(GitParams(args=args), ctx) == "confirm", args


async def test_no_pager_or_editor_even_when_configured(repo: Path) -> None:
    git(repo, "config", "core.pager", "less")
    git(repo, "config", "core.editor", "vim")
    pager = await run_git(["var", "GIT_PAGER"], repo)
    editor = await run_git(["var", "GIT_EDITOR"], repo)
    assert (pager.stdout.strip(), editor.stdout.strip()) == ("cat", "true")


async def test_output_is_capped_and_slow_commands_time_out(repo: Path) -> None:
    out = await run_git(["log", "-p"], repo, limit=100)
    assert out.truncated and len(out.stdout) <= 100
    started = time.monotonic()
    with pytest.raises(GitError, match="timed out"):
        await run_git(["-c", "alias.slow=!sleep 20", "slow"], repo, timeout=0.5)
    assert time.monotonic() - started < 5

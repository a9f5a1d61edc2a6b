"""git cannot be turned against the user: a repository's own configuration runs no program when
zen looks at it (git facts at start-up, the git tool), and the auto-approved reading commands
cannot read or write outside the workspace.

Each attack is first shown to work with plain git (the control), then shown not to with zen.
Real git, real repositories; the model is the fake server.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_git import IDENTITY, Approver, git, isolated_git, session_for  # noqa: F401
from tests.test_git import tool_results as results
from zen.agent.git_facts import git_facts
from zen.base import events as ev
from zen.tools.base import ToolContext
from zen.tools.git import Git, GitParams
from zen.tools.git_process import neutralise, repo_config
from zen.tools.workspace import Workspace

SIGNED_COMMIT = """tree {tree}
author Test <test@example.com> 1700000000 +0000
committer Test <test@example.com> 1700000000 +0000
gpgsig -----BEGIN PGP SIGNATURE-----
 
 iQEzBAABCAAdFiEEfakefakefakefakefakefakefakefakeFAmVfake
 =fake
 -----END PGP SIGNATURE-----

signed
"""


@pytest.fixture
def repo(project: Path) -> Path:
    git(project, "init", "-q", "-b", "main")
    (project / "app.py").write_text("print('v1')\n")
    (project / "notes.txt").write_text("notes\n")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "first")
    return project


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "MARKER"


def program(tmp_path: Path, marker: Path, name: str = "evil.sh", then: str = "cat") -> str:
    """An executable that leaves the marker, then behaves like `then`."""
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\ntouch '{marker}'\nexec {then} \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def plain_git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """What the user's own git does in this repository (the control)."""
    return subprocess.run(
        ["git", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        env={**os.environ, **IDENTITY},
        stdin=subprocess.DEVNULL,
    )


def touch_all(repo: Path) -> None:
    """New stat data for every file, as unpacking an archive gives."""
    for path in repo.rglob("*"):
        if ".git" not in path.parts and path.is_file():
            os.utime(path, (1_600_000_000, 1_600_000_000))


async def facts_and_tool(fake_llm: Any, repo: Path, *calls: Any) -> Any:
    """git facts at start-up, then the model calls the git tool (approving whatever asks)."""
    fake = fake_llm([tool_calls([call("git", {"args": a}) for a in calls]), text("done")])
    session = await session_for(fake, repo)
    await session.run("look", ev.ignore, Approver("yes"))
    return fake


# -- the repository's own programs ------------------------------------------------------------


async def test_core_fsmonitor_never_runs(fake_llm, repo: Path, marker: Path) -> None:
    git(repo, "config", "core.fsmonitor", f"touch '{marker}'; false")
    plain_git(repo, "status")
    assert marker.exists(), "control: plain git status runs core.fsmonitor"
    marker.unlink()

    facts = await git_facts(repo, "auto")
    assert facts.startswith("Git: branch main")
    fake = await facts_and_tool(fake_llm, repo, "status", "diff", "commit -am x")
    assert "nothing to commit" in results(fake.requests[1])[2]
    assert not marker.exists()


async def test_a_clean_filter_never_runs_on_status(
    fake_llm, repo: Path, marker: Path, tmp_path: Path
) -> None:
    (repo / ".gitattributes").write_text("* filter=evil\n")
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-q", "-m", "attributes")
    git(repo, "config", "filter.evil.clean", program(tmp_path, marker))
    git(repo, "config", "filter.evil.smudge", program(tmp_path, marker))
    git(repo, "config", "filter.evil.required", "true")
    touch_all(repo)
    plain_git(repo, "status")
    assert marker.exists(), "control: plain git status runs the clean filter"
    marker.unlink()
    touch_all(repo)

    assert await git_facts(repo, "auto") == "Git: branch main; clean"
    await facts_and_tool(
        fake_llm, repo, "status", "diff", "log -p", "show", "blame app.py", "stash list"
    )
    assert not marker.exists()


async def test_gpg_program_never_runs_under_show_signature(
    fake_llm, repo: Path, marker: Path, tmp_path: Path
) -> None:
    tree = git(repo, "rev-parse", "HEAD^{tree}").strip()
    commit = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        check=True,
        input=SIGNED_COMMIT.format(tree=tree),
        capture_output=True,
        text=True,
    ).stdout.strip()
    git(repo, "reset", "-q", "--soft", commit)
    git(repo, "config", "log.showSignature", "true")
    git(repo, "config", "gpg.program", program(tmp_path, marker, then="false"))
    git(repo, "config", "gpg.openpgp.program", program(tmp_path, marker, then="false"))
    plain_git(repo, "log", "-1")
    assert marker.exists(), "control: plain git log runs gpg.program"
    marker.unlink()

    fake = await facts_and_tool(
        fake_llm, repo, "log -1", "show", "log --format=%G? -1", "verify-commit HEAD"
    )
    assert "signed" in results(fake.requests[1])[0]
    assert not marker.exists()


async def test_hooks_aliases_and_credential_helpers_never_run(
    fake_llm, repo: Path, marker: Path, tmp_path: Path
) -> None:
    hooks = repo / ".git" / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("pre-commit", "post-commit", "post-checkout"):
        (hooks / hook).symlink_to(program(tmp_path, marker, then="true"))
    git(repo, "config", "alias.st", f"!touch '{marker}'")
    git(repo, "config", "alias.lg", "-c core.fsmonitor=evil log")
    git(repo, "config", "credential.https://example.com.helper", program(tmp_path, marker))
    (repo / "app.py").write_text("print('v2')\n")
    plain_git(repo, "st")
    assert marker.exists(), "control: plain git runs the alias"
    marker.unlink()

    fake = await facts_and_tool(
        fake_llm, repo, "commit -am hooked", "st", "lg", "checkout -q -b other"
    )
    commit, st, lg, checkout = results(fake.requests[1])
    assert "hooked" in commit and not st.startswith("git st exited with 0")
    assert not marker.exists()


async def test_programs_that_cannot_be_switched_off_allow_only_reading(
    fake_llm, repo: Path, marker: Path, tmp_path: Path
) -> None:
    (repo / ".gitattributes").write_text("*.py diff=evil merge=evil\n")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "attributes")
    git(repo, "config", "diff.evil.textconv", program(tmp_path, marker))
    git(repo, "config", "diff.external", program(tmp_path, marker, then="true"))
    git(repo, "config", "merge.evil.driver", program(tmp_path, marker, then="true"))
    (repo / "app.py").write_text("print('v2')\n")
    plain_git(repo, "diff")
    assert marker.exists(), "control: plain git diff runs the external diff"
    marker.unlink()

    fake = await facts_and_tool(
        fake_llm,
        repo,
        "diff",
        "log -p -1",
        "show",
        "blame app.py",
        "commit -am x",
        "diff --ext-diff",
    )
    diff, log, show, blame, commit, ext = results(fake.requests[1])
    assert "-print('v1')\n+print('v2')" in diff
    for refused in (commit, ext):
        assert "diff.evil.textconv" in refused and "only reading commands" in refused
    assert not marker.exists()
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "2"


async def test_blame_ignore_revs_file_from_the_repository_reads_nothing(
    repo: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    git(repo, "config", "blame.ignoreRevsFile", str(secret))
    assert "TOP-SECRET-LINE" in plain_git(repo, "blame", "app.py").stderr  # the control
    tool, ctx = Git(), ToolContext(Workspace(repo), "main", *_stores())
    blame = await tool.execute(GitParams(args="blame app.py"), ctx)
    assert blame.ok and "print('v1')" in blame.output and "TOP-SECRET" not in blame.output
    refused = await tool.execute(GitParams(args="blame -C app.py"), ctx)
    assert "blame.ignorerevsfile" in refused.output and "TOP-SECRET" not in refused.output


async def test_a_work_tree_elsewhere_is_refused(fake_llm, repo: Path, outside: Path) -> None:
    git(repo, "config", "core.worktree", str(outside))
    assert "a/id_rsa" in plain_git(repo, "status", "-uall").stdout  # the control
    facts = await git_facts(repo, "auto")
    assert "core.worktree" in facts and "id_rsa" not in facts
    fake = await facts_and_tool(fake_llm, repo, "status -uall", "diff")
    for result in results(fake.requests[1]):
        assert "points its work tree elsewhere" in result and "id_rsa" not in result
    git(repo, "config", "core.worktree", "..")  # the usual place, spelt out: fine
    assert (await git_facts(repo, "auto")).startswith("Git: branch main; ")


async def test_the_users_own_settings_are_kept(repo: Path, tmp_path: Path) -> None:
    config = neutralise(
        repo=[
            ("filter.lfs.clean", "git-lfs clean -- %f"),
            ("filter.x.clean", "evil"),
            ("credential.helper", "evil"),
            ("core.sshcommand", "evil-ssh"),
        ],
        user=[
            ("filter.lfs.clean", "git-lfs clean -- %f"),
            ("credential.helper", "store"),
            ("core.hookspath", "/home/u/hooks"),
        ],
    )
    overrides = list(config.overrides)
    assert ("core.hooksPath", "/home/u/hooks") in overrides
    assert not any(k == "filter.lfs.clean" for k, _ in overrides)
    assert ("filter.x.clean", "") in overrides
    assert overrides[-3:-1] == [("credential.helper", ""), ("credential.helper", "store")]
    assert overrides[-1] == ("core.sshcommand", "ssh")
    assert config.unsafe == ()
    clean = await repo_config(repo)
    assert clean.unsafe == () and ("core.fsmonitor", "false") in clean.overrides


# -- reading commands stay inside the workspace ------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    (folder / "a" / "id_rsa").write_text("PRIVATE-KEY-A\n")
    (folder / "b" / "id_rsa").write_text("PRIVATE-KEY-B\n")
    return folder


def escapes(outside: Path) -> list[str]:
    return [
        f"diff {outside}/a/id_rsa /dev/null",
        f"diff {outside}/a {outside}/b",
        "blame --ignore-revs-file=/etc/passwd app.py",
        f"blame --ignore-revs-file {outside}/a/id_rsa app.py",
        f"blame -S {outside}/a/id_rsa app.py",
        f"blame -S{outside}/a/id_rsa app.py",
        f"blame --contents {outside}/a/id_rsa app.py",
        "diff --no-index app.py notes.txt",
        "diff --output=leak.txt",
        "log --output=leak.txt",
        "diff --ext-diff",
        "show --textconv HEAD",
        "log -p -O/etc/passwd",
        "diff -- ../outside/a/id_rsa",
        "diff ../outside/a/id_rsa ../outside/b/id_rsa",
        "-c core.pager=evil log",
        "-C .. status",
        "--git-dir=/tmp/x log",
        "--work-tree=/ status",
        "--exec-path=/tmp log",
        "log --pathspec-from-file=/etc/passwd",
        "show --show-signature",
        "diff --out=leak.txt",
        "status -",
        "log link/id_rsa",
    ]


def test_escapes_are_confirm_level(repo: Path, outside: Path) -> None:
    (repo / "link").symlink_to(outside / "a")
    tool = Git()
    ctx = ToolContext(Workspace(repo), "main", *_stores())
    for args in escapes(outside):
        assert tool.level_for(GitParams(args=args), ctx) == "confirm", args
    for args in [
        "status -sb",
        "status --porcelain=v1 -uno",
        "diff HEAD~1 -- app.py",
        "diff --cached --stat",
        "log --oneline -n 5",
        "log -5 --format=%H%x09%s",
        "log -S print --since=2.weeks app.py",
        "show HEAD:app.py",
        "show HEAD~1..HEAD",
        "blame -L 1,2 app.py",
        "blame -w -M app.py",
        "log --author 'A B' --grep=x",
        ["diff", "--word-diff", "--", "app.py"],
        "diff -U3 main",
        "log --all --graph",
    ]:
        assert tool.level_for(GitParams(args=args), ctx) == "auto", args


async def test_escapes_reach_nothing_without_approval(fake_llm, repo: Path, outside: Path) -> None:
    (repo / "link").symlink_to(outside / "a")
    attacks = escapes(outside)[:7]
    fake = fake_llm([tool_calls([call("git", {"args": a}) for a in attacks]), text("ok")])
    session = await session_for(fake, repo)
    approver = Approver("no")
    await session.run("look", ev.ignore, approver)
    assert [a.preview for a in approver.asked] == [f"git {a}" for a in attacks]
    for result in results(fake.requests[1]):
        assert "declined" in result and "PRIVATE-KEY" not in result and "root:" not in result


def _stores() -> tuple[Any, Any, Any]:
    from zen.stores.memo import MemoStore
    from zen.stores.read_tracker import ReadTracker
    from zen.stores.todo import TodoStore

    return ReadTracker(), MemoStore(), TodoStore()

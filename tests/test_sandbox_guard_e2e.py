"""The guard end to end: `zen -p` against the fake server runs each attack as a bash call in a
real bwrap; what runs later (the user's git, the next zen) is checked after it.

Skipped, with the reason, where bubblewrap cannot create a sandbox.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import reap, zen_env
from tests.fakes.server import call, text, tool_calls
from tests.test_sandbox_e2e import bash, env, needs_bwrap

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    needs_bwrap,
]
GIT = ["git", "-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@t"]


def git(root: Path, *args: str) -> str:
    done = subprocess.run([*GIT, "-C", str(root), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def repo(project: Path, home: Path) -> Path:
    (home / ".gitconfig").write_text("[user]\n\tname = t\n\temail = t@t\n")
    git(project, "init", "-q")
    git(project, "commit", "-q", "--allow-empty", "-m", "first")
    return project


def test_git_pointers_and_submodule_git_dirs_are_undone(
    fake_llm, run_zen, repo: Path, tmp_path: Path
) -> None:
    lib = tmp_path / "lib"
    subprocess.run([*GIT, "init", "-q", str(lib)], check=True)
    git(lib, "commit", "-q", "--allow-empty", "-m", "lib")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "lib")
    modules = repo / ".git" / "modules" / "lib"
    config = (modules / "config").read_text()
    cmd = (
        "mkdir -p evil && printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > evil/config; "
        "echo ../evil > .git/commondir; echo evil > .git/modules/lib/hooks/pre-commit; "
        "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' >> .git/modules/lib/config; "
        "echo 'gitdir: ../evil' > lib/.git; ls .git"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert not (repo / ".git" / "commondir").exists()
    assert not (modules / "hooks" / "pre-commit").exists()
    assert (modules / "config").read_text() == config
    assert (repo / "lib" / ".git").read_text() == "gitdir: ../.git/modules/lib\n"
    assert ".git/commondir" in told
    git(repo, "status")
    git(repo / "lib", "status")
    assert not list(repo.rglob("PWNED"))


def test_repositories_a_command_creates_lose_their_configuration(
    fake_llm, run_zen, repo: Path
) -> None:
    cmd = (
        "git init -q deep/x && git -C deep/x config core.fsmonitor 'touch PWNED'; "
        "mkdir -p bare/objects bare/refs && echo 'ref: refs/heads/main' > bare/HEAD && "
        "printf '[core]\\n\\tfsmonitor = touch PWNED\\n' > bare/config"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert not (repo / "deep" / "x" / ".git" / "config").exists()
    assert not (repo / "bare" / "config").exists()
    assert "deep/x/.git (a new repository: its configuration was removed)" in told
    git(repo / "deep" / "x", "status")
    assert not list(repo.rglob("PWNED"))


def test_big_files_and_entries_past_thousands_are_undone(fake_llm, run_zen, repo: Path) -> None:
    """Over the byte budget, or after 5,000 entries (a home's ~/.claude), the old guard
    looked away; now a changed entry is removed (a copy is a change: new inode and ctime)
    and an unchanged one left alone, however big."""
    big = os.urandom(4_500_000)
    (repo / ".git" / "hooks" / "pre-push").write_bytes(big)
    (repo / ".idea").mkdir()
    (repo / ".idea" / "big.bin").write_bytes(big)
    (repo / ".claude").mkdir()
    for n in range(5_100):
        (repo / ".claude" / f"{n}.json").write_text("{}")
    cmd = (
        "mv .git .git2 && cp -a .git2/. .git/ && "
        "head -c 4500000 /dev/urandom > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit; "
        "head -c 4500000 /dev/urandom > .envrc; echo evil > .bashrc"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert not (repo / ".envrc").exists() and not (repo / ".bashrc").exists()
    assert not (repo / ".git" / "hooks" / "pre-push").exists()
    assert ".git/hooks/pre-push (removed: no copy was kept)" in told
    assert (repo / ".idea" / "big.bin").read_bytes() == big
    assert ".envrc" in told and ".git/hooks/pre-commit" in told
    git(repo, "status")  # the repository itself still works


def test_editor_and_shell_files_are_protected(fake_llm, run_zen, repo: Path) -> None:
    planted = (
        ".vscode/tasks.json", ".idea/workspace.xml", ".devcontainer/devcontainer.json",
        ".zprofile", ".bash_login", ".zlogin", ".pre-commit-config.yaml",
    )  # fmt: skip
    cmd = "mkdir -p .vscode .idea .devcontainer; " + "; ".join(
        f"echo evil > {path}" for path in planted
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    for path in planted:
        assert not (repo / path).exists(), path
        assert path.split("/")[0] in told


def test_a_workspace_inside_a_repository_commits(fake_llm, run_zen, repo: Path) -> None:
    sub = repo / "sub"
    sub.mkdir()
    cmd = (
        "echo hi > f.txt && git add f.txt && git commit -qm 'from the sandbox' && echo COMMITTED; "
        "echo evil > ../.git/hooks/pre-commit; echo ../x > ../.git/commondir"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env(), cwd=sub)
    assert "COMMITTED" in told, told
    assert "from the sandbox" in git(repo, "log", "--oneline", "-1")
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert not (repo / ".git" / "commondir").exists()


def background(home: Path, project: Path, fake: Any, tmp: Path) -> subprocess.Popen[str]:
    """A `zen -p --yes` left running in `project` (its temp folders under `tmp`)."""
    return subprocess.Popen(
        [sys.executable, "-m", "zen", "-p", "go", "--yes", "--base-url", fake.base_url,
         "--model", "fake-model"],
        cwd=project,
        env={**zen_env(home), **env(TMPDIR=str(tmp))},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip


def running(
    fake_llm: Any, home: Path, repo: Path, tmp: Path, cmd: str
) -> tuple[subprocess.Popen[str], Any]:
    """A zen whose sandboxed `cmd` has started (it touches `started` in the workspace), and
    its fake server."""
    fake = fake_llm([tool_calls([call("bash", {"command": cmd, "timeout": 600})]), text("x")])
    proc = background(home, repo, fake, tmp)
    deadline = time.monotonic() + 60
    while not (repo / "started").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            reap(proc)
            raise AssertionError(proc.stderr.read() if proc.stderr else "never started")
        time.sleep(0.05)
    return proc, fake


def next_zen(fake_llm: Any, run_zen: Any, tmp: Path) -> Any:
    """Another zen started in the workspace (it answers without a tool)."""
    fake = fake_llm([text("ok")])
    done = run_zen(
        "-p", "hi", "--base-url", fake.base_url, "--model", "m", env=env(TMPDIR=str(tmp))
    )
    assert done.code == 0, done.err
    return done


@pytest.fixture
def tmp(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "tmp"
    folder.mkdir()
    yield folder


def test_a_killed_zen_is_undone_at_the_next_start(
    fake_llm, run_zen, repo: Path, home: Path, tmp: Path
) -> None:
    cmd = (
        "mkdir -p .vscode && echo evil > .vscode/tasks.json && echo ../evil > .git/commondir; "
        "touch started; sleep 300"
    )
    proc, _ = running(fake_llm, home, repo, tmp, cmd)
    proc.kill()
    reap(proc)
    (left,) = tmp.glob("zen-sandbox-*")  # the command's private folder (its /tmp is inside)
    assert left.is_dir() and (repo / ".vscode").exists()
    done = next_zen(fake_llm, run_zen, tmp)
    assert "killed zen" in done.err and ".vscode" in done.err
    assert not (repo / ".vscode").exists() and not (repo / ".git" / "commondir").exists()
    assert not left.exists() and list(tmp.iterdir()) == []
    assert list((home / ".zen" / "sandbox").iterdir()) == []


def test_a_second_zen_never_undoes_a_running_command(
    fake_llm, run_zen, repo: Path, home: Path, tmp: Path
) -> None:
    cmd = (
        "mkdir -p .vscode && echo mine > .vscode/tasks.json; touch started; "
        "while [ ! -e go ]; do sleep 0.05; done"
    )
    proc, fake = running(fake_llm, home, repo, tmp, cmd)
    try:
        done = next_zen(fake_llm, run_zen, tmp)
        assert "killed zen" not in done.err, done.err
        assert (repo / ".vscode" / "tasks.json").read_text() == "mine\n"
        assert len(list(tmp.glob("zen-sandbox-*"))) == 1  # the running command's, kept
        (repo / "go").touch()
        assert proc.wait(timeout=60) == 0
    finally:
        reap(proc)
    assert not (repo / ".vscode").exists()  # the first zen's own undo, once its command ended
    assert ".vscode" in str(fake.requests[-1]["messages"][-1]["content"])

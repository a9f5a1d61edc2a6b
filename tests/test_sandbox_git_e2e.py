"""git calls that are not reading calls run in the sandbox (issue 35, break 9): `zen -p`
against the fake server, a real repository, a real bwrap.

Every way git runs a program (an alias, `-c`, `--config-env`, `--upload-pack`, `core.sshCommand`,
`ext::`, `rebase -x`, `submodule foreach`) is tried in one run, each trying to write outside the
workspace; none may. A commit still works, and the undo guard covers git as it covers bash.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from zen.tools.sandbox.runner import probe_now

_found = probe_now()
pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    pytest.mark.skipif(_found.program is None, reason=f"no working sandbox here: {_found.problem}"),
]

GITCONFIG = "[user]\n\tname = Test\n\temail = test@example.com\n"


def git(repo: Path, *args: str, home: Path) -> str:
    env = {**os.environ, "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1"}
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=env
    ).stdout


@pytest.fixture
def repo(project: Path, home: Path, tmp_path: Path) -> Path:
    """Two commits and a submodule; a bare remote outside the workspace."""
    (home / ".gitconfig").write_text(GITCONFIG)
    sub = tmp_path / "sub"
    sub.mkdir()
    git(sub, "init", "-q", "-b", "main", home=home)
    git(sub, "commit", "-q", "--allow-empty", "-m", "sub", home=home)
    git(project, "init", "-q", "-b", "main", home=home)
    (project / "app.py").write_text("print(1)\n")
    git(project, "add", ".", home=home)
    git(project, "commit", "-q", "-m", "first", home=home)
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "sub",
        home=home)  # fmt: skip
    git(project, "commit", "-q", "-m", "second", home=home)
    git(tmp_path, "init", "-q", "--bare", "remote.git", home=home)
    git(project, "remote", "add", "origin", str(tmp_path / "remote.git"), home=home)
    return project


def attacks(out: Path) -> list[tuple[str, str]]:
    """(name, git args): each would write `out/<name>` if it ran outside the sandbox."""
    touch = f"touch {out}"
    return [
        ("alias", f"-c alias.x='!{touch}/alias' x"),
        ("global", f"config --global alias.y '!{touch}/global'"),
        ("config-env", "--config-env=alias.z=EVIL_ALIAS z"),
        ("upload-pack", f"ls-remote --upload-pack='{touch}/upload-pack #' ."),
        ("ssh", f"-c core.sshCommand=\"sh -c '{touch}/ssh' --\" fetch ssh://example.invalid/x"),
        ("ext", f"clone 'ext::sh -c touch% {out}/ext' ext-clone"),
        ("rebase", f"rebase -x '{touch}/rebase' HEAD~1"),
        ("foreach", f"submodule foreach '{touch}/foreach'"),
        ("fsmonitor", f"config core.fsmonitor '{touch}/fsmonitor'"),
    ]


def run(fake_llm: Any, run_zen: Any, calls: list[str], *flags: str, **kw: Any) -> list[str]:
    """One turn of git calls through `zen -p`; what the model was told for each."""
    script = [call("git", {"args": args}) for args in calls]
    fake = fake_llm([tool_calls(script), text("done")])
    done = run_zen("-p", "go", "--base-url", fake.base_url, "--model", "m", *flags, **kw)
    assert "Traceback" not in done.err, done.err
    told = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(told) == len(calls), done.err
    return told


@pytest.mark.parametrize("flags", [["--yes"], ["--yes", "--sandbox", "on"]])
def test_no_git_call_writes_outside_the_workspace(
    fake_llm, run_zen, repo: Path, home: Path, tmp_path: Path, flags: list[str]
) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    config = repo / ".git" / "config"
    before = config.read_text()
    tried = attacks(out)
    env = {"EVIL_ALIAS": f"!touch {out}/config-env", "GIT_CONFIG_NOSYSTEM": "1"}
    told = run(fake_llm, run_zen, [args for _, args in tried], *flags, env=env)
    written = sorted(p.name for p in out.iterdir())
    assert written == [], (written, told)  # before: alias, config-env, foreach, rebase, ssh...
    assert (home / ".gitconfig").read_text() == GITCONFIG
    assert config.read_text() == before


def test_a_commit_works_a_push_does_not_and_the_guard_undoes(
    fake_llm, run_zen, repo: Path, home: Path, tmp_path: Path
) -> None:
    (repo / "new.txt").write_text("new\n")
    calls = [
        "add new.txt",
        "commit -m 'from the sandbox'",
        "push origin main",
        "-c alias.plant='!echo evil > .envrc' plant",
    ]
    told = run(fake_llm, run_zen, calls, "--yes", env={"GIT_CONFIG_NOSYSTEM": "1"})
    log = git(repo, "log", "--format=%s", home=home).split("\n")
    assert log[0] == "from the sandbox", told[1]
    assert "exited with" in told[2] and "ran in the sandbox: no network" in told[2]
    assert git(tmp_path / "remote.git", "branch", home=home) == ""  # nothing arrived
    assert not (repo / ".envrc").exists()
    assert "the sandbox undid changes to .envrc" in told[3]

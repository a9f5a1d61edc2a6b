"""The sandbox attacked again as a whole (issue 35's campaign, second round), through `zen -p`
and a real bwrap: each test is a hole this round found, failing before its fix. The attempts
that held are listed in docs/security.md. Skipped where bubblewrap cannot create a sandbox.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import test_sandbox_guard_e2e as guard_e2e
from tests.fakes.server import call, text, tool_calls
from tests.test_sandbox_e2e import bash, config, env, needs_bwrap

git = guard_e2e.git
repo = guard_e2e.repo  # the fixture: a repository with one commit

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    needs_bwrap,
]


def plant(marker: Path) -> str:
    """A shell line that writes an executable script touching `marker` to the path in $1."""
    script = f"printf '#!/bin/sh\\ntouch {marker}\\n' > $1"
    return f'w() {{ mkdir -p "$(dirname $1)"; {script}; chmod +x $1; }}'


def test_hooks_and_config_that_git_config_names_in_the_work_tree_are_guarded(
    fake_llm, run_zen, repo: Path, tmp_path: Path
) -> None:
    """`core.hooksPath = tools/hooks` (hooks kept in the work tree), `include.path` to a file
    there and `core.fsmonitor` naming a script there: writing them ran code at the user's
    next `git commit` / `git status`."""
    marker = tmp_path / "PWNED"
    (repo / "tools" / "hooks").mkdir(parents=True)
    (repo / "tools" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    (repo / "tools" / "hooks" / "pre-commit").chmod(0o755)
    (repo / "conf").mkdir()
    (repo / "conf" / "gitconfig").write_text("[user]\n\tname = t\n")
    git(repo, "config", "core.hooksPath", "tools/hooks")
    git(repo, "config", "include.path", "../conf/gitconfig")
    git(repo, "config", "alias.fmt", "!./scripts/fmt.sh")
    cmd = (
        f"{plant(marker)}; w tools/hooks/pre-commit; w tools/hooks/post-commit; "
        f"w scripts/fmt.sh; printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> conf/gitconfig; "
        "echo ok > src.txt"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert "Read-only file system" in told, told
    assert (repo / "src.txt").read_text() == "ok\n"  # the rest of the work tree is the model's
    git(repo, "status")
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    subprocess.run(["git", "-C", str(repo), "fmt"], capture_output=True)
    assert not marker.exists() and not (repo / "scripts" / "fmt.sh").exists()


def test_a_home_used_as_workspace_keeps_its_dot_files_and_path(
    fake_llm, run_zen, home: Path, tmp_path: Path
) -> None:
    """zen started in ~: the home is the workspace, so it is not made fresh, and a command
    wrote `~/.gitconfig` (an fsmonitor every `git status` runs), `~/.local/bin/git`
    (before the real git on PATH), `~/bin/ls`, `~/.config/autostart/`, `~/.vimrc`."""
    marker = tmp_path / "PWNED"
    (home / ".gitconfig").write_text("[user]\n\tname = t\n")
    (home / ".local" / "bin").mkdir(parents=True)
    (home / "bin").mkdir()
    (home / ".config").mkdir()
    path = f"{home / '.local' / 'bin'}:{home / 'bin'}:{os.environ['PATH']}"
    cmd = (
        f"{plant(marker)}; printf '[core]\\n\\tfsmonitor = touch {marker}\\n' >> ~/.gitconfig; "
        "w ~/.local/bin/git; w ~/bin/ls; w ~/.config/autostart/x.desktop; w ~/.vimrc; "
        "w ~/.newtool/init.sh; echo kept > ~/notes.txt"
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env(PATH=path), cwd=home)
    assert "Read-only file system" in told, told
    assert (home / ".gitconfig").read_text() == "[user]\n\tname = t\n"
    assert list((home / ".local" / "bin").iterdir()) == []
    assert list((home / "bin").iterdir()) == []
    assert list((home / ".config").iterdir()) == []
    assert not (home / ".vimrc").exists() and not (home / ".newtool").exists()
    assert (home / "notes.txt").read_text() == "kept\n"
    subprocess.run(["git", "-C", str(home), "status"], capture_output=True)
    assert not marker.exists()


def test_folders_nested_past_pythons_stack_are_still_undone(fake_llm, run_zen, repo: Path) -> None:
    """1,100 folders one in another under `.vscode/`: the walk recursed once per level, hit
    Python's recursion limit, and the bash call failed with nothing undone (the planted
    `tasks.json` stayed)."""
    deep = "import os\nfor _ in range(1100):\n    os.mkdir('a'); os.chdir('a')\n"
    cmd = (
        "mkdir .vscode && echo '{}' > .vscode/tasks.json && cd .vscode && "
        f'python3 -c "{deep}" && echo NESTED'
    )
    done, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert "NESTED" in told and "RecursionError" not in done.err + told, done.err
    assert not (repo / ".vscode").exists()
    assert ".vscode" in told


def test_a_fifo_a_command_leaves_as_gitignore_does_not_hang_glob(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    """`mkfifo .gitignore` in the sandbox, then the model's next call, glob, opened it to read
    its rules and waited for a writer that never comes: zen hung with no deadline.
    (Checkpoints are off here: their `git ls-files` waits on it too, but 60 s at most.)"""
    config(home, "checkpoints: {enabled: off}\n")
    (project / "a.py").write_text("x = 1\n")
    steps = [call("bash", {"command": "mkfifo .gitignore && echo MADE"})]
    fake = fake_llm(
        [tool_calls(steps), tool_calls([call("glob", {"pattern": "**/*.py"})]), text("done")]
    )
    done = run_zen(
        "-p", "go", "--base-url", fake.base_url, "--model", "fake-model", "--yes",
        env=env(), timeout=90,
    )  # fmt: skip
    assert done.code == 0, done.err
    told = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert "MADE" in told[0] and "a.py" in told[1]


@pytest.mark.parametrize(
    "alias", ["!sh scripts/t.sh", "!sh<scripts/t.sh", '!sh -c "$(cat scripts/t.sh)"']
)
def test_a_script_git_config_runs_through_an_interpreter_is_guarded(
    fake_llm, run_zen, repo: Path, tmp_path: Path, alias: str
) -> None:
    """`alias.t = !sh scripts/t.sh` and a clean filter `python3 tools/clean.py`: the program
    is the interpreter, the script it runs is in the work tree; rewriting the script ran code
    at the user's next `git t` / `git add` (third round)."""
    marker = tmp_path / "PWNED"
    (repo / "scripts").mkdir()
    (repo / "scripts" / "t.sh").write_text("true\n")
    git(repo, "config", "alias.t", alias)  # a redirection or $( ) hides the script (fourth round)
    cmd = f"printf 'touch {marker}\\n' > scripts/t.sh; echo ok > src.txt"
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert (repo / "src.txt").read_text() == "ok\n"
    subprocess.run(["git", "-C", str(repo), "t"], capture_output=True)
    assert not marker.exists(), told

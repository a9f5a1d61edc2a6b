"""The sandbox's pure parts: the bwrap argv, the macOS profile, the environment scrub, the
guard that undoes changes to the workspace's configuration, and the settings' checks."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from zen.settings.sandbox_options import SandboxOptions
from zen.tools.sandbox import guard
from zen.tools.sandbox.bwrap import Plan, bwrap_argv
from zen.tools.sandbox.macos import seatbelt_profile
from zen.tools.sandbox.runner import Sandbox

WS, TMP = Path("/w/ws"), Path("/w/tmp")
P = Path("/Users/u/.pyenv")


def test_bwrap_mounts_secrets_last_and_network_only_when_allowed(tmp_path: Path) -> None:
    secret = tmp_path / ".ssh"
    secret.mkdir()
    home = Path("/w")
    plan = Plan(
        WS, TMP, writable=[Path("/w/cache")], read_only=[WS / ".zen"], hidden=[secret],
        homes=[home], shown=[(Path("/opt/py"), home / ".pyenv")], sized=True, seccomp_fd=7,
    )  # fmt: skip
    argv = bwrap_argv("bwrap", plan, ["/bin/bash", "-c", "ls"])
    assert argv[:4] == ["bwrap", "--ro-bind", "/", "/"]
    assert argv[-4:] == ["--", "/bin/bash", "-c", "ls"]
    # the fresh home before what is shown in it and before the workspace inside it
    places = ["/tmp", str(home), "/w/.pyenv", "/w/cache", str(WS), str(WS / ".zen"), str(secret)]
    order = [argv.index(x) for x in places]
    assert order == sorted(order)
    assert argv[argv.index("/tmp") - 3 : argv.index("/tmp")] == ["--size", str(1 << 30), "--tmpfs"]
    assert argv[argv.index("/dev/shm") - 2] == str(256 << 20)
    assert argv[argv.index(str(home)) - 1] == "--tmpfs"
    assert argv[argv.index("--seccomp") + 1] == "7"
    assert argv[argv.index(str(secret)) - 1] == "--tmpfs"
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    networked = bwrap_argv("bwrap", Plan(WS, TMP, network=True), ["true"])
    assert "--unshare-net" not in networked


def test_bwrap_without_size_uses_folders_and_hides_a_file_with_an_empty_file(
    tmp_path: Path,
) -> None:
    """bubblewrap before 0.7.0 (or setuid) has no `--size`: the fresh places are folders of
    the command's private directory. A hidden file is an empty regular file: /dev/null on a
    `nodev` bind read as EACCES."""
    secret = tmp_path / ".pgpass"
    secret.write_text("x")
    plan = Plan(WS, TMP, hidden=[secret], homes=[Path("/h")])
    argv = bwrap_argv("bwrap", plan, ["true"])
    assert "--size" not in argv
    assert argv[argv.index("/tmp") - 2 : argv.index("/tmp")] == ["--bind", str(TMP / "tmp")]
    assert argv[argv.index("/dev/shm") - 1] == str(TMP / "shm")
    assert argv[argv.index("/h") - 1] == str(TMP / "home0")
    assert argv[argv.index(str(secret)) - 1] == str(TMP / "empty")


def test_seatbelt_profile_says_what_bwrap_enforces() -> None:
    plan = Plan(WS, TMP, writable=[Path("/w/cache")])
    profile = seatbelt_profile(plan, [Path("/home/u/.ssh"), Path('/home/u/we"ird')])
    lines = profile.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    allow = profile.index("(allow file-write*")
    for path in (WS, TMP, "/w/cache"):
        assert f'(subpath "{path}")' in profile[allow:]
    deny_config = profile.index("(deny file-write*\n")
    assert deny_config > allow and '(subpath "/w/ws/.git/hooks")' in profile[deny_config:]
    assert '(subpath "/w/ws/.envrc")' in profile  # denied even before it exists
    secrets = profile.index("(deny file-read* file-write*")
    assert '(subpath "/home/u/.ssh")' in profile[secrets:]
    assert '(subpath "/home/u/we\\"ird")' in profile  # a quote cannot end the rule
    assert lines[-2:] == ["(deny network*)", "(deny network-outbound (remote unix-socket))"]
    homed = seatbelt_profile(Plan(WS, TMP, homes=[Path("/Users/u")], shown=[(P, P)]), [])
    assert homed.index('(deny file-read*\n  (subpath "/Users/u")') < homed.index(
        '(allow file-read*\n  (subpath "/Users/u/.pyenv")'
    )
    assert "(deny network*)" not in seatbelt_profile(Plan(WS, TMP, network=True), [])


def test_environment_scrub() -> None:
    box = Sandbox("auto", SandboxOptions(hidden_env=["corp_*"]))
    environ = {
        "PATH": "/bin",
        "HOME": "/h",
        "AWS_PROFILE": "x",
        "GITHUB_TOKEN": "x",
        "npm_token": "x",
        "OPENAI_API_KEY": "x",
        "DB_PASSWORD": "x",
        "SSH_AUTH_SOCK": "x",
        "DOCKER_HOST": "x",
        "DBUS_SESSION_BUS_ADDRESS": "x",
        "CORP_URL": "x",
        "LANG": "C.UTF-8",
    }
    assert box.env(environ) == {"PATH": "/bin", "HOME": "/h", "LANG": "C.UTF-8"}
    more = Sandbox("auto", SandboxOptions(env=["CORP_*", "NPM_TOKEN"], hidden_env=["CORP_X"]))
    environ.update(CORP_X="x", CORP_API_KEY="x", NPM_TOKEN="x", HTTPS_PROXY="x", LC_ALL="C")
    assert sorted(more.env(environ)) == [
        "CORP_URL", "HOME", "LANG", "LC_ALL", "NPM_TOKEN", "PATH", "npm_token",
    ]  # fmt: skip
    kept = Sandbox("auto", SandboxOptions(), keep=frozenset({"OPENAI_API_KEY"}))  # inherits
    assert "OPENAI_API_KEY" in kept.env(environ) and "GITHUB_TOKEN" not in kept.env(environ)


def test_guard_puts_back_changed_and_removes_planted(tmp_path: Path) -> None:
    hooks = tmp_path / ".git" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-push").write_text("ok\n")
    (hooks / "pre-push").chmod(0o750)
    before = guard.record(tmp_path)
    (hooks / "pre-push").write_text("evil\n")
    (hooks / "post-merge").write_text("evil\n")
    (tmp_path / ".envrc").symlink_to("/etc/passwd")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{}")
    (tmp_path / "other").write_text("kept")
    undone = guard.restore(tmp_path, before)
    assert undone == [".claude", ".envrc", ".git/hooks/post-merge", ".git/hooks/pre-push"]
    assert (hooks / "pre-push").read_text() == "ok\n"
    assert (hooks / "pre-push").stat().st_mode & 0o777 == 0o750
    assert sorted(p.name for p in hooks.iterdir()) == ["pre-push"]
    assert not (tmp_path / ".envrc").is_symlink() and not (tmp_path / ".claude").exists()
    assert (tmp_path / "other").read_text() == "kept"
    assert guard.restore(tmp_path, before) == []


@pytest.mark.parametrize(
    ("field", "value", "says"),
    [
        ("writable", ["rel"], "is relative"),
        ("hidden", ["a/../b"], "contains '..'"),
        ("writable", ["/x/../etc"], "contains '..'"),
        ("writable", ["~/.aws/sub"], "would expose the secret"),
        ("writable", ["~/.zen"], "would expose the secret"),
        ("network", "maybe", "network"),
    ],
)
def test_options_refuse_hostile_entries(field: str, value: object, says: str) -> None:
    with pytest.raises(ValidationError, match=r"(?s)" + says.replace(".", r"\.")):
        SandboxOptions.model_validate({field: value})


def test_options_accept_plain_entries() -> None:
    options = SandboxOptions.model_validate(
        {"writable": ["~/.cache", "/opt/x"], "network": True, "hidden": ["~/.vault"]}
    )
    assert options.network == "on"


def test_guard_skips_hidden_paths_and_stops_at_its_limits(tmp_path: Path) -> None:
    """A home used as workspace: its ~/.zen is hidden (so skipped, however big it is)."""
    (tmp_path / ".zen" / "snapshots").mkdir(parents=True)
    (tmp_path / ".envrc").write_text("x")
    snap = guard.record(tmp_path, skip=[tmp_path / ".zen"])
    assert list(snap) == [".envrc"]
    many = tmp_path / ".claude"
    many.mkdir()
    for n in range(guard.MAX_ENTRIES + 10):
        (many / str(n)).touch()
    assert len(guard.record(tmp_path)) <= guard.MAX_ENTRIES


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need privileges on Windows")
def test_guard_never_reads_deletes_or_writes_through_a_swapped_in_symlink(tmp_path: Path) -> None:
    """`mv .git x && ln -s ../other/.git .git`: undoing must not touch the other repository."""
    root, other = tmp_path / "ws", tmp_path / "other"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "hooks" / "pre-commit").write_text("mine\n")
    (other / ".git" / "hooks").mkdir(parents=True)
    (other / ".git" / "hooks" / "pre-commit").write_text("theirs\n")
    (other / ".git" / "hooks" / "post-merge").write_text("theirs too\n")
    (other / ".git" / "config").write_text("[core]\n")
    before = guard.record(root)
    (root / ".git").rename(root / "moved")
    (root / ".git").symlink_to(other / ".git")
    guard.restore(root, before)
    assert (other / ".git" / "hooks" / "pre-commit").read_text() == "theirs\n"
    assert (other / ".git" / "hooks" / "post-merge").read_text() == "theirs too\n"
    assert (other / ".git" / "config").read_text() == "[core]\n"
    assert not (root / ".git").is_symlink()
    assert (root / ".git" / "hooks" / "pre-commit").read_text() == "mine\n"

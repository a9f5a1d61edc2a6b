"""The sandbox's pure parts: the bwrap argv, the macOS profile, the environment scrub and the
settings' checks (the guard has test_sandbox_guard.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from zen.settings.sandbox_options import SandboxOptions
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
    plan = Plan(WS, TMP, writable=[Path("/w/cache")], read_only=[WS / ".git" / "config"])
    profile = seatbelt_profile(plan, [Path("/home/u/.ssh"), Path('/home/u/we"ird')])
    lines = profile.splitlines()
    assert lines[:3] == ["(version 1)", "(allow default)", "(deny file-write*)"]
    allow = profile.index("(allow file-write*")
    for path in (WS, TMP, "/w/cache"):
        assert f'(subpath "{path}")' in profile[allow:]
    deny_config = profile.index("(deny file-write*\n")
    assert deny_config > allow and '(subpath "/w/ws/.git/config")' in profile[deny_config:]
    for path in ("/w/ws/.envrc", "/w/ws/.vscode", "/w/ws/.zprofile", "/w/ws/.zlogin"):
        assert f'(subpath "{path}")' in profile  # denied even before it exists
    git = r'(regex #"^/w/ws/(.*/)?\.git/((modules|worktrees)/.+/)?(config|config\.worktree|'
    assert git in profile[deny_config:]  # any repository's configuration, new ones too
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


def test_a_venv_in_a_scratch_folder_is_bound_back(tmp_path: Path) -> None:
    """A checkout and its venv under /tmp (a CI clone): /tmp is fresh inside, so the venv on
    PATH is bound back read-only, or its python is not there (bwrap: execvp ... No such file)."""
    from zen.tools.sandbox import home

    venv = tmp_path / "clone" / ".venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    environ = {"PATH": f"{venv / 'bin'}:/usr/bin"}
    workspace = tmp_path / "clone" / "ws"
    args = (environ, [], [workspace], [])
    assert home.shown([], *args) == []  # without the scratch folder: nothing (the old fault)
    shown = dict(home.shown([], *args, scratch=[tmp_path]))
    assert shown[venv] == venv and shown[venv / "bin"] == venv / "bin"

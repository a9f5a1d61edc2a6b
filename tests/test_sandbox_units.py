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


def test_bwrap_mounts_secrets_last_and_network_only_when_allowed(tmp_path: Path) -> None:
    secret = tmp_path / ".ssh"
    secret.mkdir()
    plan = Plan(WS, TMP, writable=[Path("/w/cache")], read_only=[WS / ".zen"], hidden=[secret])
    argv = bwrap_argv("bwrap", plan, ["/bin/bash", "-c", "ls"])
    assert argv[:4] == ["bwrap", "--ro-bind", "/", "/"]
    assert argv[-4:] == ["--", "/bin/bash", "-c", "ls"]
    order = [argv.index(x) for x in (str(WS), str(TMP), "/w/cache", str(WS / ".zen"), str(secret))]
    assert order == sorted(order)
    assert argv[argv.index(str(secret)) - 1] == "--tmpfs"
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in argv
    assert argv[argv.index("--cap-drop") + 1] == "ALL"
    networked = bwrap_argv("bwrap", Plan(WS, TMP, network=True), ["true"])
    assert "--unshare-net" not in networked


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
    assert lines[-1] == "(deny network*)"
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

"""The record of configs that passed the start-up checks (zen/settings/config_check.py): any input
that can change the answer changes the digest, and the record is private."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest

from zen.settings import config_check


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    (home / ".zen").mkdir(parents=True)
    (home / ".zen" / "config.yaml").write_text("model: ${MY_MODEL}\n", encoding="utf-8")
    return {"HOME": str(home), "MY_MODEL": "m1", "PATH": "/bin"}


def digest(tmp_path: Path, env: dict[str, str], **kw: object) -> str | None:
    cli = kw.pop("cli", {})
    trusted = bool(kw.pop("trusted", False))
    return config_check.digest(tmp_path / "ws", cli, trusted=trusted, env=env)  # type: ignore[arg-type]


def test_every_input_changes_the_digest(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / "ws" / ".zen").mkdir(parents=True)
    base = digest(tmp_path, env)
    assert base is not None and base == digest(tmp_path, env)
    assert digest(tmp_path, {**env, "PATH": "/usr/bin", "SHLVL": "2"}) == base  # unrelated
    changed = [
        digest(tmp_path, {**env, "MY_MODEL": "m2"}),  # a variable the file names
        digest(tmp_path, {**env, "ZEN_MODEL": "x"}),
        digest(tmp_path, {**env, "DEEPSEEK_API_KEY": "sk"}),
        digest(tmp_path, {**env, "OPENAI_BASE_URL": "http://h"}),
        digest(tmp_path, env, cli={"model": "y"}),
        digest(tmp_path, env, trusted=True),
    ]
    (Path(env["HOME"]) / ".zen" / "config.yaml").write_text("model: ${MY_MODEL} \n")
    changed.append(digest(tmp_path, env))
    assert len({base, *changed}) == len(changed) + 1
    trusted = digest(tmp_path, env, trusted=True)
    (tmp_path / "ws" / ".zen" / "config.yaml").write_text("max_turns: 3\n")
    assert digest(tmp_path, env, trusted=True) != trusted
    assert digest(tmp_path, env) == changed[-1]  # an untrusted project's file is not read


def test_unreadable_or_huge_inputs_are_never_fast(tmp_path: Path, env: dict[str, str]) -> None:
    config = Path(env["HOME"]) / ".zen" / "config.yaml"
    config.write_bytes(b"#" * (config_check.READ_LIMIT + 1))
    assert digest(tmp_path, env) is None
    config.unlink()
    config.mkdir()
    assert digest(tmp_path, env) is None


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_the_record_is_private_and_a_broken_one_is_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_check.known("k") is None
    config_check.remember("k", {"mode": "single"})
    assert config_check.known("k") == {"mode": "single"}
    path = config_check.store_path()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    for i in range(config_check.KEEP + 5):
        config_check.remember(f"k{i}", {})
    assert config_check.known("k") is None  # the oldest went first
    path.write_text("{not json", encoding="utf-8")
    assert config_check.known("k0") is None
    config_check.remember("again", {"mode": "dual"})
    assert config_check.known("again") == {"mode": "dual"}

"""Config files cannot cost more than they are worth (issue 9 item 8): an alias bomb, a huge
file or a FIFO named as the project config fail fast with a ConfigError naming the file."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from zen.settings.loading import load_config
from zen.settings.schema import ConfigError


def bomb(levels: int = 9) -> str:
    text = "a: &a [" + ", ".join(['"lol"'] * 9) + "]\n"
    previous = "a"
    for name in "bcdefghijkl"[: levels - 1]:
        text += f"{name}: &{name} [" + ", ".join([f"*{previous}"] * 9) + "]\n"
        previous = name
    return text + f"prompts: *{previous}\n"


def project_config(tmp_path: Path, content: str | bytes) -> Path:
    folder = tmp_path / "p" / ".zen"
    folder.mkdir(parents=True)
    path = folder / "config.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


def test_alias_bomb_is_rejected_fast(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    path = project_config(tmp_path, bomb())
    started = time.monotonic()
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path / "p", trusted=True)
    assert time.monotonic() - started < 1.0
    assert str(path) in str(caught.value) and "alias" in str(caught.value)


def test_recursive_alias_is_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    path = project_config(tmp_path, "prompts: &x [*x]\n")
    with pytest.raises(ConfigError, match=re.escape(str(path))):
        load_config(tmp_path / "p", trusted=True)


def test_a_few_aliases_are_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    project_config(
        tmp_path,
        "x-base: &perm confirm\npermissions: {bash: *perm, git: *perm}\n".replace(
            "x-base: &perm confirm\n", "max_turns: &n 7\ncoder_max_turns: *n\n"
        ).replace("{bash: *perm, git: *perm}", "{}"),
    )
    config = load_config(tmp_path / "p", trusted=True)
    assert config.max_turns == 7 and config.coder_max_turns == 7


def test_huge_config_is_rejected_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    path = project_config(tmp_path, b"# " + b"x" * 2_000_000 + b"\n")
    with pytest.raises(ConfigError, match="limit is 1,000,000"):
        load_config(tmp_path / "p", trusted=True)
    assert path.exists()


@pytest.mark.skipif(os.name != "posix", reason="FIFOs are POSIX")
def test_fifo_as_config_does_not_hang(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("USERPROFILE", str(tmp_path / "home"))
    folder = tmp_path / "p" / ".zen"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "config.yaml")
    with pytest.raises(ConfigError, match="not a regular file"):
        load_config(tmp_path / "p", trusted=True)

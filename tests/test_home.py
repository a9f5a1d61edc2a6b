"""One home directory for everything zen keeps (config, history, sessions, MCP logs):
`zen.base.paths.user_home`, i.e. `Path.home()` — USERPROFILE on Windows, HOME elsewhere."""

from __future__ import annotations

import os
import re
from pathlib import Path

from zen.base import paths
from zen.settings.loading import load_config

ZEN = Path(__file__).resolve().parent.parent / "zen"


def test_the_config_is_read_from_the_same_home_as_everything_else(tmp_path: Path) -> None:
    """Windows used to read `~/.zen/config.yaml` from HOME while logs went to USERPROFILE."""
    posix, windows = tmp_path / "posix", tmp_path / "windows"
    for home, turns in ((posix, 3), (windows, 7)):
        (home / ".zen").mkdir(parents=True)
        (home / ".zen" / "config.yaml").write_text(f"max_turns: {turns}\n")
    env = {"HOME": str(posix), "USERPROFILE": str(windows)}
    expected = 7 if os.name == "nt" else 3
    assert load_config(tmp_path, env=env).max_turns == expected
    assert paths.user_home(env) == (windows if os.name == "nt" else posix)
    assert paths.zen_home() == paths.user_home() / ".zen" == Path.home() / ".zen"


def test_a_leading_tilde_is_the_same_home(tmp_path: Path) -> None:
    home = Path.home()
    assert paths.expand_user("~") == home
    assert paths.expand_user("~/a/b.txt") == home / "a" / "b.txt"
    assert paths.expand_user("a/~/b") == Path("a/~/b")
    assert paths.expand_user("~other/x") == Path("~other/x")  # never another user's home
    if os.name == "nt":
        assert paths.expand_user("~\\a.txt") == home / "a.txt"


def test_no_other_module_finds_the_home_directory_its_own_way() -> None:
    own_way = re.compile(
        r"Path\.home\(|expanduser\(|(?:get|getenv)\(\s*[\"'](?:HOME|USERPROFILE)[\"']"
        r"|\[\s*[\"'](?:HOME|USERPROFILE)[\"']\s*\]"
    )
    found = [
        f"{path.relative_to(ZEN)}: {match[0]}"
        for path in ZEN.rglob("*.py")
        if path != ZEN / "base" / "paths.py"
        for match in own_way.finditer(path.read_text(encoding="utf-8"))
    ]
    assert found == []

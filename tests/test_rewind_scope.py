"""Snapshots never hold zen's own state: started in the home folder they leave `~/.zen` out
(only when the user agreed), started in `/` there are none, and everything else still works."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")


def args_for(fake: Any, *extra: str) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model", *extra]


def zen_state(home: Path) -> dict[str, int]:
    """Every file under ~/.zen except the temporary ones: (path → size)."""
    return {
        p.relative_to(home).as_posix(): p.stat().st_size
        for p in (home / ".zen").rglob("*")
        if p.is_file() and "index-" not in p.name
    }


def test_in_the_home_folder_snapshots_leave_zen_out_and_a_forced_rewind_keeps_it(
    fake_llm: Any, run_zen: Any, home: Path
) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("KEY\n")
    (home / "notes.txt").write_text("mine\n")
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text("features: {git: off}\n")
    first = [tool_calls([call("bash", {"command": "echo zen >> notes.txt"})]), text("ok")]
    fake = fake_llm([*first, *first])
    done = run_zen("-p", "go", *args_for(fake, "--yes"), cwd=home)
    assert done.code == 0, done.err
    assert "checkpoints are off" not in done.err
    # A second run writes the session database again, outside any turn of the first.
    assert run_zen("-p", "again", *args_for(fake, "--yes"), cwd=home).code == 0
    assert (home / "notes.txt").read_text() == "mine\nzen\nzen\n"
    kept = zen_state(home)

    rewound = run_zen("rewind", "--force", cwd=home)
    assert rewound.code == 0, rewound.err
    assert ".zen" not in rewound.out + rewound.err
    assert (home / "notes.txt").read_text() == "mine\nzen\n"
    now = zen_state(home)
    assert all(path in now for path in kept)  # nothing of zen's own state was deleted
    assert (home / ".ssh" / "id_rsa").read_text() == "KEY\n"
    assert run_zen("rewind", cwd=home).code == 0  # the checkpoints still work
    assert (home / "notes.txt").read_text() == "mine\n"


def test_in_the_home_folder_p_without_yes_takes_no_snapshot_and_says_so(
    fake_llm: Any, run_zen: Any, home: Path
) -> None:
    fake = fake_llm([tool_calls([call("bash", {"command": "true"})]), text("ok")])
    done = run_zen("-p", "go", "--output-format", "json", *args_for(fake), cwd=home)
    assert json.loads(done.out)["checkpoint"] is None
    said = [line for line in done.err.splitlines() if "checkpoints are off" in line]
    assert len(said) == 1 and "home folder" in said[0] and "--yes" in said[0]
    assert not (home / ".zen" / "snapshots").exists()


def test_in_the_root_folder_there_are_no_snapshots_and_the_run_works(
    fake_llm: Any, run_zen: Any, home: Path
) -> None:
    script = [tool_calls([call("bash", {"command": "echo fine"})]), text("done")]
    fake = fake_llm(script)
    done = run_zen("-p", "go", "-C", "/", *args_for(fake, "--yes"))
    assert done.code == 0, done.err
    said = [line for line in done.err.splitlines() if "checkpoints are off" in line]
    assert len(said) == 1 and "whole file system" in said[0], done.err
    assert "fine" in json.dumps(fake.requests[1])  # bash ran and the model saw it
    assert not (home / ".zen" / "snapshots").exists()
    refused = run_zen("rewind", "-C", "/")
    assert refused.code == 2 and "whole file system" in refused.err


@pytest.mark.e2e
@pytest.mark.parametrize("answer", ["y", "n"])
def test_the_shell_in_the_home_folder_asks_once(fake_llm: Any, home: Path, answer: str) -> None:
    from tests.test_shell_pty import Zen

    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text("permissions: {bash: auto}\nfeatures: {git: off}\n")
    fake = fake_llm([tool_calls([call("bash", {"command": "echo x > made.txt"})]), text("ok")])
    zen = Zen(fake, home, home, state="")
    try:
        zen.expect("Snapshot your home folder? [y/N]")
        zen.type(answer + "\r")
        zen.prompt("single")
        zen.task("make it")
        assert (home / "made.txt").exists()
        if answer == "y":
            zen.type("/undo\r")
            zen.expect("restore 1 file(s)? [y]es or [n]o")
            zen.type("y\r")
            zen.prompt("single")
            assert not (home / "made.txt").exists()
        else:
            zen.task("/undo")
            assert (home / "made.txt").exists()
            assert not (home / ".zen" / "snapshots").exists()
        lines = zen.lines()
        assert sum("Snapshot your home folder" in line for line in lines) == 1
        said = [line for line in lines if "checkpoints are off in your home folder" in line]
        assert len(said) == (answer == "n")
    finally:
        zen.close()

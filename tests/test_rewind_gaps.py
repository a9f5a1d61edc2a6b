"""What a snapshot would miss: zen's own edits in nested repositories, ignored files and files
over `checkpoints.max_file_size` are still undone; what bash changed there is named, never
silently skipped; and a rewind never deletes a file it did not record."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_checkpoints import args_for

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell")

BIG_LINE = "x" * 99 + "\n"


def nested_repo(folder: Path) -> None:
    folder.mkdir()
    (folder / "f.txt").write_text("nested original\n")
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    for args in (["init", "-q"], ["add", "."], ["commit", "-qm", "x"]):
        subprocess.run(
            ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
            cwd=folder,
            env=env,
            check=True,
        )


def edit(path: str, old: str, new: str) -> dict[str, str]:
    return {"path": path, "old_string": old, "new_string": new}


def test_zens_own_edits_are_undone_in_nested_repos_ignored_and_big_files(
    fake_llm, run_zen, project: Path
) -> None:
    nested_repo(project / "nested")
    (project / ".gitignore").write_text(".env\n")
    (project / ".env").write_text("TOKEN=old\n")
    big = (
        "top\n" + BIG_LINE * 25_000
    )  # 2.5 MB: over checkpoints.max_file_size, under the edit limit
    (project / "big.txt").write_text(big)
    reads = ["nested/f.txt", ".env", "big.txt"]
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": p, "limit": 2}) for p in reads]),
            tool_calls(
                [
                    call("edit-file", edit("nested/f.txt", "nested original", "by zen")),
                    call("edit-file", edit(".env", "old", "new")),
                    call("edit-file", edit("big.txt", "top", "changed")),
                    call("write-file", {"path": "nested/new.txt", "content": "new\n"}),
                ]
            ),
            text("ok"),
        ]
    )
    done = run_zen("-p", "edit", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "nested" / "f.txt").read_text() == "by zen\n"

    rewound = run_zen("rewind")
    assert rewound.code == 0, rewound.err
    assert "already match" not in rewound.out
    assert (project / "nested" / "f.txt").read_text() == "nested original\n"
    assert (project / ".env").read_text() == "TOKEN=old\n"
    assert (project / "big.txt").read_text() == big
    assert not (project / "nested" / "new.txt").exists()
    assert (project / "nested" / ".git" / "HEAD").is_file()  # the nested repository is intact


def test_what_bash_changed_out_of_reach_is_named_before_the_rewind(
    fake_llm, run_zen, project: Path
) -> None:
    nested_repo(project / "nested")
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "a.txt").write_text("a\n")
    command = (
        "echo more >> a.txt; head -c 3000000 /dev/zero > huge.bin; "
        "echo out > build/out.o; echo changed > nested/f.txt"
    )
    fake = fake_llm([tool_calls([call("bash", {"command": command})]), text("ok")])
    assert run_zen("-p", "build", *args_for(fake)).code == 0

    rewound = run_zen("rewind")
    assert rewound.code == 0, rewound.err
    assert (project / "a.txt").read_text() == "a\n"
    said = rewound.out
    assert "cannot restore" in said
    for name, why in (
        ("huge.bin", "too large"),
        ("build/out.o", "ignored"),
        ("nested/f.txt", "nested git repository"),
    ):
        line = next(ln for ln in said.splitlines() if name in ln)
        assert why in line, line
    assert said.index("cannot restore") < said.index("restored")  # said before it starts
    assert (project / "huge.bin").stat().st_size == 3_000_000  # never deleted


def test_a_rewind_never_deletes_what_it_did_not_record(fake_llm, run_zen, project: Path) -> None:
    (project / ".gitignore").write_text("*.log\n")
    (project / "data").write_text("a tracked file\n")
    (project / "keep.txt").write_text("keep\n")
    command = "rm data; mkdir data; echo recorded > data/small.txt; echo more >> keep.txt"
    fake = fake_llm([tool_calls([call("bash", {"command": command})]), text("ok")])
    assert run_zen("-p", "go", *args_for(fake)).code == 0
    # The user, after zen's run: an ignored file and a large one inside the new folder.
    (project / "data" / "debug.log").write_text("the user's log\n")
    (project / "data" / "big.bin").write_bytes(b"\0" * 3_000_000)

    refused = run_zen("rewind")
    assert refused.code == 6, refused.err
    assert "data" in refused.err and "debug.log" in refused.err
    assert (project / "data" / "debug.log").exists()

    forced = run_zen("rewind", "--force")
    assert forced.code == 0, forced.err
    assert (project / "data" / "debug.log").read_text() == "the user's log\n"
    assert (project / "data" / "big.bin").stat().st_size == 3_000_000
    assert (project / "keep.txt").read_text() == "keep\n"  # the rest is restored
    assert "leave data alone" in forced.out and "debug.log" in forced.out

"""Checkpoints end to end: `zen -p` runs against the fake model, then `zen rewind` puts the
files back, exactly, without touching the user's `.git`."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes and shell")

APP = "def add(a, b):\n    return a + b\n"
SCRIPT = "#!/bin/sh\r\necho 'hello'\r\n"


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model", "--yes"]


SAFE = ["-c", "filter.evil.clean=cat", "-c", "filter.evil.smudge=cat", "-c", "core.fsmonitor=false"]
"""The test's own git commands must not trip the hostile config either."""


def git(project: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_OPTIONAL_LOCKS": "0",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    safe = SAFE if args[0] != "config" else []
    done = subprocess.run(
        ["git", *safe, *args], cwd=project, capture_output=True, text=True, env=env, check=True
    )
    return done.stdout


def tree_state(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under `folder`: (mode, sha256) — what 'identical' means below."""
    state = {}
    for path in sorted(folder.rglob("*")):
        st = os.lstat(path)
        if stat.S_ISDIR(st.st_mode):
            continue
        data = os.readlink(path).encode() if stat.S_ISLNK(st.st_mode) else path.read_bytes()
        state[path.relative_to(folder).as_posix()] = (
            stat.S_IMODE(st.st_mode),
            hashlib.sha256(data).hexdigest(),
        )
    return state


def workspace_state(project: Path) -> dict[str, tuple[int, str]]:
    return {k: v for k, v in tree_state(project).items() if not k.startswith(".git/")}


def make_repo(project: Path) -> None:
    (project / "app.py").write_text(APP)
    (project / "run.sh").write_bytes(SCRIPT.encode())
    os.chmod(project / "run.sh", 0o755)
    (project / "private.txt").write_text("secret-ish\n")
    os.chmod(project / "private.txt", 0o640)
    # A hostile repository: attributes and a filter that would run a program.
    (project / ".gitattributes").write_text("* text eol=crlf filter=evil\n")
    (project / ".gitignore").write_text("ignored/\n")
    git(project, "init", "-q")
    git(project, "config", "filter.evil.clean", f"touch {project}/../PWNED; cat")
    git(project, "config", "filter.evil.smudge", f"touch {project}/../PWNED; cat")
    git(project, "config", "core.fsmonitor", f"touch {project}/../PWNED-fsmonitor; false")
    git(project, "add", ".")
    git(project, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "init")
    (project / "PWNED").unlink(missing_ok=True)
    (project.parent / "PWNED").unlink(missing_ok=True)
    (project / "ignored").mkdir()
    (project / "ignored" / "keep.txt").write_text("ignored, never touched\n")


EDIT_TWO_CREATE_ONE = [
    tool_calls([call("read-file", {"path": "app.py"}), call("read-file", {"path": "run.sh"})]),
    tool_calls(
        [
            call("edit-file", {"path": "app.py", "old_string": "a + b", "new_string": "b + a"}),
            call("edit-file", {"path": "run.sh", "old_string": "hello", "new_string": "bye"}),
            call(
                "bash",
                {
                    "command": "printf 'made by bash\\n' > made.txt; "
                    "echo changed > ignored/keep.txt.new"
                },
            ),
        ]
    ),
    text("Done."),
]


def test_rewind_restores_two_edits_and_a_bash_file_exactly(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    make_repo(project)
    # Only the shadow repository's git is under test: zen's git facts stay off.
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text("features: {git: off}\n")
    files_before = workspace_state(project)
    git_before = tree_state(project / ".git")
    status_before = git(project, "status", "--porcelain=v2", "--branch")

    fake = fake_llm(list(EDIT_TWO_CREATE_ONE))
    done = run_zen("-p", "change things", "--output-format", "json", *args_for(fake))
    assert done.code == 0, done.err
    result = json.loads(done.out)
    assert result["checkpoint"]
    assert (project / "made.txt").exists()
    assert "b + a" in (project / "app.py").read_text()
    assert tree_state(project / ".git") == git_before  # the run left .git alone

    listed = run_zen("rewind", "--list")
    assert listed.code == 0, listed.err
    assert result["checkpoint"] in listed.out and "change things" in listed.out

    rewound = run_zen("rewind")
    assert rewound.code == 0, rewound.err
    assert "made.txt" in rewound.out and "app.py" in rewound.out
    after = workspace_state(project)
    # ignored/ is not snapshotted, so bash's file there stays: everything else is exact.
    assert after.pop("ignored/keep.txt.new")
    assert after == files_before
    assert tree_state(project / ".git") == git_before
    assert git(project, "status", "--porcelain=v2", "--branch") == status_before
    assert not (project.parent / "PWNED").exists()
    assert not (project.parent / "PWNED-fsmonitor").exists()

    # The rewind itself can be undone: its output names the checkpoint to go back to.
    back = rewound.out.split("`zen rewind ")[1].split("`")[0]
    again = run_zen("rewind", back)
    assert again.code == 0, again.err
    assert (project / "made.txt").read_text() == "made by bash\n"


def test_shadow_repository_is_private_and_outside_the_workspace(
    fake_llm, run_zen, project: Path, home: Path
) -> None:
    (project / "a.txt").write_text("one\n")
    fake = fake_llm([tool_calls([call("bash", {"command": "echo two > b.txt"})]), text("ok")])
    assert run_zen("-p", "go", *args_for(fake), env={"UMASK": "022"}).code == 0
    snapshots = home / ".zen" / "snapshots"
    found = list(snapshots.rglob("*"))
    assert found
    for path in [snapshots, *found]:
        assert stat.S_IMODE(os.lstat(path).st_mode) & 0o077 == 0, path
    assert not (project / ".git").exists()
    assert sorted(p.name for p in project.iterdir()) == ["a.txt", "b.txt"]


def test_non_git_folder_and_a_conflict_that_is_not_clobbered(
    fake_llm, run_zen, project: Path
) -> None:
    (project / "notes.txt").write_text("original\n")
    (project / "other.txt").write_text("other\n")
    fake = fake_llm(
        [
            tool_calls(
                [call("read-file", {"path": "notes.txt"}), call("read-file", {"path": "other.txt"})]
            ),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "notes.txt", "old_string": "original", "new_string": "by zen"},
                    ),
                    call(
                        "edit-file",
                        {"path": "other.txt", "old_string": "other", "new_string": "zen too"},
                    ),
                ]
            ),
            text("ok"),
        ]
    )
    assert run_zen("-p", "edit", *args_for(fake)).code == 0
    (project / "notes.txt").write_text("the user's own edit\n")  # after zen's last turn

    refused = run_zen("rewind")
    assert refused.code == 6
    assert "notes.txt" in refused.err and "--force" in refused.err
    assert (project / "notes.txt").read_text() == "the user's own edit\n"
    assert (project / "other.txt").read_text() == "zen too\n"  # nothing half-done

    forced = run_zen("rewind", "--force")
    assert forced.code == 0, forced.err
    assert (project / "notes.txt").read_text() == "original\n"
    assert (project / "other.txt").read_text() == "other\n"

    nothing = run_zen("rewind", "nosuchid")
    assert nothing.code == 2 and "--list" in nothing.err


def test_big_files_are_skipped_and_never_deleted(fake_llm, run_zen, project: Path) -> None:
    (project / "small.txt").write_text("small\n")
    fake = fake_llm(
        [
            tool_calls(
                [
                    call(
                        "bash",
                        {"command": "head -c 3000000 /dev/zero > big.bin; echo more >> small.txt"},
                    )
                ]
            ),
            text("ok"),
        ]
    )
    assert run_zen("-p", "go", *args_for(fake)).code == 0
    done = run_zen("rewind")
    assert done.code == 0, done.err
    assert (project / "small.txt").read_text() == "small\n"
    assert (project / "big.bin").stat().st_size == 3_000_000  # not in any snapshot: kept


def test_read_only_runs_take_no_checkpoint(fake_llm, run_zen, project: Path) -> None:
    (project / "a.txt").write_text("x\n")
    fake = fake_llm([tool_calls([call("read-file", {"path": "a.txt"})]), text("x")])
    done = run_zen("-p", "look", "--output-format", "json", *args_for(fake))
    assert json.loads(done.out)["checkpoint"] is None
    assert run_zen("rewind").code == 2


def test_prune_drops_old_checkpoints(fake_llm, run_zen, project: Path, home: Path) -> None:
    fake = fake_llm([tool_calls([call("bash", {"command": "echo 1 > f.txt"})]), text("ok")])
    assert run_zen("-p", "go", *args_for(fake)).code == 0
    assert run_zen("rewind", "--list").out.strip()
    (home / ".zen" / "config.yaml").write_text("checkpoints: {keep_days: 0.000001}\n")
    pruned = run_zen("rewind", "--prune")
    assert pruned.code == 0, pruned.err
    assert "pruned" in pruned.out
    assert run_zen("rewind", "--list").out.strip() == ""


def test_dual_mode_reject_restores_files_and_the_next_coder_learns_why(
    fake_llm, run_zen, project: Path
) -> None:
    (project / "greet.py").write_text("def greet():\n    return 'hi'\n")
    coder_requests: list[dict[str, Any]] = []
    orchestrator_requests: list[dict[str, Any]] = []
    coder = [
        [
            tool_calls([call("write-file", {"path": "hello.py", "content": "print('hi')\n"})]),
            tool_calls([call("bash", {"command": "echo junk > junk.txt"})]),
            text("Created hello.py."),
        ],
        [text("Edited greet.py instead.")],
    ]

    def script(body: dict[str, Any]) -> Any:
        tools = {t["function"]["name"] for t in body.get("tools", [])}
        if "send-to-coder" not in tools:
            coder_requests.append(body)
            return _next(coder, body)
        orchestrator_requests.append(body)
        step = len(orchestrator_requests)
        if step == 1:
            return tool_calls([call("send-to-coder", {"task": "add a hello script"})])
        if step == 2:
            report = body["messages"][-1]["content"]
            checkpoint = report.split("checkpoint: ")[1].split()[0]
            return tool_calls(
                [
                    call(
                        "revert-coder",
                        {"checkpoint": checkpoint, "why": "no new file wanted; greet.py only"},
                    )
                ]
            )
        if step == 3:
            return tool_calls([call("send-to-coder", {"task": "change greet.py only"})])
        return text("Done.")

    fake = fake_llm(script)
    done = run_zen(
        "-p", "say hello", "--dual", "--triage", "large", "--collab", "autonomous", *args_for(fake)
    )
    assert done.code == 0, done.err
    assert not (project / "hello.py").exists()
    assert not (project / "junk.txt").exists()
    reverted = [m["content"] for m in orchestrator_requests[2]["messages"] if m["role"] == "tool"]
    assert "Restored 2 file(s)" in reverted[-1] and "attempt:1" in reverted[-1]
    second_coder_first = [b for b in coder_requests if len(b["messages"]) == 2][-1]
    task = second_coder_first["messages"][1]["content"]
    assert "change greet.py only" in task
    assert "attempt:1" in task and "no new file wanted; greet.py only" in task
    assert "add a hello script" in task  # what was tried


def _next(scripts: list[list[Any]], body: dict[str, Any]) -> Any:
    """The current Coder's next reply; a Coder whose script is used up hands over."""
    if len(body["messages"]) == 2 and not scripts[0]:
        scripts.pop(0)
    reply = scripts[0].pop(0)
    return reply


def test_without_git_the_file_tools_changes_are_still_undone(
    fake_llm, run_zen, project: Path, tmp_path: Path
) -> None:
    (project / "notes.txt").write_text("original\n")
    os.chmod(project / "notes.txt", 0o640)
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "notes.txt"})]),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "notes.txt", "old_string": "original", "new_string": "edited"},
                    ),
                    call("write-file", {"path": "sub/new.txt", "content": "new\n"}),
                    call("bash", {"command": "echo by bash > bash.txt"}),
                ]
            ),
            text("ok"),
        ]
    )
    empty = tmp_path / "no-git-here"
    empty.mkdir()
    no_git = {"PATH": str(empty)}
    done = run_zen("-p", "edit", *args_for(fake), env=no_git)
    assert done.code == 0, done.err
    assert "no git executable" in done.err and "bash" in done.err
    assert (project / "notes.txt").read_text() == "edited\n"

    rewound = run_zen("rewind", env=no_git)
    assert rewound.code == 0, rewound.err
    assert (project / "notes.txt").read_text() == "original\n"
    assert stat.S_IMODE(os.stat(project / "notes.txt").st_mode) == 0o640
    assert not (project / "sub").exists()
    assert (project / "bash.txt").exists()  # bash is not covered without git: said above

"""The command line's everyday edges, through `python -m zen` as a user's shell runs it: a
reader that stops reading, what `sessions show` says, hints and help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import call, text, tool_calls


def closed_pipe(home: Path, cwd: Path, *args: str) -> tuple[int, str]:
    """Run zen with its stdout a pipe whose reader is already gone; (exit code, stderr)."""
    child = subprocess.Popen(
        [sys.executable, "-m", "zen", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=zen_env(home),
    )
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # `| head -1` that already read its line, `| true`
    err = child.stderr.read().decode("utf-8", "replace")
    child.stderr.close()
    return child.wait(timeout=60), err


def prose(words: int) -> str:
    """A long answer that never repeats itself (a repeated one is stopped as a runaway)."""
    return " ".join(f"w{i * 7919 % 100_003}" for i in range(words))


def a_session(fake_llm: Any, run_zen: Any, answer: str = "done") -> str:
    fake = fake_llm([text(answer)])
    done = run_zen(
        "-p", "where is the bug?", "--output-format", "json", "--base-url", fake.base_url,
        "--api-key", "k",
    )  # fmt: skip
    assert done.code == 0, done.err
    return str(json.loads(done.out)["session_id"])


def test_every_printing_command_into_a_closed_pipe(
    fake_llm: Any, run_zen: Any, home: Path, project: Path
) -> None:
    sid = a_session(fake_llm, run_zen, prose(20_000))  # more than a pipe's buffer
    fake = fake_llm([text(prose(20_000)), text(prose(20_000))])
    commands = [
        ["sessions", "list"],
        ["sessions", "show", sid],
        ["sessions", "export", sid],
        ["config"],
        ["trust", "--list"],
        ["mcp", "list"],
        ["--help"],
        ["--version"],
        ["-p", "hi", "--base-url", fake.base_url, "--api-key", "k"],
        [
            "-p",
            "hi",
            "--output-format",
            "stream-json",
            "--base-url",
            fake.base_url,
            "--api-key",
            "k",
        ],
    ]
    for args in commands:
        code, err = closed_pipe(home, project, *args)
        assert "Traceback" not in err and "BrokenPipeError" not in err, (args, err)
        quiet = (0,) if args == ["--help"] else ()  # argparse may swallow the failed write
        assert code in (141, *quiet), (args, code, err)  # exits.PIPE_CLOSED: 128 + SIGPIPE
    code, err = closed_pipe(home, project, "rewind", "--list")  # no checkpoints: stderr only
    assert code == 0 and "no checkpoints" in err


def test_sessions_show_and_list_say_what_the_run_did(fake_llm: Any, run_zen: Any) -> None:
    fake = fake_llm(
        [
            tool_calls([call("glob", {"pattern": "*"})]),
            tool_calls([call("glob", {"pattern": "*.py"})]),
            text("done"),
        ]
    )
    args = ("--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model")
    done = run_zen("-p", "where is the bug?", "--output-format", "json", *args)
    result = json.loads(done.out)
    assert result["turns"] == 3
    shown = run_zen("sessions", "show", result["session_id"])
    assert shown.code == 0, shown.err
    head = shown.out.splitlines()[2]
    assert head.strip() == "mode single · main: fake-model · 1 task, 3 model turns", head
    listed = run_zen("sessions", "list")
    assert "1 task " in listed.out and "single" in listed.out and "turn" not in listed.out


def test_a_task_without_p_gets_a_hint(run_zen: Any) -> None:
    done = run_zen("fix", "the", "bug")
    assert done.code == 2
    assert "zen: a task goes after -p: zen -p 'fix the bug'" in done.err
    assert "a task goes after" not in run_zen("--bogus").err  # a wrong flag is only that


def test_config_previews_another_provider(run_zen: Any) -> None:
    done = run_zen("config", "--provider", "deepseek", env={"DEEPSEEK_API_KEY": "sk-" + "d" * 30})
    assert done.code == 0, done.err
    assert "deepseek-chat" in done.out and "api.deepseek.com" in done.out
    assert "d" * 30 not in done.out  # the key stays redacted
    dual = run_zen("config", "--dual", "--model", "m1", "--base-url", "http://127.0.0.1:9/v1")
    assert dual.code == 0, dual.err
    assert "coder" in dual.out and "m1" in dual.out


def test_acp_help_names_the_modes(run_zen: Any) -> None:
    done = run_zen("acp", "--help")
    assert done.code == 0
    assert "--single" in done.out and "one agent" in done.out
    assert "--dual" in done.out and "Orchestrator" in done.out


@pytest.mark.e2e
def test_the_child_watchers_unknown_pid_line_never_reaches_the_user() -> None:
    """asyncio logs it when a child's status was collected first (seen at exit under load)."""
    script = (
        "import logging, sys\n"
        "from zen.cli.entry import main\n"
        "main(['--help'])\n"
        "log = logging.getLogger('asyncio')\n"
        "log.warning('Unknown child process pid %d, will report returncode 255', 42)\n"
        "log.warning('Loop %r that handles pid %r is closed', None, 42)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert "Unknown child process" not in done.stderr
    assert "that handles pid 42 is closed" in done.stderr  # other warnings still show


def test_every_subcommand_is_one_row_of_one_table(capsys: pytest.CaptureFixture[str]) -> None:
    """`zen NAME` runs the function its row names, and `zen --help` lists every row."""
    import importlib

    from zen.cli.entry import main
    from zen.cli.parser import SUBCOMMANDS

    for name, (usage, target, _) in SUBCOMMANDS.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), name
        assert usage.split()[0] == name
    assert main(["--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert all(f"`zen {usage}`" in shown for usage, _, _ in SUBCOMMANDS.values())


def test_the_usage_line_names_the_subcommands(run_zen) -> None:
    """Issue 40 (10): `zen --help`'s usage listed only the flags."""
    from zen.cli.parser import SUBCOMMANDS

    done = run_zen("--help")
    usage = done.out.split("\n\n")[0]
    assert done.code == 0 and usage.startswith("usage: zen [OPTIONS]"), done.out
    assert "zen -p TASK" in usage
    assert all(name in usage for name in SUBCOMMANDS), usage


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["-C", "missing", "-p", "hi"], "zen: -C missing: no such directory"),
        (["diff", "-C", "missing"], "zen: -C missing: no such directory"),
        (["rewind", "-C", "missing"], "zen: -C missing: no such directory"),
        (["trust", "missing"], "zen: missing: no such directory"),
    ],
)
def test_a_directory_argument_that_is_no_folder_is_a_usage_error(
    run_zen: Any, args: list[str], said: str
) -> None:
    """Every command taking a DIR checks it one way (`paths.directory_arg`), before anything."""
    done = run_zen(*args)
    assert done.code == 2, done
    assert said in done.err

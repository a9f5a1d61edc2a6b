"""Hooks end to end: real hook processes, `zen -p` against the fake model server."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from zen.base.preamble import asked
from zen.llm.types import ToolCall
from zen.tools.base import Approval, ApprovalRequest, ToolContext
from zen.tools.catalog import builtin_tools
from zen.tools.hooks import Hooks, parse_hooks, unmatched
from zen.tools.registry import ToolRegistry

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="hook scripts use /bin/sh")


def args_for(fake: Any) -> list[str]:
    return ["--base-url", fake.base_url, "--api-key", "k", "--model", "m"]


def hook_script(where: Path, name: str, body: str) -> str:
    """A Python hook: `data` is the JSON it got on stdin; returns the command to run it."""
    path = where / f"{name}.py"
    path.write_text("import json, sys\ndata = json.load(sys.stdin)\n" + body)
    return f"{sys.executable} {path}"


def configure(home: Path, hooks: dict[str, Any]) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text(json.dumps({"hooks": hooks}))


def results(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def test_pre_tool_use_exit_2_blocks_bash_and_the_model_reads_why(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.json"
    block = hook_script(
        tmp_path,
        "block",
        f"open({str(seen)!r}, 'w').write(json.dumps(data))\n"
        "sys.stderr.write('no rm in this repo'); sys.exit(2)\n",
    )
    configure(
        home,
        {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": block}]}]},
    )
    fake = fake_llm([tool_calls([call("bash", {"command": "touch made"})]), text("ok")])
    done = run_zen("-p", "go", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert not (project / "made").exists()
    assert "blocked by a hook: no rm in this repo" in results(fake.requests[1])[0]
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "PreToolUse" and data["tool_name"] == "Bash"
    assert data["tool_input"]["command"] == "touch made" and data["cwd"] == str(project)
    assert "hook PreToolUse: blocked: no rm in this repo" in done.err


def test_pre_tool_use_rewrites_the_input_and_post_tool_use_sees_the_output(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path
) -> None:
    post = tmp_path / "post.json"
    rewrite = hook_script(
        tmp_path,
        "rewrite",
        "print(json.dumps({'hookSpecificOutput': {"
        "'hookEventName': 'PreToolUse', 'permissionDecision': 'allow', "
        "'updatedInput': {'command': 'echo rewritten > out.txt; echo hi'}}}))\n",
    )
    record = hook_script(
        tmp_path,
        "record",
        f"open({str(post)!r}, 'w').write(json.dumps(data))\n"
        "print(json.dumps({'decision': 'block', "
        "'reason': 'lint found 2 issues'}))\n",
    )
    configure(
        home,
        {
            "PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": rewrite}]}],
            "PostToolUse": [
                {"matcher": "Bash|Edit", "hooks": [{"type": "command", "command": record}]}
            ],
        },
    )
    fake = fake_llm(
        [tool_calls([call("bash", {"command": "echo original > out.txt"})]), text("ok")]
    )
    # No --yes: the hook's `allow` is what lets bash run in -p.
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "out.txt").read_text() == "rewritten\n"
    data = json.loads(post.read_text())
    assert data["tool_input"]["command"].startswith("echo rewritten")
    assert "hi" in data["tool_response"]["output"]
    assert "[PostToolUse hook] lint found 2 issues" in results(fake.requests[1])[0]


def test_stop_hook_sends_the_agent_back_once(fake_llm, run_zen, home: Path, tmp_path: Path) -> None:
    keep_going = hook_script(
        tmp_path,
        "stop",
        "if not data['stop_hook_active']:\n"
        "    sys.stderr.write('tests are not run yet'); sys.exit(2)\n",
    )
    configure(home, {"Stop": [{"hooks": [{"type": "command", "command": keep_going}]}]})
    fake = fake_llm([text("done too early"), text("ran the tests, done")])
    done = run_zen("-p", "go", *args_for(fake))
    assert done.code == 0, done.err
    assert done.out.strip() == "ran the tests, done"
    last = fake.requests[1]["messages"][-1]
    assert last["role"] == "user" and "tests are not run yet" in last["content"]


def test_user_prompt_submit_adds_context_and_can_block(
    fake_llm, run_zen, home: Path, tmp_path: Path
) -> None:
    gate = hook_script(
        tmp_path,
        "gate",
        "if 'secret' in data['prompt']:\n"
        "    sys.stderr.write('no secrets'); sys.exit(2)\n"
        "print('branch: main')\n",
    )
    configure(home, {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": gate}]}]})
    fake = fake_llm([text("ok")])
    assert run_zen("-p", "hello", *args_for(fake)).code == 0
    assert asked(fake.requests[0]["messages"][-1]["content"]) == "hello\n\nbranch: main"
    blocked = run_zen("-p", "my secret", *args_for(fake))
    assert "prompt blocked by a hook: no secrets" in blocked.err
    assert len(fake.requests) == 1  # the model was never asked


def test_a_hook_that_hangs_is_killed_reported_and_decides_nothing(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path
) -> None:
    pid_file = tmp_path / "pid"
    hang = hook_script(
        tmp_path,
        "hang",
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n",
    )
    configure(
        home,
        {
            "PreToolUse": [
                {"matcher": "*", "hooks": [{"type": "command", "command": hang, "timeout": 1}]}
            ]
        },
    )
    fake = fake_llm([tool_calls([call("bash", {"command": "echo ran > ran.txt"})]), text("ok")])
    started = time.monotonic()
    done = run_zen("-p", "go", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert time.monotonic() - started < 30
    assert (project / "ran.txt").exists()
    assert "hook PreToolUse" in done.err and "timed out after 1 s" in done.err
    pid = int(pid_file.read_text())
    assert not Path(f"/proc/{pid}").exists() or "zombie" in Path(f"/proc/{pid}/status").read_text()


def test_claude_settings_hooks_run_unchanged_in_a_trusted_folder_only(
    fake_llm, run_zen, project: Path, tmp_path: Path
) -> None:
    seen = tmp_path / "seen.txt"
    # A hook written for Claude Code: reads tool_input.file_path, matches "Write|Edit".
    script = hook_script(
        tmp_path,
        "cc",
        f"open({str(seen)!r}, 'a').write("
        "data['tool_name'] + ' ' + data['tool_input']['file_path'] + '\\n')\n",
    )
    (project / ".claude").mkdir()
    (project / ".claude" / "settings.json").write_text(
        json.dumps(
            {
                "hooks": {
                    "PostToolUse": [
                        {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": script}]}
                    ]
                }
            }
        )
    )

    def write() -> Any:
        return tool_calls(
            [call("write-file", {"path": "new.txt", "content": "x\n", "overwrite": True})]
        )

    fake = fake_llm([write(), text("ok"), write(), text("ok")])
    assert run_zen("-p", "go", "--yes", *args_for(fake)).code == 0
    assert not seen.exists()  # untrusted: .claude/settings.json is the repository's
    (project / "new.txt").unlink()
    done = run_zen("-p", "go", "--yes", "--trust", *args_for(fake))
    assert done.code == 0, done.err
    assert seen.read_text() == f"Write {project / 'new.txt'}\n"


async def test_the_user_approves_the_input_as_the_hooks_left_it(
    ctx: ToolContext, tmp_path: Path
) -> None:
    rewrite = hook_script(
        tmp_path,
        "rw",
        "print(json.dumps({'hookSpecificOutput': "
        "{'updatedInput': {'command': 'echo B > b.txt'}}}))\n",
    )
    hooks, problems = parse_hooks(
        {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": rewrite}]}]},
        "test",
    )
    assert problems == []
    ctx = replace(ctx, hooks=Hooks(hooks, ctx.workspace.root, "s1"))
    asked: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Approval:
        asked.append(request)
        return Approval("yes")

    registry = ToolRegistry([builtin_tools()["bash"]])
    result = await registry.call(
        ToolCall("c1", "bash", '{"command": "echo A > a.txt"}'), ctx, approver
    )
    assert result.ok, result.output
    assert asked[0].args["command"] == "echo B > b.txt"
    assert (ctx.workspace.root / "b.txt").exists() and not (ctx.workspace.root / "a.txt").exists()


def test_bad_hook_entries_are_named_and_dead_matchers_warned() -> None:
    hooks, problems = parse_hooks(
        {
            "PreToolUse": [
                {"matcher": "Bassh", "hooks": [{"type": "command", "command": "true"}]},
                {"matcher": "(", "hooks": []},
            ],
            "BeforeEverything": [],
            "Stop": [{"hooks": [{"type": "prompt", "prompt": "x"}]}],
        },
        "~/.zen/config.yaml",
    )
    assert len(hooks) == 1
    assert any("matcher '(' is not a regex" in p for p in problems)
    assert any("unknown hook event 'BeforeEverything'" in p for p in problems)
    assert any("Stop hooks need type: command" in p for p in problems)
    warnings = unmatched(hooks, list(builtin_tools().values()))
    assert len(warnings) == 1 and "'Bassh'" in warnings[0]
    assert (
        unmatched(
            parse_hooks(
                {
                    "PreToolUse": [
                        {
                            "matcher": "Edit|mcp__x__.*",
                            "hooks": [{"type": "command", "command": "true"}],
                        }
                    ]
                },
                "c",
            )[0],
            list(builtin_tools().values()),
        )
        == []
    )


def test_session_start_adds_context_and_subagent_stop_fires_for_the_coder(
    fake_llm, run_zen, home: Path, tmp_path: Path
) -> None:
    events = tmp_path / "events.txt"
    log = hook_script(
        tmp_path,
        "log",
        f"open({str(events)!r}, 'a').write("
        "data['hook_event_name'] + '\\n')\n"
        "if data['hook_event_name'] == 'SessionStart': print('on branch main')\n",
    )
    entry = [{"hooks": [{"type": "command", "command": log}]}]
    configure(home, {"SessionStart": entry, "SubagentStop": entry, "Stop": entry})

    def script(body: dict[str, Any]) -> Any:
        coder = "send-to-coder" not in {t["function"]["name"] for t in body.get("tools", [])}
        if coder:
            return text("coded")
        done = any(m["role"] == "tool" for m in body["messages"])
        return text("all done") if done else tool_calls([call("send-to-coder", {"task": "x"})])

    fake = fake_llm(script)
    done = run_zen("-p", "go", "--dual", "--triage", "large", *args_for(fake))
    assert done.code == 0, done.err
    assert events.read_text().split() == ["SessionStart", "SubagentStop", "Stop"]
    assert asked(fake.requests[0]["messages"][-1]["content"]) == "go\n\non branch main"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_a_flooding_hook_is_stopped_at_its_timeout_and_its_output_dropped(
    fake_llm, run_zen, home: Path
) -> None:
    """`yes` fills the pipe: the hook is killed at its deadline, zen keeps a bounded part of
    what it said and feeds none of it to the model (it timed out: it decided nothing)."""
    configure(
        home,
        {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "yes", "timeout": 2}]}]},
    )
    fake = fake_llm([text("ok")])
    started = time.monotonic()
    done = run_zen("-p", "hello", *args_for(fake), timeout=40)
    assert time.monotonic() - started < 20
    assert done.code == 0, done.err
    assert "timed out after 2 s" in done.err and "Traceback" not in done.err
    assert asked(fake.requests[0]["messages"][-1]["content"]) == "hello"


@pytest.mark.skipif(sys.platform != "linux", reason="finds processes through /proc")
def test_a_hook_ignoring_sigterm_and_its_daemon_end_with_it(
    fake_llm, run_zen, home: Path, tmp_path: Path
) -> None:
    """A hook that answers at once is not "timed out" though a daemon it started holds its
    output; the daemon (it left the session, ignoring SIGTERM) does not outlive the hook."""
    pid_file = tmp_path / "daemon"
    command = (
        f"setsid sh -c 'trap \"\" TERM; echo $$ > {pid_file}; sleep 300' & "
        'sleep 0.3; echo \'{"systemMessage": "checked"}\''
    )
    configure(
        home,
        {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": command, "timeout": 20}]}]},
    )
    fake = fake_llm([text("ok")])
    started = time.monotonic()
    done = run_zen("-p", "hello", *args_for(fake))
    assert done.code == 0, done.err
    assert time.monotonic() - started < 15
    assert "timed out" not in done.err and "hook UserPromptSubmit: checked" in done.err
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 3
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)

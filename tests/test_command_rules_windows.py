"""Allow rules by command (`allow_commands`) never match on Windows: the rules parse bash, and
cmd.exe's syntax is not bash's (`&`, `^`, `%VAR%`), so a rule that is safe under bash could
approve anything there (`Bash.allowed_by_rule`). Through the real `zen -p` against the fake
server, under the winpy harness (`.ci/windows`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls
from zen.base import exits

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(
        sys.platform != "win32",
        reason="Windows only: elsewhere the rules apply (tests/test_command_rules_e2e.py)",
    ),
]

NEEDS_A_PERSON = "needs confirmation and nobody is there"


def _run(fake_llm: Any, run_zen: Any, *flags: str) -> tuple[Any, list[str]]:
    fake = fake_llm([tool_calls([call("bash", {"command": "mkdir ruled"})]), text("done")])
    done = run_zen(
        "-p", "go", "--output-format", "json", "--base-url", fake.base_url,
        "--model", "fake-model", *flags, env={"ZEN_API_KEY": "k"}, timeout=180,
    )  # fmt: skip
    assert "Traceback" not in done.err, done.err
    told = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    return done, told


def test_a_configured_rule_approves_nothing_on_windows(
    fake_llm: Any, run_zen: Any, home: Path, project: Path
) -> None:
    (home / ".zen").mkdir(exist_ok=True)
    (home / ".zen" / "config.yaml").write_text("allow_commands: [mkdir]\n")
    done, told = _run(fake_llm, run_zen)  # the rule would cover `mkdir ruled` under bash
    assert len(told) == 1 and NEEDS_A_PERSON in told[0], told
    assert not (project / "ruled").exists()
    assert done.code == exits.DENIED, done.out + done.err
    denied = json.loads(done.out)["permission_denials"]
    assert [d["args"]["command"] for d in denied] == ["mkdir ruled"]
    done, told = _run(fake_llm, run_zen, "--yes")  # the command itself runs on cmd.exe
    assert done.code == exits.DONE, done.out + done.err
    assert (project / "ruled").is_dir(), told

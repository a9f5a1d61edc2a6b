"""The shell's prompt comes before everything the prompt does not need (issue 20).

zen runs on a pty under an audit hook that writes `[[import NAME]]` to the same terminal when
a watched module is first imported, so the order of the bytes shows what was imported before
the prompt was drawn and what the background preload imported after it.
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import zen_env
from tests.fakes.server import text

pexpect = pytest.importorskip("pexpect")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]

NOT_BEFORE_PROMPT = (
    # the first answer: model client, markdown rendering
    "openai",
    "httpx2",
    "markdown_it",
    "rich.markdown",
    "rich.syntax",
    "pygments",
    "mcp",
    # the session: config validation, the agent, the store, the log renderer
    "pydantic",
    "yaml",
    "zen.settings.schema",
    "zen.app",
    "zen.agent.session",
    "zen.stores.sessions",
    "sqlite3",
    "zen.ui.render",
    "zen.ui.commands.dispatch",
    "rich.console",
)
WATCHER = textwrap.dedent(f"""
    import os, sys
    WATCHED = {NOT_BEFORE_PROMPT!r}
    seen = set()
    def hook(event, args):
        if event == "import" and args[0] in WATCHED and args[0] not in seen:
            seen.add(args[0])
            os.write(2, f"[[import {{args[0]}}]]".encode())
    sys.addaudithook(hook)
    from zen.cli.entry import main
    sys.exit(main())
""")
MARK = re.compile(rb"\[\[import (\S+?)\]\]")
PROMPT = re.compile(rb"zen single(?:\x1b\[[0-9;]*m)*" + re.escape(" ›".encode()))


def start(script: Path, base_url: str, project: Path, home: Path) -> Any:
    return pexpect.spawn(
        sys.executable,
        [
            str(script),
            "--single",
            "--base-url",
            base_url,
            "--api-key",
            "test-key",
            "--model",
            "fake-model",
            "-C",
            str(project),
        ],
        env=zen_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1"),
        cwd=str(project),
        dimensions=(30, 100),
        timeout=30,
    )


def test_prompt_first_then_the_session_and_first_answer_modules_in_background(
    fake_llm: Any, project: Path, home: Path, tmp_path: Path
) -> None:
    fake = fake_llm([text("**one**"), text("**two**")])
    script = tmp_path / "watch.py"
    script.write_text(WATCHER, encoding="utf-8")
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text("max_turns: 7\n", encoding="utf-8")

    # First start with these inputs: the config is checked in full before the prompt.
    child = start(script, fake.base_url, project, home)
    try:
        child.expect(PROMPT)
        before = set(MARK.findall(child.before))
        assert {b"pydantic", b"zen.settings.schema"} <= before, before
        child.send("hello\r")
        child.expect(re.escape(b"one"))
        child.expect(PROMPT)
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0

    # The same inputs again: nothing but the prompt before the prompt.
    child = start(script, fake.base_url, project, home)
    try:
        child.expect(PROMPT)
        before = set(MARK.findall(child.before))
        assert before == set(), f"imported before the prompt: {sorted(before)}"
        # the preload imports them while the prompt waits: no message is needed for that
        wanted = {b"zen.settings.schema", b"zen.app", b"sqlite3", b"openai", b"rich.markdown"}
        seen: set[bytes] = set()
        while not wanted <= seen:
            child.expect(MARK)
            seen.add(child.match.group(1))
        child.send("hello\r")
        child.expect(re.escape(b"two"))
        child.expect(PROMPT)
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    assert len(fake.requests) == 2


def test_a_config_broken_after_a_good_start_fails_before_any_prompt(
    fake_llm: Any, project: Path, home: Path, tmp_path: Path
) -> None:
    fake = fake_llm([])
    script = tmp_path / "watch.py"
    script.write_text(WATCHER, encoding="utf-8")
    config = home / ".zen" / "config.yaml"
    config.parent.mkdir()
    config.write_text("max_turns: 7\n", encoding="utf-8")
    child = start(script, fake.base_url, project, home)
    try:
        child.expect(PROMPT)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)

    config.write_text("max_turns: many\n", encoding="utf-8")
    child = start(script, fake.base_url, project, home)
    try:
        index = child.expect([PROMPT, pexpect.EOF])
        output = child.before.decode("utf-8", "replace")
    finally:
        child.close(force=True)
    assert index == 1, "a prompt was shown for a broken config"
    assert "max_turns" in output and "config.yaml" in output
    assert child.exitstatus == 2


def test_an_api_key_gone_since_the_last_start_fails_before_any_prompt(
    project: Path, home: Path
) -> None:
    """The environment is part of what was checked: DEEPSEEK_API_KEY set, then unset."""
    args = ["-m", "zen", "--single", "--provider", "deepseek"]  # no request is made
    env = zen_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(
        sys.executable,
        args,
        env={**env, "DEEPSEEK_API_KEY": "sk-test"},
        cwd=str(project),
        dimensions=(30, 100),
        timeout=30,
    )
    try:
        child.expect(re.escape(b" \xe2\x80\xba"))
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    child = pexpect.spawn(
        sys.executable, args, env=env, cwd=str(project), dimensions=(30, 100), timeout=30
    )
    try:
        index = child.expect([re.escape(b" \xe2\x80\xba"), pexpect.EOF])
        output = child.before.decode("utf-8", "replace")
    finally:
        child.close(force=True)
    assert index == 1, "a prompt was shown without an API key"
    assert "DEEPSEEK_API_KEY" in output
    assert child.exitstatus == 2

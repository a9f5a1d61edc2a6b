"""The shell's prompt comes before the imports only the first answer needs (issue 20).

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
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty")

NOT_BEFORE_PROMPT = (
    "openai",
    "httpx2",
    "markdown_it",
    "rich.markdown",
    "rich.syntax",
    "pygments",
    "mcp",
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
    from zen.cli import main
    sys.exit(main())
""")
MARK = re.compile(rb"\[\[import (\S+?)\]\]")
PROMPT = re.compile(rb"zen single(?:\x1b\[[0-9;]*m)*" + re.escape(" ›".encode()))


def test_prompt_first_then_first_answer_modules_in_background(
    fake_llm: Any, project: Path, home: Path, tmp_path: Path
) -> None:
    fake = fake_llm([text("**done**")])
    script = tmp_path / "watch.py"
    script.write_text(WATCHER, encoding="utf-8")
    env = zen_env(home, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(
        sys.executable,
        [
            str(script),
            "--single",
            "--base-url",
            fake.base_url,
            "--api-key",
            "test-key",
            "--model",
            "fake-model",
            "-C",
            str(project),
        ],
        env=env,
        cwd=str(project),
        dimensions=(30, 100),
        timeout=30,
    )
    try:
        child.expect(PROMPT)
        before = set(MARK.findall(child.before))
        assert before == set(), f"imported before the prompt: {sorted(before)}"
        # the preload imports them while the prompt waits: no message is needed for that
        for name in (b"openai", b"rich.markdown"):
            child.expect(re.escape(b"[[import " + name + b"]]"))
        child.send("hello\r")
        child.expect(re.escape(b"done"))
        child.expect(PROMPT)
        child.send("/exit\r")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0

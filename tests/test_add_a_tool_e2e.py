"""Adding a tool is three files: its module, its description, one line in a role.

A copy of zen gets a new tool that way, and nothing else: `zen -p` then offers it to the
model with its description, a `permissions` key names it, a hook written for Claude Code
matches it by its Claude Code name (with `file_path`), and its result reaches the model.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="the hook is a /bin/sh command line"),
]

MODULE = '''"""`word-count`: how many words a file holds (added by a test, in three files)."""

from __future__ import annotations

from zen.tools.base import Params, Tool, ToolContext, ToolResult


class WordCountParams(Params):
    path: str


class WordCount(Tool):
    name = "word-count"
    Params = WordCountParams
    level = "confirm"
    read_only = True
    claude_name = "WordCount"
    acp_kind = "read"
    file_arg = True

    async def execute(self, params: WordCountParams, ctx: ToolContext) -> ToolResult:
        words = len(ctx.workspace.resolve(params.path).read_text().split())
        return ToolResult(True, f"{words} words", summary=f"{words} words")
'''
ROLE_LINE = '    tools=("read-file", *WRITE, "glob", "grep", "bash", "memo", "todo", *EXTRA),\n'


def zen_with_a_new_tool(where: Path) -> Path:
    """A copy of zen's code and data with `word-count` added: the three files, nothing else."""
    for folder in ("zen", "prompts", "config"):
        shutil.copytree(ROOT / folder, where / folder, ignore=shutil.ignore_patterns("__pycache__"))
    (where / "zen" / "tools" / "word_count.py").write_text(MODULE)
    (where / "prompts" / "tools" / "word-count.md").write_text("Count the words of a file.\n")
    roles = where / "zen" / "agent" / "roles.py"
    source = roles.read_text()
    assert source.count(ROLE_LINE) == 1, "the single agent's line in roles.py moved"
    roles.write_text(source.replace(ROLE_LINE, ROLE_LINE.replace("*EXTRA", '*EXTRA, "word-count"')))
    return where


def test_a_tool_added_in_three_files_works_end_to_end(
    fake_llm: Any, run_zen: Any, home: Path, project: Path, tmp_path: Path
) -> None:
    code = zen_with_a_new_tool(tmp_path / "zen-copy")
    (project / "notes.txt").write_text("three little words\n")
    seen = tmp_path / "seen.json"
    hook = tmp_path / "hook.py"
    hook.write_text(f"import sys\nopen({str(seen)!r}, 'w').write(sys.stdin.read())\n")
    (home / ".zen").mkdir()
    (home / ".zen" / "config.yaml").write_text(
        json.dumps(
            {
                "permissions": {"word-count": "auto"},  # a confirm tool, allowed without --yes
                "hooks": {
                    "PreToolUse": [
                        {
                            "matcher": "WordCount",
                            "hooks": [{"type": "command", "command": f"{sys.executable} {hook}"}],
                        }
                    ]
                },
            }
        )
    )
    fake = fake_llm([tool_calls([call("word-count", {"path": "notes.txt"})]), text("3 words.")])
    done = run_zen(
        *("-p", "how many words are in notes.txt?", "--base-url", fake.base_url),
        *("--api-key", "k", "--model", "m"),
        env={"PYTHONPATH": str(code)},
    )
    assert done.code == 0, done.err
    offered = {t["function"]["name"]: t["function"] for t in fake.requests[0]["tools"]}
    assert offered["word-count"]["description"] == "Count the words of a file."
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert results == ["3 words"]
    payload = json.loads(seen.read_text())
    assert (payload["tool_name"], payload["zen_tool_name"]) == ("WordCount", "word-count")
    assert payload["tool_input"]["file_path"] == str(project.resolve() / "notes.txt")


def test_without_its_permission_key_the_new_tool_asks_like_any_confirm_tool(
    fake_llm: Any, run_zen: Any, project: Path, tmp_path: Path
) -> None:
    """The key in the test above is what let it run: here nobody approves it."""
    code = zen_with_a_new_tool(tmp_path / "zen-copy")
    (project / "notes.txt").write_text("three little words\n")
    fake = fake_llm([tool_calls([call("word-count", {"path": "notes.txt"})]), text("no.")])
    done = run_zen(
        *("-p", "count", "--base-url", fake.base_url, "--api-key", "k", "--model", "m"),
        env={"PYTHONPATH": str(code)},
    )
    assert done.code == 7, done.err  # a call was refused
    results = [m["content"] for m in fake.requests[1]["messages"] if m["role"] == "tool"]
    assert "word-count needs confirmation" in results[0]

"""What answers back after a reply's edits (issue 38): the syntax check, then the project's test
command, under one bound a task (aider's 3 reflections), so a small model fixes a broken edit
on its next turn instead of reporting success.

The syntax check (`edits.syntax_check`) runs in process. The test command (`test_cmd`, opt-in;
else a plain test runner's command the task quotes, "`python -m unittest test_paging` fails",
for that task) runs only when the syntax is clean, as a `bash` call through the agent's one door
(`Calls.one`): its permission, hooks, sandbox and checkpoints are the bash tool's own, and the
user sees it as a bash call. Refused (denied, declined, blocked), it is not asked for again
in the task and the model is told nothing. A failure goes back with the end of its output and
`prompts/test-failed.md` (the tests are right: fix the code); a pass says nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zen.agent.calls import Calls
from zen.agent.edits import syntax_check
from zen.agent.protocols.base import Call
from zen.agent.protocols.edit_blocks import from_zen
from zen.base import events as ev
from zen.base.preamble import typed
from zen.base.terminal_safe import terminal_safe
from zen.base.text import clip
from zen.llm.types import ToolCall
from zen.settings.prompts import load_prompt, render
from zen.tools.base import RunContext, ToolResult
from zen.tools.files.text import off_loop

REFLECTIONS = 3
"""Check reports a task, syntax and tests together: aider's `max_reflections`."""
TEST_MARK = "test command:"
MARKS = (syntax_check.MARK, TEST_MARK)
TAIL = 3_000
"""Characters of a failed test run's output the model reads: its end, where the failures are."""
_SPAN = re.compile(r"`([^`\n]{1,300})`")
_RUNNER = re.compile(
    r"(?:python3?\s+-m\s+(?:unittest|pytest)|py\.?test|node\s+--test|(?:npm|yarn|pnpm)\s+"
    r"(?:run\s+)?test|npx\s+(?:jest|vitest)|cargo\s+test|go\s+test|make\s+test|tox|"
    r"(?:mvn|gradle|dotnet)\s+test|(?:bundle\s+exec\s+)?rspec|phpunit)(?:\s|$)"
)
"""The test runners a quoted command may start with."""
_PLAIN_WORD = re.compile(r"[\w./:=@%+,-]+")
"""A word of a plain command: no quoting, expansion, redirection or second command."""


@dataclass(frozen=True)
class TestCommand:
    """The project's tests (`test_cmd`, `test_timeout`)."""

    command: str
    timeout: int = 120

    @classmethod
    def of(cls, command: str | None, timeout: int) -> TestCommand | None:
        """The configured command; None: off (unset or blank)."""
        return cls(command.strip(), timeout) if command and command.strip() else None

    @classmethod
    def quoted_in(cls, task: str) -> TestCommand | None:
        """The first test runner's command the task quotes in a code span, when it is plain
        words (`python -m unittest test_paging`, `node --test`): the user named how the work
        is checked, as a demanding user expects any agent to run it."""
        for span in _SPAN.findall(typed(task)):
            command = span.strip()
            if _RUNNER.match(command) and all(map(_PLAIN_WORD.fullmatch, command.split())):
                return cls(command)
        return None


class EditChecks:
    """The checks of one agent's replies; `new_run` at each task."""

    def __init__(self, calls: Calls, test: TestCommand | None = None) -> None:
        self.calls, self.configured = calls, test
        self.test = test
        """This task's: the configured one, else the one the task quotes."""
        self.refused = False
        """The test command was refused in this task: it is not asked for again."""

    def new_run(self, task: str = "") -> None:
        self.test = self.configured or TestCommand.quoted_in(task)
        self.refused = False

    async def after(
        self,
        calls: Sequence[Call],
        results: dict[str, ToolResult],
        messages: list[dict[str, Any]],
        run: RunContext,
    ) -> str | None:
        """What the model is told of the files `calls` changed (a delegate's too), or None:
        nothing changed, they pass, or the task was told `REFLECTIONS` times. The tests run
        only for an agent that may run commands (a delegated Coder may not: its Orchestrator
        tests what it did)."""
        files = [f for c in calls if c.id in results for f in results[c.id].files_changed]
        told = reported(messages)
        if not files or told >= REFLECTIONS:
            return None
        last = told + 1 == REFLECTIONS
        root = self.calls.ctx.workspace.root
        said = await off_loop(syntax_check.report, root, files, last)
        test = self._runnable()
        if said is None and test is not None:
            said = await self._tests(test, run, len(messages), last)
        return said

    async def unchanged(self, messages: list[dict[str, Any]], run: RunContext) -> str | None:
        """The tests' failure, when the agent is about to end a change-task with no file
        changed (`NothingChanged.nudge`): a small model that sent the file back as it was
        believes it fixed it; the failing run shows it did not. Same bound, same refusal."""
        told, test = reported(messages), self._runnable()
        if test is None or told >= REFLECTIONS:
            return None
        return await self._tests(test, run, len(messages), told + 1 == REFLECTIONS)

    def _runnable(self) -> TestCommand | None:
        """This task's test command, unless refused or the agent may not run commands."""
        may = not self.refused and "bash" in self.calls.registry.tools
        return self.test if may else None

    async def _tests(self, test: TestCommand, run: RunContext, seq: int, last: bool) -> str | None:
        """Run the test command as a bash call; what the model is told of a failure."""
        args = {"command": test.command, "timeout": test.timeout}
        call = ToolCall(f"test-{run.id}-{seq}", "bash", json.dumps(args))
        result = await self.calls.one(call, run, model=False)
        if not result.summary.startswith(("exit ", "timed out")):  # it never ran
            self.refused = True
            line = f"test command not run ({clip(result.summary, 120)}); not asked again this task"
            run.emit(ev.Notice(agent=self.calls.agent, text=terminal_safe(line), level="warning"))
            return None
        if result.ok:
            return None
        output = result.output.rstrip()
        if len(output) > TAIL:
            output = f"[… {len(output) - TAIL} characters cut …]\n{output[-TAIL:]}"
        return render(
            load_prompt("test-failed"),
            command=test.command,
            status=f"failed ({result.summary})"
            if result.summary.startswith("exit ")
            else result.summary,
            last=" (the last check report in this task)" if last else "",
            output=output,
        )


def reported(messages: list[dict[str, Any]]) -> int:
    """Check reports since the user's last message (zen's own messages are not the user's)."""
    told = 0
    for message in reversed(messages):
        content, role = message.get("content"), message.get("role")
        if not isinstance(content, str) or role not in ("user", "tool"):
            continue
        if role == "user" and not from_zen(content):
            break
        told += any(mark in content for mark in MARKS)
    return told

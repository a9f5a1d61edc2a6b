"""The registry turns every kind of bad call into a result the model can read."""

from __future__ import annotations

from pathlib import Path

import pytest

from zen.llm.types import ToolCall
from zen.stores.memo import MemoStore
from zen.stores.read_tracker import ReadTracker
from zen.stores.todo import TodoStore
from zen.tools.base import Approval, ApprovalRequest, Params, Tool, ToolContext, ToolResult
from zen.tools.catalog import builtin_tools
from zen.tools.registry import ToolRegistry
from zen.tools.workspace import Workspace


class Approver:
    def __init__(self, decision: str = "yes", feedback: str = "") -> None:
        self.decision, self.feedback = decision, feedback
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval(self.decision, self.feedback)  # type: ignore[arg-type]


class ShoutParams(Params):
    text: str


class Shout(Tool):
    name = "shout"
    Params = ShoutParams
    level = "auto"
    description = "test tool"  # type: ignore[assignment]

    async def execute(self, params: ShoutParams, ctx: ToolContext) -> ToolResult:
        if params.text == "boom":
            raise RuntimeError("kaboom")
        return ToolResult(True, params.text.upper() * 100)


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(
        Workspace(tmp_path), "main", ReadTracker(), MemoStore(), TodoStore(), max_tool_output=500
    )


def registry(**permissions: str) -> ToolRegistry:
    return ToolRegistry([Shout(), *builtin_tools().values()], permissions)  # type: ignore[arg-type]


async def run(
    reg: ToolRegistry, ctx: ToolContext, name: str, args: str, approver: Approver | None = None
) -> ToolResult:
    return await reg.call(ToolCall("c1", name, args), ctx, approver or Approver())


async def test_unknown_tool_lists_the_real_ones(ctx: ToolContext) -> None:
    result = await run(registry(), ctx, "shoot", "{}")
    assert not result.ok and "unknown tool 'shoot'" in result.output and "shout" in result.output


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ('{"text": ', "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        ("{}", "text: Field required"),
        ('{"text": 5}', "text: Input should be a valid string"),
        ('{"text": "a", "loud": true}', "loud: unknown parameter"),
    ],
)
async def test_bad_arguments_say_what_was_wrong(ctx: ToolContext, args: str, expected: str) -> None:
    result = await run(registry(), ctx, "shout", args)
    assert not result.ok and expected in result.output


async def test_empty_arguments_mean_no_arguments(ctx: ToolContext) -> None:
    result = await run(registry(), ctx, "memo", "")
    assert not result.ok and "action: Field required" in result.output


async def test_output_is_capped_with_a_note(ctx: ToolContext) -> None:
    result = await run(registry(), ctx, "shout", '{"text": "abc"}')
    assert result.ok and result.output.startswith("ABC")
    assert "[output cut: 300 characters" not in result.output
    long = await run(registry(), ctx, "shout", '{"text": "abcdefgh"}')
    assert len(long.output) < 600
    assert "[output cut: 800 characters, showing the first 500]" in long.output


async def test_a_crashing_tool_is_an_error_result(ctx: ToolContext) -> None:
    result = await run(registry(), ctx, "shout", '{"text": "boom"}')
    assert not result.ok and "RuntimeError: kaboom" in result.output


async def test_deny_from_permissions(ctx: ToolContext) -> None:
    result = await run(registry(shout="deny"), ctx, "shout", '{"text": "a"}')
    assert not result.ok and "denied" in result.output


async def test_confirm_asks_and_a_no_carries_the_feedback(ctx: ToolContext) -> None:
    approver = Approver("no", "use printf instead")
    result = await run(registry(), ctx, "bash", '{"command": "echo hi"}', approver)
    assert [r.preview for r in approver.asked] == ["echo hi"]
    assert not result.ok and "declined" in result.output and "use printf instead" in result.output


async def test_permissions_can_lift_confirmation(ctx: ToolContext) -> None:
    approver = Approver("no")
    result = await run(registry(bash="auto"), ctx, "bash", '{"command": "echo hi"}', approver)
    assert result.ok and "hi" in result.output and approver.asked == []


async def test_nobody_is_asked_to_approve_a_call_that_cannot_succeed(ctx: ToolContext) -> None:
    (ctx.workspace.root / "a.py").write_text("x = 1\n")
    approver = Approver("yes")
    args = '{"path": "a.py", "old_string": "x = 1", "new_string": "x = 2"}'
    result = await run(registry(), ctx, "edit-file", args, approver)
    assert approver.asked == [] and not result.ok and "read-file" in result.output
    assert (ctx.workspace.root / "a.py").read_text() == "x = 1\n"


def test_schemas_are_built_once() -> None:
    reg = registry()
    assert reg.schemas() is reg.schemas()


async def test_sandboxed_level_and_leaving_the_sandbox(ctx: ToolContext) -> None:
    """`bash: sandboxed` approves a command only when it runs sandboxed; a request to leave
    the sandbox asks a person whatever the permissions say, marked `personal`."""
    from dataclasses import replace

    from zen.settings.sandbox_options import SandboxOptions
    from zen.tools.sandbox.runner import Sandbox

    gone = SandboxOptions(program="/nonexistent/bwrap")
    missing = replace(ctx, sandbox=Sandbox("auto", gone))
    asked = Approver("no")
    await run(registry(bash="sandboxed"), missing, "bash", '{"command": "true"}', asked)
    assert len(asked.asked) == 1 and not asked.asked[0].personal
    found = await Sandbox("auto", SandboxOptions()).settle(30)
    if found is None or found.program is None:
        pytest.skip(f"no working sandbox here: {found and found.problem}")
    boxed = replace(ctx, sandbox=Sandbox("auto", SandboxOptions()))
    asked = Approver("no")
    result = await run(registry(bash="sandboxed"), boxed, "bash", '{"command": "true"}', asked)
    assert result.ok and asked.asked == []
    leave = '{"command": "true", "unsandboxed": "needs the network"}'
    await run(registry(bash="auto"), boxed, "bash", leave, asked)
    (request,) = asked.asked
    assert request.personal and "(outside the sandbox: needs the network)" in request.preview
    on = replace(ctx, sandbox=Sandbox("on", SandboxOptions()))
    result = await run(registry(bash="auto"), on, "bash", leave, asked)
    assert "nothing runs outside it" in result.output and len(asked.asked) == 1

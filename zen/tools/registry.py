"""The registry: the one door every tool call goes through.

It turns the model's raw call into a validated one or into an error result the model can read
(unknown tool, broken JSON, a missing or wrong-typed parameter), applies the permission level
(asking the approver for `confirm`), runs the tool, and caps what goes back to the model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from zen.base.text import encodable, encodable_in
from zen.llm.types import ToolCall
from zen.settings.schema import PermissionLevel
from zen.tools.base import ApprovalRequest, Approver, Tool, ToolContext, ToolResult
from zen.tools.hooks import Hooks, Permission, claude_input, zen_input


def parse_arguments(raw: str) -> dict[str, Any] | str:
    """The call's arguments as a dict, or the reason they are unusable."""
    try:
        args = json.loads(raw) if raw.strip() else {}
    except json.JSONDecodeError as e:
        return f"arguments were not valid JSON ({e.msg} at char {e.pos}); send one JSON object"
    except RecursionError:
        return "arguments are nested too deeply; send a flat JSON object"
    if not isinstance(args, dict):
        return f"arguments must be a JSON object, not {type(args).__name__}"
    if "\\u" in raw:  # `\ud83d` alone decodes to a lone surrogate: unprintable, unsendable
        args = encodable_in(args)
    return args


def describe_validation(error: ValidationError) -> str:
    parts = []
    for err in error.errors():
        where = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = "unknown parameter" if err["type"] == "extra_forbidden" else err["msg"]
        parts.append(f"{where}: {msg}")
    return "; ".join(parts)


def cap(text: str, limit: int) -> str:
    """Cut `text` to `limit` characters, saying so, so the model knows it saw only part."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[output cut: {len(text):,} characters, showing the first {limit:,}]"


class ToolRegistry:
    def __init__(
        self, tools: list[Tool], permissions: Mapping[str, PermissionLevel] | None = None
    ) -> None:
        self.tools = {t.name: t for t in tools}
        self.permissions = dict(permissions or {})
        # Built once: every request must repeat the tool list byte for byte (prefix caching).
        self._schemas = [t.schema() for t in tools]

    def schemas(self) -> list[dict[str, Any]]:
        return self._schemas

    def detail(self, name: str, args: dict[str, Any]) -> str:
        """What a log line shows of a call, in its tool's words."""
        tool = self.tools.get(name)
        try:
            return " ".join(tool.key_arg(args).split()) if tool else ""
        except Exception:  # odd arguments must not cost the log line, let alone the run
            return ""

    def is_read_only(self, call: ToolCall) -> bool:
        """Read-only calls that need no approval may run side by side."""
        tool = self.tools.get(call.name)
        return bool(
            tool and tool.read_only and self.permissions.get(call.name, tool.level) == "auto"
        )

    def may_change_files(self, call: ToolCall) -> bool:
        """Whether this call could change workspace files (a call that cannot run cannot)."""
        tool = self.tools.get(call.name)
        args = parse_arguments(call.arguments)
        if tool is None or isinstance(args, str):
            return False
        try:
            return tool.may_change_files(args)
        except Exception:  # odd arguments: assume the worst
            return True

    async def call(self, call: ToolCall, ctx: ToolContext, approver: Approver) -> ToolResult:
        """Run one call; never raises except on cancellation."""
        tool = self.tools.get(call.name)
        if tool is None:
            return ToolResult.error(
                f"unknown tool {call.name!r}; available tools: {', '.join(self.tools)}",
                malformed=True,
            )
        checked = _validated(tool, call)
        if isinstance(checked, ToolResult):
            return checked
        args, params = checked
        hooks = ctx.hooks
        forced: Permission | None = None
        if hooks and hooks.wants("PreToolUse", tool):
            hooked = await _pre_tool_use(hooks, tool, call, args, params, ctx)
            if isinstance(hooked, ToolResult):
                return hooked
            args, params, forced = hooked
        result, ran = await self._permitted_run(tool, call, params, args, ctx, approver, forced)
        if ran and hooks and hooks.wants("PostToolUse", tool):
            await _post_tool_use(hooks, tool, args, result, ctx)
        _cut_for_model(result, ctx.max_tool_output)
        return result

    async def _permitted_run(
        self,
        tool: Tool,
        call: ToolCall,
        params: Any,
        args: dict[str, Any],
        ctx: ToolContext,
        approver: Approver,
        forced: Permission | None,
    ) -> tuple[ToolResult, bool]:
        """The call's result, and whether the tool ran (PostToolUse hooks see only those)."""
        ran = False
        try:
            result = await self._permitted(tool, params, args, ctx, approver, forced)
            if result is None:
                if ctx.before_change is not None and tool.may_change_files(args):
                    await ctx.before_change(tool.name, args)
                ran = True
                result = await tool.execute(params, ctx)
        except Exception as e:  # a tool bug must not end the run; the model reads it instead
            result = ToolResult.error(f"{call.name} failed: {type(e).__name__}: {e}")
        return result, ran

    async def _permitted(
        self,
        tool: Tool,
        params: Any,
        args: dict[str, Any],
        ctx: ToolContext,
        approver: Approver,
        forced: Permission | None = None,
    ) -> ToolResult | None:
        """None when the call may run; else the result that stands in for it. A PreToolUse
        hook's `allow` skips the question, its `ask` asks even for an auto-level tool."""
        level = self.permissions.get(tool.name) or tool.level_for(params, ctx)
        await tool.settle(params, ctx)
        if level == "sandboxed":
            level = "auto" if tool.sandboxed(params, ctx) else "confirm"
        personal = tool.person_only(params, ctx)
        if level == "auto" and (personal or tool.must_confirm(params, ctx)):
            level = "confirm"
        if level == "deny":
            return ToolResult.error(f"{tool.name} is denied by the permissions configuration")
        if not personal and (
            forced == "allow"
            or (forced != "ask" and (level == "auto" or tool.allowed_by_rule(params, ctx)))
        ):
            return None
        preview = await tool.preview(params, ctx)
        if isinstance(preview, ToolResult):
            return preview  # it cannot succeed: nobody is asked
        box = ctx.sandbox if tool.sandboxed(params, ctx) else None
        confined = box.rules() if box is not None else ""
        request = ApprovalRequest(
            ctx.agent,
            tool.name,
            args,
            preview,
            personal=personal,
            confined=confined,
            rule=tool.rule(params, ctx),
        )
        approval = await approver(request)
        if approval.decision != "no":
            return None
        reason = approval.feedback.strip() or "no reason given"
        return ToolResult(
            ok=False,
            output=f"The user declined this {tool.name} call: {reason}",
            summary=f"declined: {reason}"[:120],
        )


def _validated(tool: Tool, call: ToolCall) -> tuple[dict[str, Any], Any] | ToolResult:
    """The call's arguments and its tool's Params, or the error result saying what is wrong."""
    args = parse_arguments(call.arguments)
    if isinstance(args, str):
        return ToolResult.error(f"{call.name}: {args}", malformed=True)
    try:
        params = tool.Params.model_validate(args)
    except ValidationError as e:
        return ToolResult.error(
            f"{call.name}: invalid arguments: {describe_validation(e)}", malformed=True
        )
    return args, params


async def _pre_tool_use(
    hooks: Hooks,
    tool: Tool,
    call: ToolCall,
    args: dict[str, Any],
    params: Any,
    ctx: ToolContext,
) -> tuple[dict[str, Any], Any, Permission | None] | ToolResult:
    """The PreToolUse hooks' say: a block (as the result), else the arguments as they left them
    and the permission they forced."""
    # Before the question: the user approves the input as the hooks left it.
    said = await hooks.run(
        "PreToolUse",
        ctx.run.emit,
        ctx.agent,
        tool=tool,
        tool_input=claude_input(tool, args, ctx.workspace.root),
    )
    if said.block:
        return ToolResult.error(f"{call.name} was blocked by a hook: {said.reason}")
    if said.updated_input is not None:
        args = zen_input(tool, {**args, **said.updated_input}, ctx.workspace.root)
        try:
            params = tool.Params.model_validate(args)
        except ValidationError as e:
            return ToolResult.error(
                f"{call.name}: a hook changed the arguments into "
                f"invalid ones: {describe_validation(e)}"
            )
    return args, params, said.permission


async def _post_tool_use(
    hooks: Hooks, tool: Tool, args: dict[str, Any], result: ToolResult, ctx: ToolContext
) -> None:
    """The PostToolUse hooks' notes (and a block's reason) appended to the output."""
    said = await hooks.run(
        "PostToolUse",
        ctx.run.emit,
        ctx.agent,
        tool=tool,
        tool_input=claude_input(tool, args, ctx.workspace.root),
        tool_response={"ok": result.ok, "output": result.output},
    )
    notes = [*said.context, *([said.reason] if said.block else [])]
    if notes:
        result.output += "\n[PostToolUse hook] " + "\n".join(notes)


def _cut_for_model(result: ToolResult, limit: int) -> None:
    """The output capped, and every text the model or the screen sees made encodable."""
    result.output = encodable(cap(result.output, limit))
    result.summary, result.diff = encodable(result.summary), encodable(result.diff)
    result.files_changed = [encodable(f) for f in result.files_changed]

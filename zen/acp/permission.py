"""zen's approver answered by the editor: `session/request_permission` with zen's three answers.

Allow once is `yes`, always allow is `always` (remembered per tool for the session, saved with
it, as the shell's `a`; for bash per command, "Always allow `pytest …`", an allow rule, and not
offered for a command no rule fits), reject is `no`: the model reads that the user declined. A
request the client cancels, or cannot answer, is a refusal too — nothing runs without a yes. A
request to run a command outside the sandbox is asked every time, so it is not offered "always
allow".
"""

from __future__ import annotations

import logging
import uuid
from typing import Any, Literal

from acp.schema import AllowedOutcome, PermissionOption, ToolCallUpdate

from zen.acp.updates import Updates, edit_content, kind_of, locations, text_content, title_of
from zen.settings.command_rules import always_names, kept
from zen.tools.base import Approval, ApprovalRequest

log = logging.getLogger("zen.acp")

OPTIONS = [
    PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
    PermissionOption(option_id="always", name="Always allow", kind="allow_always"),
    PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
]
EVERY_TIME = [option for option in OPTIONS if option.kind != "allow_always"]
"""What a request offers when "always" may not be kept (leaving the sandbox, or a bash
command no allow rule fits)."""
DECISIONS: dict[str, Literal["yes", "always", "no"]] = {
    "allow": "yes",
    "always": "always",
    "reject": "no",
}


class EditorApprover:
    """The approver of one prompt: asks the client about the call the request belongs to."""

    def __init__(self, conn: Any, session_id: str, session: Any, updates: Updates) -> None:
        self.conn = conn
        self.session_id = session_id
        self.session = session
        self.updates = updates

    async def __call__(self, request: ApprovalRequest) -> Approval:
        if request.tool in self.session.always and not request.personal:
            return Approval("yes")
        updates = self.updates
        acp_id = updates.find_call(request.agent, request.tool, request.args)
        if acp_id is None:  # not shown yet (a hook asked): show it now, so it can be closed
            acp_id = f"{request.agent}/ask-{uuid.uuid4().hex[:8]}"
            updates.started(acp_id, request.agent, request.tool)
        await updates.drain()  # the call is on the client's screen before the question
        workspace = self.session.workspace
        content = edit_content(workspace, request.tool, request.args)
        if not content and request.preview:
            content = [text_content(request.preview)]
        if request.confined:
            content = [*(content or []), text_content(f"runs sandboxed: {request.confined}")]
        call = ToolCallUpdate(
            tool_call_id=acp_id,
            title=title_of(request.tool, _detail(request)),
            kind=kind_of(request.tool),
            status="pending",
            content=content or None,
            locations=locations(workspace, request.tool, request.args) or None,
            raw_input=request.args,
        )
        what = "" if request.personal else always_names(request.rule, request.tool)
        try:
            answer = await self.conn.request_permission(
                session_id=self.session_id, tool_call=call, options=_options(what, request.rule)
            )
        except Exception as e:  # the client failed or went away: nothing runs
            log.warning("zen acp: permission request failed: %s", e)
            return Approval("no", f"the editor could not be asked ({e})")
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Approval("no", "the user cancelled the question")
        decision = DECISIONS.get(outcome.option_id)
        if decision is None:
            return Approval(
                "no", f"the editor answered with an unknown option {outcome.option_id!r}"
            )
        if decision == "always" and not what:
            decision = "yes"  # not offered: leaving the sandbox, or a command no rule fits
        if decision == "always":
            self.session.always.add(kept(request.rule) if request.rule else request.tool)
        if decision == "no":
            return Approval("no", "the user rejected it in the editor")
        return Approval(decision)


def _detail(request: ApprovalRequest) -> str:
    for key in ("path", "command", "args"):
        value = request.args.get(key)
        if value:
            return str(value)
    return ""


def _options(what: str, rule: str | None) -> list[PermissionOption]:
    """The three answers; "always" named for the command rule it keeps, or left out."""
    if not what:
        return EVERY_TIME
    if rule is None:
        return OPTIONS
    always = PermissionOption(option_id="always", name=f"Always allow {what}", kind="allow_always")
    return [OPTIONS[0], always, OPTIONS[2]]

"""zen's typed events as ACP `session/update` notifications, sent in the order they happened.

`Emit` is synchronous and sending is not, so events are turned into updates at once and put on
a queue one task sends from: the client sees them in order, and `drain()` waits until all
were sent (before a permission request, and before a prompt's response). Every tool call the
client was shown gets a final status: `close_open_calls()` fails those a cancel or a retry
left behind, so no call stays "in progress" in the editor.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from acp import helpers
from acp.schema import (
    ContentToolCallContent,
    FileEditToolCallContent,
    PlanEntryStatus,
    ToolCallLocation,
    ToolKind,
)

from zen.base import events as ev
from zen.base.terminal_safe import terminal_safe
from zen.tools.catalog import described
from zen.tools.workspace import PathError, Workspace

log = logging.getLogger("zen.acp")

PLAN_STATUS: dict[str, PlanEntryStatus] = {
    "pending": "pending",
    "in_progress": "in_progress",
    "done": "completed",
}
OUTPUT_SHOWN = 4000
"""Characters of a tool's output shown in the editor (the model gets all of it)."""
TITLE_CHARS = 200


def kind_of(tool: str) -> ToolKind:
    """ACP's kind of a call of `tool` (the editor's icon): the tool's own (`Tool.acp_kind`),
    `other` for MCP tools."""
    described_as = described(tool)
    return described_as.acp_kind if described_as else "other"


def title_of(tool: str, detail: str = "") -> str:
    """`read-file app.py`: one printable line."""
    title = " ".join(terminal_safe(f"{tool} {detail}").split())
    return title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…"


def locations(workspace: Workspace, tool: str, args: dict[str, Any]) -> list[ToolCallLocation]:
    """The file a call is about, as an absolute path the editor can open (none outside the
    workspace: the tool will refuse it anyway)."""
    path = args.get("path")
    described_as = described(tool)
    if not isinstance(path, str) or not (described_as and described_as.file_arg):
        return []
    try:
        real = workspace.resolve(path)
    except PathError:
        return []
    line = args.get("offset") if tool == "read-file" else None
    return [ToolCallLocation(path=str(real), line=line if isinstance(line, int) else None)]


def edit_content(workspace: Workspace, tool: str, args: dict[str, Any]) -> list[Any]:
    """A write or an edit as ACP's diff content (what the editor shows and asks about)."""
    path = args.get("path")
    if not isinstance(path, str):
        return []
    try:
        real = str(workspace.resolve(path))
    except PathError:
        return []
    if tool == "edit-file" and isinstance(args.get("new_string"), str):
        old = args.get("old_string")
        return [
            FileEditToolCallContent(
                type="diff",
                path=real,
                old_text=old if isinstance(old, str) else None,
                new_text=args["new_string"],
            )
        ]
    if tool == "write-file" and isinstance(args.get("content"), str):
        return [FileEditToolCallContent(type="diff", path=real, new_text=args["content"])]
    return []


def text_content(text: str) -> ContentToolCallContent:
    if len(text) > OUTPUT_SHOWN:
        text = text[:OUTPUT_SHOWN] + f"\n… [{len(text) - OUTPUT_SHOWN:,} more characters]"
    return helpers.tool_content(helpers.text_block(text))


class Updates:
    """One prompt's events → `session/update`s, in order, for one ACP session."""

    def __init__(self, conn: Any, session_id: str, session: Any) -> None:
        self.conn = conn
        self.session_id = session_id
        self.session = session
        self.top = session.role
        self._queue: asyncio.Queue[Any] = asyncio.Queue()
        self._pump: asyncio.Task[None] | None = None
        self.open: dict[str, tuple[str, str, dict[str, Any]]] = {}
        """Calls shown and not finished: ACP id → (agent, tool, arguments)."""
        self.failed_to_send = False

    # -- sending ----------------------------------------------------------------------------

    def send(self, update: Any) -> None:
        self._queue.put_nowait(update)
        if self._pump is None or self._pump.done():
            self._pump = asyncio.ensure_future(self._send_all())

    async def _send_all(self) -> None:
        while not self._queue.empty():
            update = self._queue.get_nowait()
            try:
                await self.conn.session_update(session_id=self.session_id, update=update)
            except Exception as e:  # the client went away: the run goes on, unseen
                if not self.failed_to_send:
                    log.warning("zen acp: a session/update could not be sent: %s", e)
                self.failed_to_send = True
            finally:
                self._queue.task_done()

    async def drain(self) -> None:
        """Wait until every update so far was sent."""
        while self._pump is not None and not self._pump.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(self._pump)

    def message(self, text: str) -> None:
        if text:
            self.send(helpers.update_agent_message_text(text))

    def thought(self, text: str) -> None:
        if text:
            self.send(helpers.update_agent_thought_text(text))

    # -- events -----------------------------------------------------------------------------

    def call_id(self, agent: str, call_id: str) -> str:
        """The ACP id of an agent's call: a Coder's or sub-agent's ids are their own."""
        return call_id if agent == self.top else f"{agent}/{call_id}"

    def __call__(self, event: ev.Event) -> None:
        try:
            self._render(event)
        except Exception as e:  # a rendering bug must never end a run
            log.warning("zen acp: could not render %s: %s", event.kind, e)

    def _render(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            if event.agent == self.top:
                self.message(event.text)
            else:
                self.thought(event.text)
        elif isinstance(event, ev.ReasoningDelta):
            self.thought(event.text)
        elif isinstance(event, ev.ToolCallStarted):
            self.started(self.call_id(event.agent, event.call_id), event.agent, event.name)
        elif isinstance(event, ev.ToolCallRunning):
            self.running(event)
        elif isinstance(event, ev.ToolCallFinished):
            self.finished(event)
        elif isinstance(event, ev.Retrying) and event.agent == self.top:
            self.message("\n\n[the connection dropped; the answer starts again]\n\n")
        elif isinstance(event, ev.Triaged):  # how zen runs the task: not part of the answer
            self.thought(f"{event.text}\n")
        elif isinstance(event, ev.Notice):
            self.message(f"\n\nzen: {event.text}\n\n")
        elif isinstance(event, ev.Compacted):
            self.thought(f"\n{event.line}\n")
        elif isinstance(event, ev.Error):
            self.message(f"\n\nzen: {event.message}\n\n")

    def started(self, acp_id: str, agent: str, tool: str) -> None:
        if acp_id in self.open:
            return
        self.open[acp_id] = (agent, tool, {})
        self.send(
            helpers.start_tool_call(
                acp_id,
                title_of(tool),
                kind=kind_of(tool),
                status="pending",
            )
        )

    def running(self, event: ev.ToolCallRunning) -> None:
        acp_id = self.call_id(event.agent, event.call_id)
        self.started(acp_id, event.agent, event.name)
        self.open[acp_id] = (event.agent, event.name, event.args)
        workspace = self.session.workspace
        self.send(
            helpers.update_tool_call(
                acp_id,
                title=title_of(event.name, event.detail),
                kind=kind_of(event.name),
                status="in_progress",
                locations=locations(workspace, event.name, event.args),
                content=edit_content(workspace, event.name, event.args) or None,
                raw_input=event.args,
            )
        )

    def finished(self, event: ev.ToolCallFinished) -> None:
        acp_id = self.call_id(event.agent, event.call_id)
        self.started(acp_id, event.agent, event.name)
        self.open.pop(acp_id, None)
        shown = event.diff if event.ok and event.diff else event.output
        content: list[Any] = edit_content(self.session.workspace, event.name, event.args)
        if not (event.ok and content):
            content = [text_content(shown)] if shown else []
        self.send(
            helpers.update_tool_call(
                acp_id,
                status="completed" if event.ok else "failed",
                content=content,
                raw_output={"ok": event.ok, "summary": event.summary},
            )
        )
        if event.name == "todo":
            self.plan()

    def plan(self) -> None:
        entries = [
            helpers.plan_entry(item.text, status=PLAN_STATUS.get(item.status, "pending"))
            for item in self.session.todo.items
        ]
        self.send(helpers.update_plan(entries))

    def close_open_calls(self, why: str) -> None:
        """Every call still open ends as failed, saying why (a cancel, a dropped stream)."""
        for acp_id in list(self.open):
            self.open.pop(acp_id)
            self.send(
                helpers.update_tool_call(acp_id, status="failed", content=[text_content(why)])
            )

    def find_call(self, agent: str, tool: str, args: dict[str, Any]) -> str | None:
        """The open call a permission request is about: the agent's running call of that
        tool, the one with these arguments when there are several."""
        mine = [
            acp_id for acp_id, (who, name, _) in self.open.items() if who == agent and name == tool
        ]
        exact = [i for i in mine if self.open[i][2] == args]
        found = exact or mine
        return found[-1] if found else None

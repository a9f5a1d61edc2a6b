"""`todo`: the step list an agent keeps for multi-step work (ctx.todo).

Every action answers with the whole rendered list, so the model never has to ask for it.
"""

from __future__ import annotations

from typing import Literal

from zen.stores.todo import Status
from zen.tools.base import Params, Tool, ToolContext, ToolResult


class TodoParams(Params):
    action: Literal["add", "update", "list", "clear"]
    items: list[str] | None = None
    id: int | None = None
    status: Status | None = None


class Todo(Tool):
    name = "todo"
    Params = TodoParams
    claude_name = "TodoWrite"
    acp_kind = "think"
    needs = "todo"

    def may_change_files(self, args: dict[str, object]) -> bool:
        return False  # it writes zen's own store, not the workspace

    def key_arg(self, args: dict[str, object]) -> str:
        return str(args.get("action", ""))

    async def execute(self, params: TodoParams, ctx: ToolContext) -> ToolResult:
        todo = ctx.todo
        if params.action == "add":
            items = [t.strip() for t in params.items or [] if t.strip()]
            if not items:
                return ToolResult.error("todo add needs `items` (a list of steps)")
            todo.add(items)
        elif params.action == "update":
            if params.id is None or params.status is None:
                missing = "`id`" if params.id is None else "`status`"
                return ToolResult.error(f"todo update needs {missing}")
            if todo.update(params.id, params.status) is None:
                ids = ", ".join(str(i.id) for i in todo.items) or "none"
                return ToolResult.error(f"no todo with id {params.id} (ids: {ids})")
        elif params.action == "clear":
            todo.clear()
        done = sum(i.status == "done" for i in todo.items)
        return ToolResult(True, todo.render(), summary=f"{done}/{len(todo.items)} done")

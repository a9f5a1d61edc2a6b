"""The task plan an agent keeps for multi-step work."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Status = Literal["pending", "in_progress", "done"]
MARKS: dict[str, str] = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


@dataclass
class TodoItem:
    id: int
    text: str
    status: Status = "pending"


@dataclass
class TodoStore:
    items: list[TodoItem] = field(default_factory=list)

    def add(self, texts: list[str]) -> list[TodoItem]:
        start = max((i.id for i in self.items), default=0)
        new = [TodoItem(start + n + 1, t) for n, t in enumerate(texts)]
        self.items.extend(new)
        return new

    def update(self, item_id: int, status: Status) -> TodoItem | None:
        for item in self.items:
            if item.id == item_id:
                item.status = status
                return item
        return None

    def clear(self) -> None:
        self.items.clear()

    def render(self) -> str:
        if not self.items:
            return "(no todos)"
        return "\n".join(f"{MARKS[i.status]} {i.id}. {i.text}" for i in self.items)

"""Front ends call the session's methods, never its parts: the shell, `-p`, `zen acp`, the CLI and
`zen bench` hold a `Session` and ask it (`zen/agent/session_front.py`), so a part of the
session can change without a front end changing with it. Checked on the source with `ast`."""

from __future__ import annotations

import ast
from pathlib import Path

ZEN = Path(__file__).resolve().parent.parent / "zen"
FRONT_ENDS = ("ui", "acp", "cli", "bench")
PARTS = {
    "conversation",
    "record",
    "models",
    "builder",
    "memo_keeper",
    "current_run",
    "prompt_hooks",
    "coder_ledger",
}
"""What a session is composed of (`Session.__init__`); its shared stores (memo, todo, mcp,
checkpoints, workspace) are documented attributes, not parts."""


def reaches(source: str) -> list[tuple[int, str]]:
    """(line, `session.<part>`) for every attribute of a session's part used in `source`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Attribute) and node.attr in PARTS):
            continue
        owner = node.value
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if name == "session":
            found.append((node.lineno, f"session.{node.attr}"))
    return found


def test_front_ends_call_the_sessions_methods_not_its_parts() -> None:
    found = [
        f"{path.relative_to(ZEN.parent)}:{line} {what}"
        for unit in FRONT_ENDS
        for path in sorted((ZEN / unit).rglob("*.py"))
        for line, what in reaches(path.read_text("utf-8"))
    ]
    assert found == [], "\n".join(found)


def test_the_check_sees_each_way_of_reaching() -> None:
    source = (
        "session.record.id\n"
        "ctx.session.conversation.history\n"
        "self.session.models.usage\n"
        "session.memo\n"
        "session.id\n"
        "x.record\n"
    )
    assert [what for _, what in reaches(source)] == [
        "session.record",
        "session.conversation",
        "session.models",
    ]

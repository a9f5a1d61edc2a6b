"""A tool describes itself: its class says what every other part of zen needs to know.

The names are the descriptions in prompts/tools/ (plain data settings can read); the catalog
finds each one's class by that name. These tests check the catalog against the names and
against everything that reads a tool's description: permission keys, the read-only work mode,
hooks' Claude Code names, ACP's kinds, what an agent needs to hold a tool, nesting in the log.
"""

from __future__ import annotations

import ast
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from tests.conftest import closing
from zen.acp.updates import kind_of, locations
from zen.agent import work_modes
from zen.agent.session import Session
from zen.mcp.tool import McpTool, RemoteTool
from zen.settings.extensions import Extension
from zen.settings.prompts import data_dir, tool_names
from zen.settings.schema import Config
from zen.tools.base import AcpKind, Needs, Tool
from zen.tools.catalog import builtin_tools, described, tool_classes
from zen.tools.hooks import Hook, claude_input, zen_input
from zen.tools.workspace import Workspace
from zen.ui.tool_calls import nests

pytestmark = pytest.mark.usefixtures("close_clients")

ZEN = Path(__file__).resolve().parent.parent / "zen"
FIELDS = ("level", "read_only", "writes", "claude_name", "acp_kind", "nests", "needs", "file_arg")
DESCRIPTIONS: dict[str, tuple[Any, ...]] = {
    # name: level, read_only, writes, claude_name, acp_kind, nests, needs, file_arg
    "read-file": ("auto", True, False, "Read", "read", False, None, True),
    "write-file": ("confirm", False, True, "Write", "edit", False, None, True),
    "edit-file": ("confirm", False, True, "Edit", "edit", False, None, True),
    "glob": ("auto", True, False, "Glob", "search", False, None, False),
    "grep": ("auto", True, False, "Grep", "search", False, None, False),
    "bash": ("confirm", False, True, "Bash", "execute", False, None, False),
    "memo": ("auto", False, False, "", "think", False, None, False),
    "todo": ("auto", False, False, "TodoWrite", "think", False, "todo", False),
    "send-to-coder": ("auto", False, True, "", "other", True, None, False),
    "revert-coder": ("auto", False, False, "", "edit", False, "checkpoints", False),
    "spawn-agents": ("confirm", False, True, "Task", "other", True, "parallel_agents", False),
    "git": ("confirm", False, False, "", "execute", False, "git", False),
    "skill": ("auto", True, False, "", "read", False, "skills", False),
}
"""Every tool's description, written out once: the tables it replaced said the same (WRITERS,
CLAUDE_NAMES, KINDS, the builder's `off` map, NESTING_TOOLS, PATH_TOOLS), so a change here is
a change of behaviour, made on purpose."""


def test_the_catalog_is_the_descriptions_folder() -> None:
    md = {p.stem for p in (data_dir("prompts") / "tools").glob("*.md")}
    assert set(tool_names()) == md == set(tool_classes()) == set(builtin_tools())
    for name, cls in tool_classes().items():
        assert cls.name == name
        assert cls.__module__ == f"zen.tools.{name.replace('-', '_')}"


def test_every_tool_class_is_in_the_catalog_one_per_module() -> None:
    """No tool hides in a module the catalog does not read; no module holds two tools (ACP's
    editor-backed file tools are the same tools through another transport)."""
    bases = {"Tool", *(cls.__name__ for cls in tool_classes().values())}
    found: dict[str, list[str]] = {}
    for path in ZEN.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and b.id in bases for b in node.bases
            ):
                found.setdefault(path.relative_to(ZEN).as_posix(), []).append(node.name)
    catalog = {
        f"{cls.__module__.removeprefix('zen.').replace('.', '/')}.py": [cls.__name__]
        for cls in tool_classes().values()
    }
    found.pop("mcp/tool.py")  # McpTool: one class, a tool per server tool
    assert found.pop("acp/client_files.py") == [
        "ClientReadFile",
        "ClientEditFile",
        "ClientWriteFile",
    ]
    assert found == catalog


def test_each_tool_describes_itself() -> None:
    table = {name: tuple(getattr(cls, f) for f in FIELDS) for name, cls in tool_classes().items()}
    assert table == DESCRIPTIONS


def test_the_description_types_are_the_readers_own() -> None:
    """The kinds are ACP's; what a tool may need is what the builder can tell."""
    schema = pytest.importorskip("acp.schema")
    assert set(typing.get_args(AcpKind)) == set(typing.get_args(schema.ToolKind))
    assert {cls.needs for cls in tool_classes().values()} - {None} == set(typing.get_args(Needs))


def test_permission_keys_are_the_names() -> None:
    config = Config.model_validate({"permissions": dict.fromkeys(tool_names(), "deny")})
    assert set(config.permissions) == set(tool_classes())
    with pytest.raises(ValidationError, match="did you mean read-file"):
        Config.model_validate({"permissions": {"read-files": "deny"}})


def test_a_read_only_work_mode_keeps_only_what_does_not_write() -> None:
    tools = list(builtin_tools().values())
    kept = {t.name for t in work_modes.tools_for("explain", tools)}
    writers = {"write-file", "edit-file", "bash", "send-to-coder", "spawn-agents"}
    assert kept == set(tool_classes()) - writers
    assert work_modes.tools_for("develop", tools) == tools


def test_hooks_know_each_tool_by_its_claude_code_name(tmp_path: Path) -> None:
    for name, tool in builtin_tools().items():
        theirs = tool.claude_name or name
        assert Hook("PreToolUse", theirs, "true").matches(tool)
        assert Hook("PreToolUse", name, "true").matches(tool)
        shown = claude_input(tool, {"path": "a.py"}, tmp_path)
        assert ("file_path" in shown) is tool.file_arg
        back = zen_input(tool, {"file_path": "b.py"}, tmp_path)
        assert back == ({"path": "b.py"} if tool.file_arg else {})
    assert not Hook("PreToolUse", "Bash", "true").matches(builtin_tools()["read-file"])


def test_acp_and_the_log_read_the_same_descriptions(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    (tmp_path / "a.py").write_text("")
    for name, cls in tool_classes().items():
        assert kind_of(name) == cls.acp_kind
        assert nests(name) is cls.nests
        assert bool(locations(workspace, name, {"path": "a.py"})) is cls.file_arg
        assert described(name) is cls
    assert kind_of("mcp__time__now") == "other" and not nests("mcp__time__now")


def test_acp_file_tools_and_mcp_tools_fit_the_same_description() -> None:
    from zen.acp.client_files import ClientEditFile, ClientReadFile, ClientWriteFile

    for cls in (ClientReadFile, ClientEditFile, ClientWriteFile):
        parent = tool_classes()[cls.name]
        assert [getattr(cls, f) for f in FIELDS] == [getattr(parent, f) for f in FIELDS]
    for read_only in (True, False):
        caller: Any = type("Caller", (), {"name": "srv"})()
        mcp = McpTool("mcp__srv__t", RemoteTool("t", read_only=read_only), caller, "confirm")
        assert (mcp.writes, mcp.read_only) == (not read_only, read_only)
        assert (mcp.claude_name, mcp.acp_kind, mcp.nests, mcp.needs) == ("", "other", False, None)
        assert isinstance(mcp, Tool)


@pytest.mark.parametrize(
    ("settings", "facts", "skills", "gone"),
    [
        ({}, "", False, {"git", "skill"}),
        ({"features": {"todo": "off", "parallel_agents": "off"}}, "git: main", True, set()),
    ],
)
def test_an_agent_holds_a_tool_only_when_what_it_needs_is_there(
    tmp_path: Path, settings: dict[str, Any], facts: str, skills: bool, gone: set[str]
) -> None:
    """revert-coder needs checkpoints (none here), git a repository, skill some skills, todo
    and spawn-agents their features."""
    config = Config.model_validate({"api_key": "k", **settings})
    folder = tmp_path / "skill"
    extension = Extension("s", "d", "body", folder / "SKILL.md")
    session = closing(
        Session(config, Workspace(tmp_path), git_facts=facts, skills=[extension] if skills else [])
    )
    held = set(session.builder.registry(list(tool_classes())).tools)
    off = {"revert-coder"} | gone
    if settings:
        off |= {"todo", "spawn-agents"}
    assert held == set(tool_classes()) - off

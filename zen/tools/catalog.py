"""The built-in tools, by name. Tools are stateless, so one instance serves every agent."""

from __future__ import annotations

from zen.tools.base import Tool


def builtin_tools() -> dict[str, Tool]:
    from zen.tools.bash import Bash
    from zen.tools.edit_file import EditFile
    from zen.tools.git import Git
    from zen.tools.glob import Glob
    from zen.tools.grep import Grep
    from zen.tools.memo import Memo
    from zen.tools.read_file import ReadFile
    from zen.tools.revert_coder import RevertCoder
    from zen.tools.send_to_coder import SendToCoder
    from zen.tools.spawn_agents import SpawnAgents
    from zen.tools.todo import Todo
    from zen.tools.write_file import WriteFile

    tools: list[Tool] = [
        ReadFile(),
        WriteFile(),
        EditFile(),
        Glob(),
        Grep(),
        Bash(),
        Memo(),
        Todo(),
        SendToCoder(),
        RevertCoder(),
        SpawnAgents(),
        Git(),
    ]
    return {t.name: t for t in tools}


def shell_name() -> str:
    from zen.tools.bash import shell_description

    return shell_description()

"""At start: undo the sandboxed commands a zen killed mid-command left in this workspace.

A SIGKILL (or a crash, or a closed laptop lid's OOM) skips the undo after a command and leaves
its temp folder behind. Its journal stays in `~/.zen/sandbox/` (see `journal`), and the next
zen started in that workspace replays it before anything reads the workspace (trust, config,
git). A zen still running holds its journal's lock, so a second zen in the same workspace
never undoes the first's running command. Costs one listdir when there is nothing to do.
"""

from __future__ import annotations

from pathlib import Path

from zen.tools.sandbox import journal


def recover(root: Path) -> list[str]:
    """Undo what gone zens' commands left in `root`; one line per undone path, or per
    journal that could not be replayed, for the user."""
    lines: list[str] = []
    for folder, journals in journal.stale(root):
        for path in journals:
            lines += _replay(folder, path, root)
        if not any(folder.glob("*.json")):
            journal.remove_tree(folder)
    return lines


def _replay(folder: Path, path: Path, root: Path) -> list[str]:
    from zen.tools.sandbox.guard import replay

    try:
        data = journal.load(path)
        if Path(data["root"]) != root:
            return []
        lines = replay(folder, data)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return [f"could not undo a killed zen's sandboxed command (journal {path}): {exc}"]
    path.unlink(missing_ok=True)
    said = f"undid what a sandboxed command of a killed zen (pid {data.get('pid', '?')}) changed"
    return [f"{said}: {line}" for line in lines]

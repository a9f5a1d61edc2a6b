"""The git layer of the system prompt: the branch and a one-line status, gathered once.

`auto` looks for a `.git` on the way up from the workspace before running anything, so a
session outside a repository never starts a process. The text is computed once per session
and never refreshed: the prompt must stay byte-identical for providers' prefix caches.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from zen.settings.prompts import load_prompt, render
from zen.tools.git_process import GitError, run_git

STATUS_TIMEOUT = 3.0
KINDS = ("conflicted", "staged", "modified", "untracked")


def find_work_tree(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding `.git` (a folder, or a worktree's file)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return None


async def git_facts(root: Path, setting: str, *, timeout: float = STATUS_TIMEOUT) -> str:
    """`Git: branch main; 2 modified, 1 untracked`, or "" when git is off for this session.

    `setting` is `features.git`: off, on, or auto (on inside a git work tree). An empty
    result also keeps the git tool away from the agents.
    """
    if setting == "off" or (setting == "auto" and find_work_tree(root) is None):
        return ""
    try:
        out = await run_git(["status", "--porcelain=v1", "-b"], root, timeout=timeout)
    except GitError as exc:
        return render(load_prompt("git"), branch="unknown", status=f"status unavailable: {exc}")
    if out.code != 0:
        reason = (out.stderr.strip().splitlines() or [f"git exited with {out.code}"])[0]
        return render(load_prompt("git"), branch="none", status=reason)
    branch, status = summarize(out.stdout)
    return render(load_prompt("git"), branch=branch, status=status)


def summarize(porcelain: str) -> tuple[str, str]:
    """The branch and counts of changed files from `git status --porcelain=v1 -b`."""
    lines = porcelain.splitlines()
    branch = "unknown"
    if lines and lines[0].startswith("## "):
        branch = describe_branch(lines.pop(0)[3:])
    counts: Counter[str] = Counter()
    for line in lines:
        xy = line[:2]
        if xy == "??":
            counts["untracked"] += 1
        elif "U" in xy or xy in ("AA", "DD"):
            counts["conflicted"] += 1
        elif len(xy) == 2 and xy != "!!":
            counts["staged"] += xy[0] != " "
            counts["modified"] += xy[1] != " "
    parts = [f"{counts[kind]} {kind}" for kind in KINDS if counts[kind]]
    return branch, ", ".join(parts) or "clean"


def describe_branch(header: str) -> str:
    """`main...origin/main [ahead 1]` -> `main (ahead 1)`; unborn and detached HEADs named."""
    for prefix in ("No commits yet on ", "Initial commit on "):
        if header.startswith(prefix):
            return f"{header[len(prefix) :]} (no commits yet)"
    if header.startswith("HEAD (no branch)"):
        return "detached HEAD"
    name, _, upstream = header.partition("...")
    if "[" in upstream and upstream.endswith("]"):
        return f"{name} ({upstream[upstream.index('[') + 1 : -1]})"
    return name

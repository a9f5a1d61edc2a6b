"""The Seatbelt profile (`sandbox-exec -p PROFILE`) for one sandboxed command on macOS: a pure
function of the same plan bubblewrap gets, so the two say the same thing.

Seatbelt lets a later rule override an earlier one, so the profile allows everything, then
denies every write, allows the writable places, denies the configuration again: the
workspace's own (`PROTECTED`), what exists of git's (`plan.read_only`), and by pattern git's
configuration in any git directory under the workspace, a submodule's or worktree's included
(Seatbelt matches paths, so files that do not exist yet are covered too, unlike a bind), denies
reading home but what is shown of it, then denies the secrets and, unless allowed, the network
(unix-socket connections named too). The guard's undo runs after the command all the same.
Not run on this project's machines: see docs/sandbox.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zen.tools.sandbox.bwrap import Plan
from zen.tools.sandbox.gitdirs import CONFIG
from zen.tools.sandbox.scopes import PROTECTED

_DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/stdout")


def seatbelt_profile(plan: Plan, hidden: Sequence[Path]) -> str:
    """The profile text for `plan`; `hidden`: every secret path, existing or not."""
    writable = [plan.root, plan.tmpdir, *plan.writable]
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        _rule("allow file-write*", [_subpath(p) for p in writable] + _literals(_DEVICES)),
        _rule(
            "deny file-write*",
            [_subpath(plan.root / rel) for rel in PROTECTED]
            + [_subpath(path) for path in plan.read_only]
            + [_git_config(plan.root)],
        ),
    ]
    if plan.homes:
        seen = [*(dest for _, dest in plan.shown), *(src for src, _ in plan.shown), *writable]
        lines.append(_rule("deny file-read*", [_subpath(p) for p in plan.homes]))
        lines.append(_rule("allow file-read*", [_subpath(p) for p in seen]))
    lines.append(_rule("deny file-read* file-write*", [_subpath(p) for p in hidden]))
    if not plan.network:
        lines += ["(deny network*)", "(deny network-outbound (remote unix-socket))"]
    return "\n".join(lines) + "\n"


def _rule(head: str, filters: list[str]) -> str:
    return f"({head}\n  " + "\n  ".join(filters) + ")"


def _subpath(path: Path) -> str:
    return f"(subpath {_quote(str(path))})"


def _git_config(root: Path) -> str:
    """Git's configuration in every git directory under `root`, existing or not: `.git/config`,
    `.git/hooks/...`, `.git/modules/a/b/config`... A character that could end the literal
    becomes `.`, which matches it and more: a wider deny, never a narrower one."""
    names = "|".join(_ere(name) for name in CONFIG)
    prefix = _ere(str(root))
    return f'(regex #"^{prefix}/(.*/)?\\.git/((modules|worktrees)/.+/)?({names})(/|$)")'


def _ere(text: str) -> str:
    """`text` as a POSIX extended regex matching it (a quote, backslash or line break: `.`)."""
    return "".join(
        "." if c in '"\\\n\r' else ("\\" + c if c in ".[]()*+?{}|^$" else c) for c in text
    )


def _literals(paths: Sequence[str]) -> list[str]:
    return [f"(literal {_quote(p)})" for p in paths]


def _quote(text: str) -> str:
    """An SBPL string: backslashes and quotes escaped, so a path cannot end the rule."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

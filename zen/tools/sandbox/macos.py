"""The Seatbelt profile (`sandbox-exec -p PROFILE`) for one sandboxed command on macOS: a pure
function of the same plan bubblewrap gets, so the two say the same thing.

Seatbelt lets a later rule override an earlier one, so the profile allows everything, then
denies every write, allows the writable places, denies the workspace's configuration again
(Seatbelt matches paths, so files that do not exist yet are covered too, unlike a bind), denies
reading home but what is shown of it, then denies the secrets and, unless allowed, the network
(unix-socket connections named too). Not run on this project's machines: see
docs/sandbox.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from zen.tools.sandbox.bwrap import Plan
from zen.tools.sandbox.guard import PROTECTED

_DEVICES = ("/dev/null", "/dev/zero", "/dev/tty", "/dev/dtracehelper", "/dev/stdout")


def seatbelt_profile(plan: Plan, hidden: Sequence[Path]) -> str:
    """The profile text for `plan`; `hidden`: every secret path, existing or not."""
    writable = [plan.root, plan.tmpdir, *plan.writable]
    lines = [
        "(version 1)",
        "(allow default)",
        "(deny file-write*)",
        _rule("allow file-write*", [_subpath(p) for p in writable] + _literals(_DEVICES)),
        _rule("deny file-write*", [_subpath(plan.root / rel) for rel in PROTECTED]),
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


def _literals(paths: Sequence[str]) -> list[str]:
    return [f"(literal {_quote(p)})" for p in paths]


def _quote(text: str) -> str:
    """An SBPL string: backslashes and quotes escaped, so a path cannot end the rule."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

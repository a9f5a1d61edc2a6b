"""Is bubblewrap here and may it run? Asked once, at bash's first command, never at start-up.

`bwrap` on PATH is not enough: a kernel or container may refuse unprivileged user namespaces
(Debian's sysctl, Ubuntu's AppArmor rule, docker's seccomp profile), so one tiny sandbox is
started and its answer kept for the process. Each failure is one line saying what to do.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from dataclasses import dataclass

PROBE_TIMEOUT = 5.0


@dataclass(frozen=True)
class Probe:
    """The sandbox program to use, or why there is none."""

    program: str | None
    problem: str = ""


_cache: dict[str, Probe] = {}


def probe(path: str | None = None) -> Probe:
    """The answer for this PATH (`path`, else the process's), cached per PATH."""
    key = path or "\0"
    if key not in _cache:
        _cache[key] = _probe(path)
    return _cache[key]


def _probe(path: str | None) -> Probe:
    if sys.platform == "darwin":
        found = shutil.which("sandbox-exec", path=path)
        return Probe(found) if found else Probe(None, "sandbox-exec is not on PATH")
    if not sys.platform.startswith("linux"):
        return Probe(None, f"no sandbox for {sys.platform} commands (docs/sandbox.md)")
    program = shutil.which("bwrap", path=path)
    if program is None:
        return Probe(
            None, "bwrap (bubblewrap) is not on PATH: install it (apt-get install bubblewrap)"
        )
    argv = [program, "--ro-bind", "/", "/", "--dev", "/dev", "--unshare-net", "true"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Probe(None, f"bwrap could not be started: {exc}")
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        reason = why[-1] if why else f"exit {done.returncode}"
        return Probe(
            None,
            f"bwrap cannot create a sandbox here ({reason}): the kernel refuses user "
            "namespaces (sysctl kernel.unprivileged_userns_clone=1, or AppArmor's "
            "restrict_unprivileged_userns=0)",
        )
    return Probe(program)

"""One session's sandbox: its mode (switchable by `/sandbox`), its rules, and what a command
needs to run inside it (the bwrap argv, a scrubbed environment, a private TMPDIR).

`auto` runs commands in the sandbox where it can and says once when it cannot; `on` runs
nothing outside it; `off` is zen before the sandbox. Nothing is probed until bash's first
command asks, so start-up pays nothing.
"""

from __future__ import annotations

import fnmatch
import os
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from zen.base.paths import expand_user
from zen.settings.sandbox_options import SECRET_ENV, SandboxMode, SandboxOptions, secret_paths
from zen.tools.sandbox import guard
from zen.tools.sandbox.bwrap import Plan, bwrap_argv
from zen.tools.sandbox.macos import seatbelt_profile
from zen.tools.sandbox.probe import probe

ON_REFUSAL = "sandbox is on, so nothing ran: {problem} (or set `sandbox: auto`/`off`)"
OUTSIDE_REFUSED = (
    "sandbox is on: nothing runs outside it (`/sandbox auto` lets you approve such a command)"
)


@dataclass
class Prepared:
    """A command ready to run in the sandbox; `finish` must follow its run."""

    argv: list[str]
    env: dict[str, str]
    tmpdir: Path
    root: Path
    before: guard.Snapshot
    hidden: list[Path]

    def finish(self) -> list[str]:
        """Undo changes to the workspace's configuration, drop the temp folder; what was
        undone."""
        try:
            return guard.restore(self.root, self.before, self.hidden)
        except OSError as exc:
            return [f"(some could not be undone: {exc})"]
        finally:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


class Sandbox:
    """The mode and rules every bash call of a session shares."""

    def __init__(
        self,
        mode: SandboxMode,
        options: SandboxOptions,
        path: str | None = None,
        keep: frozenset[str] = frozenset(),
        network_by_project: bool = False,
    ) -> None:
        self.mode: SandboxMode = mode
        self.options = options
        self.network_by_project = network_by_project
        """The network is on because a project's config said so: `bash: sandboxed` asks."""
        self.keep = keep
        """Variables passed in even if they look secret (`bash_inherits_keys`' keys)."""
        self.path = path
        """PATH to find bwrap on (None: the process's)."""
        self.told = False
        """`auto` said once that commands run unsandboxed."""

    def problem(self) -> str:
        """Why commands cannot run sandboxed now ("" if they can); probes at first use."""
        found = probe(self.path)
        if found.program is None:
            return found.problem
        for text in self.options.writable:
            if not expand_user(text).is_dir():
                return f"sandbox_options.writable: {text} does not exist; create it or remove it"
        return ""

    def active(self) -> bool:
        """Commands run sandboxed (mode not off, and the sandbox works here)."""
        return self.mode != "off" and not self.problem()

    def status(self) -> str:
        """One line for `/sandbox` and `zen doctor`."""
        if self.mode == "off":
            return "off: commands run unsandboxed"
        problem = self.problem()
        if problem:
            return f"{self.mode}: unavailable: {problem}" + (
                " (nothing runs)" if self.mode == "on" else " (commands run unsandboxed)"
            )
        net = "network on" if self.options.network == "on" else "no network"
        if self.network_by_project:
            net += " (opened by the project's config: `bash: sandboxed` asks)"
        return f"{self.mode}: bubblewrap, writes only in the workspace and a temp folder, {net}"

    def env(self, environ: Mapping[str, str]) -> dict[str, str]:
        """`environ` without secrets (SECRET_ENV and `hidden_env` patterns) but `keep`."""
        patterns = [p.upper() for p in (*SECRET_ENV, *self.options.hidden_env)]
        return {
            name: value
            for name, value in environ.items()
            if name in self.keep or not any(fnmatch.fnmatchcase(name.upper(), p) for p in patterns)
        }

    def prepare(self, root: Path, command: Sequence[str], environ: Mapping[str, str]) -> Prepared:
        """Everything to run `command` in the sandbox (call only when `active()`)."""
        program = probe(self.path).program
        assert program is not None
        hidden = _hidden(self.options.hidden)
        tmpdir = Path(tempfile.mkdtemp(prefix="zen-sandbox-"))
        plan = Plan(
            root=root,
            tmpdir=tmpdir,
            writable=[expand_user(text) for text in self.options.writable],
            read_only=guard.existing(root),
            hidden=hidden,
            network=self.options.network == "on",
        )
        env = {**self.env(environ), "TMPDIR": str(tmpdir)}
        before = guard.record(root, hidden)
        if Path(program).name == "sandbox-exec":
            secrets = [Path(os.path.realpath(p)) for p in secret_paths(self.options.hidden)]
            argv = [program, "-p", seatbelt_profile(plan, secrets), *command]
        else:
            argv = bwrap_argv(program, plan, command)
        return Prepared(argv, env, tmpdir, root, before, hidden)


def _hidden(extra: Sequence[str]) -> list[Path]:
    """The secret paths that exist, where their symlinks lead (a mount follows them)."""
    found: list[Path] = []
    for path in secret_paths(list(extra)):
        real = Path(os.path.realpath(path))
        if real.exists() and real not in found:
            found.append(real)
    return found

"""One session's sandbox: its mode (switchable by `/sandbox`), its rules, and what a command
needs to run inside it (the bwrap argv under limits, an allow-listed environment, a private
folder, the seccomp program's descriptor).

`auto` runs commands in the sandbox where it works and says once, to the model and to the user,
when it does not; `on` runs nothing outside it; `off` is zen before the sandbox. Nothing is
probed until bash's first command asks, so start-up pays nothing. Once the probe has said the
sandbox works, nothing but a person (`/sandbox off`, the config) takes a command out of it: a
missing `writable` folder is left out with a note, a sandbox that fails to start refuses the
command, a probe that did not answer in time runs nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from zen.base.paths import expand_user
from zen.settings.sandbox_options import SandboxMode, SandboxOptions
from zen.tools.sandbox import guard, home, limits
from zen.tools.sandbox.bwrap import Plan, bwrap_argv, empty_file, stand_ins
from zen.tools.sandbox.environment import allowed
from zen.tools.sandbox.macos import seatbelt_profile
from zen.tools.sandbox.probe import Probe, check, filter_fds, locate

ON_REFUSAL = "sandbox is on, so nothing ran: {problem} (or set `sandbox: auto`/`off`)"
OUTSIDE_REFUSED = (
    "sandbox is on: nothing runs outside it (`/sandbox auto` lets you approve such a command)"
)
UNANSWERED = (
    "the sandbox's check did not answer within {timeout} s (a loaded machine?), so nothing ran: "
    "run the command again"
)
NOT_STARTED = "the sandbox could not start, so nothing ran: {why}"

_known: dict[str, Probe] = {}
"""Definite probe answers, per program, for the process."""


@dataclass
class Prepared:
    """A command ready to run in the sandbox; `finish` must follow its run."""

    argv: list[str]
    env: dict[str, str]
    tmpdir: Path
    watch: guard.Watch
    fds: tuple[int, ...] = ()
    """Handed to `run_child(pass_fds=…)`, which closes them: the seccomp program, the write
    end of the status pipe."""
    status: int | None = None
    """The read end of bwrap's `--json-status-fd` pipe (`started` reads and closes it)."""
    notes: list[str] = field(default_factory=list)
    """Lines for the model (a `writable` folder left out)."""

    def started(self) -> bool:
        """bwrap reached the command (its status pipe names the child); closes the pipe."""
        if self.status is None:
            return True
        try:
            os.set_blocking(self.status, False)
            with contextlib.suppress(BlockingIOError):
                return b'"child-pid"' in os.read(self.status, 65536)
            return False
        finally:
            os.close(self.status)
            self.status = None

    def abandon(self) -> None:
        """Close the descriptors of a command that was never started."""
        for fd in [*self.fds, *([self.status] if self.status is not None else [])]:
            with contextlib.suppress(OSError):
                os.close(fd)
        self.fds, self.status = (), None

    def finish(self) -> list[str]:
        """Undo changes to the workspace's configuration and git's, drop the temp folder;
        what was undone."""
        try:
            return self.watch.finish()
        except OSError as exc:
            return [f"(some could not be undone: {exc})"]


class Sandbox:
    """The mode and rules every bash call of a session shares."""

    def __init__(
        self,
        mode: SandboxMode,
        options: SandboxOptions,
        keep: frozenset[str] = frozenset(),
        root: Path | None = None,
        network_by_project: bool = False,
    ) -> None:
        self.mode: SandboxMode = mode
        self.root = root
        """The workspace: no sandbox program is taken from it (nor from `writable`, homes)."""
        self.options = options
        self.network_by_project = network_by_project
        """The network is on because a project's config said so: `bash: sandboxed` asks."""
        self.keep = keep
        """Variables passed in even if they look secret (`bash_inherits_keys`' keys)."""
        self.told = False
        """`auto` said once that commands run unsandboxed."""
        self._noted: set[str] = set()
        self._probing: asyncio.Task[Probe | None] | None = None
        self.guard = guard.Guard()

    def found(self) -> Probe | None:
        """What the probe said, None while it has not answered."""
        program, why = self._locate()
        if program is None:
            return Probe(None, why)
        return _known.get(program)

    def _locate(self) -> tuple[str | None, str]:
        reach = [expand_user(text) for text in self.options.writable]
        reach += [*home.homes(os.environ), *([self.root] if self.root else [])]
        return locate(self.options.program, reach)

    async def settle(self, timeout: float) -> Probe | None:
        """Probe at first use, waiting at most `timeout`; None: no answer yet (nothing is
        kept, the next call asks again). Concurrent callers share one probe."""
        known = self.found()
        if known is not None:
            return known
        program, _ = self._locate()
        assert program is not None
        loop = asyncio.get_running_loop()
        task = self._probing
        if task is None or task.done() or task.get_loop() is not loop:
            task = self._probing = loop.create_task(check(program, max(timeout, 1.0)))
            task.add_done_callback(lambda done: _keep(program, done))
        try:
            answer = await asyncio.wait_for(asyncio.shield(task), timeout)
        except asyncio.TimeoutError:
            return None
        return answer

    def problem(self) -> str:
        """Why commands cannot run sandboxed ("" if they can, or before the probe answered)."""
        found = self.found()
        return found.problem if found is not None and found.program is None else ""

    def active(self) -> bool:
        """Commands run sandboxed: the mode is not off and the probe said it works."""
        found = self.found()
        return self.mode != "off" and found is not None and found.program is not None

    def status(self) -> str:
        """One line for `/sandbox` and `zen doctor`."""
        if self.mode == "off":
            return "off: commands run unsandboxed"
        found = self.found()
        if found is None:
            return f"{self.mode}: not checked yet (bash's first command checks it)"
        if found.program is None:
            return f"{self.mode}: unavailable: {found.problem}" + (
                " (nothing runs)" if self.mode == "on" else " (commands run unsandboxed)"
            )
        gaps = []
        if found.program.endswith("bwrap") and not _filter_here():
            gaps.append(f"unix sockets not blocked on {platform.machine()}")
        if found.program.endswith("bwrap") and limits.cgroup() is None:
            gaps.append("process count not bounded (no cgroup)")
        if self.network_by_project:
            gaps.append("the network opened by the project's config: `bash: sandboxed` asks")
        extra = f" ({'; '.join(gaps)})" if gaps else ""
        return f"{self.mode}: {Path(found.program).name}, {self.rules()}{extra}"

    def rules(self) -> str:
        """What a sandboxed command may do, in the words the approval question and a failed
        command's result use."""
        writable = " and `writable` folders" if self.options.writable else ""
        net = "network on" if self.options.network == "on" else "no network"
        return f"writes only in the workspace, its own /tmp{writable}, home hidden, {net}"

    def failed(self) -> str:
        """The line a sandboxed command that failed ends with: the sandbox's rules and the
        settings that change them. Said whatever the cause (zen does not guess it from the
        output): the model and the user can tell whether the rules explain the failure."""
        settings = "`sandbox_options.writable`"
        if self.options.network != "on":
            settings = f"`sandbox_options.network: on`, {settings}"
        ask = ", or `unsandboxed` with a reason (a person approves)" if self.mode == "auto" else ""
        return f"[ran sandboxed: {self.rules()}; if that is why it failed: {settings}{ask}]"

    def env(self, environ: Mapping[str, str]) -> dict[str, str]:
        """`environ` through the allow-list (`environment.py`); `keep` passes."""
        return allowed(environ, self.options, self.keep)

    def prepare(self, root: Path, command: Sequence[str], environ: Mapping[str, str]) -> Prepared:
        """Everything to run `command` in the sandbox (call only when `active()`)."""
        found = self.found()
        assert found is not None and found.program is not None
        program = found.program
        writable, notes = self._writable()
        fresh = home.homes(environ)
        runtime = home.runtime_dir(environ, root)
        visible = [root, *writable]
        secrets = home.secret_paths(fresh, self.options.hidden)
        scratch = [Path("/tmp"), Path("/dev/shm")]
        shown = home.shown(fresh, environ, self.options.readable, visible, secrets, scratch)
        private = [*fresh, *scratch, *([runtime] if runtime else [])]
        hidden = home.hidden(secrets, private, [*visible, *(dest for _, dest in shown)])
        watch = self.guard.begin(root, hidden, home.in_workspace(root, fresh, environ))
        trees = _work_trees(watch.writable, fresh, private)
        if trees:
            shown = [*shown, *((tree, tree) for tree in trees)]
            hidden = home.hidden(secrets, private, [*visible, *(dest for _, dest in shown)])
        tmpdir = watch.tmpdir
        fds = filter_fds(platform.machine().lower(), self.options.network == "off")
        status_read, status_write = os.pipe()
        plan = Plan(
            root=root,
            tmpdir=tmpdir,
            writable=[*writable, *watch.writable],
            read_only=watch.read_only,
            hidden=hidden,
            network=self.options.network == "on",
            homes=fresh,
            shown=shown,
            runtime=runtime,
            sized=found.sized,
            seccomp_fd=fds[0] if fds else None,
            status_fd=status_write,
        )
        for folder in stand_ins(plan):
            folder.mkdir()
        empty_file(plan).touch(mode=0o444)
        env = {**self.env(environ), "TMPDIR": "/tmp"}
        if Path(program).name == "sandbox-exec":
            os.close(status_read)
            os.close(status_write)
            for fd in fds:
                os.close(fd)
            secrets_real = [Path(os.path.realpath(p)) for p in secrets]
            env["TMPDIR"] = str(tmpdir)
            argv = [program, "-p", seatbelt_profile(plan, secrets_real), *command]
            return Prepared(argv, env, tmpdir, watch, notes=notes)
        argv = limits.wrap(bwrap_argv(program, plan, command))
        return Prepared(argv, env, tmpdir, watch, (*fds, status_write), status_read, notes)

    def _writable(self) -> tuple[list[Path], list[str]]:
        """The `writable` folders that exist; a note, once each, for those that do not."""
        folders, notes = [], []
        for text in self.options.writable:
            path = expand_user(text)
            if path.is_dir():
                folders.append(path)
            elif text not in self._noted:
                self._noted.add(text)
                notes.append(
                    f"[sandbox_options.writable: {text} does not exist, so this ran sandboxed "
                    "without it]"
                )
        return folders, notes


def probe_now(options: SandboxOptions | None = None, timeout: float = 10.0) -> Probe:
    """The probe's answer, outside any event loop (`zen doctor`, tests)."""
    box = Sandbox("auto", options or SandboxOptions())
    answer = asyncio.run(box.settle(timeout))
    return answer or Probe(None, f"the sandbox's check did not answer within {timeout:g} s")


def _keep(program: str, task: asyncio.Task[Probe | None]) -> None:
    """Keep a definite answer, whoever was still waiting for it."""
    if not task.cancelled() and task.exception() is None and (answer := task.result()):
        _known[program] = answer


def _work_trees(
    git_dirs: Sequence[Path], fresh: Sequence[Path], private: Sequence[Path]
) -> list[Path]:
    """The work trees of the enclosing repositories whose git directory is bound in, when they
    lie in a fresh folder (a home, /tmp): shown read-only, so git finds the repository from
    the workspace (it stops where the filesystem changes) and sees its other files. Never a
    home or a folder holding one: home stays fresh."""
    return [
        tree
        for tree in (path.parent for path in git_dirs if path.name == ".git")
        if any(tree.is_relative_to(place) for place in private)
        and not any(place.is_relative_to(tree) for place in fresh)
    ]


def _filter_here() -> bool:
    from zen.tools.sandbox.seccomp import ARCHES

    return platform.machine().lower() in ARCHES

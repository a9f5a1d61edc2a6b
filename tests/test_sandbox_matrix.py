"""The approval matrix of docs/sandbox.md, every cell: sandbox mode × network × `bash` level
(or an `allow_commands` rule the command matches) × who set each (issue 35, item 8; issue 40's
allow rules).

Each cell writes the user's `~/.zen/config.yaml` and a trusted project's `.zen/config.yaml`,
loads them with the real loader, builds the real session (its sandbox, registry and bash
tool) against the fake server, and runs one bash command that touches a file in the workspace
and one outside it. What happened is read from disk and from who was asked: `refused`,
`sandboxed`, `outside`, each after a person's yes (`asks, then ...`) or without a question.
In-process (a `zen -p` per cell would take minutes); the end-to-end tests of the same rules
are in test_sandbox_policy_e2e.py.
"""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import closing
from tests.fakes.server import call, text, tool_calls
from zen.agent.session import Session
from zen.base import events as ev
from zen.settings.loading import load_config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.sandbox.runner import probe_now
from zen.tools.workspace import Workspace
from zen.ui.oneshot import Refusals

_found = probe_now()
pytestmark = [
    pytest.mark.usefixtures("close_clients"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    pytest.mark.skipif(_found.program is None, reason=f"no working sandbox here: {_found.problem}"),
]


@dataclass(frozen=True)
class State:
    """Who set the mode, and whether the sandbox can run here."""

    name: str
    user: str
    project: str | None
    works: bool
    effective: str

    def __str__(self) -> str:
        return self.name


STATES = [
    State("auto", "auto", None, True, "auto"),
    State("auto, project says off", "auto", "off", True, "auto"),
    State("on", "on", None, True, "on"),
    State("on, project says auto", "on", "auto", True, "on"),
    State("auto, project says on", "auto", "on", True, "on"),
    State("off, project says auto", "off", "auto", True, "auto"),
    State("off", "off", None, True, "off"),
    State("off, project says off", "off", "off", True, "off"),
    State("auto, unavailable", "auto", None, False, "auto"),
    State("on, unavailable", "on", None, False, "on"),
    State("on, project says auto, unavailable", "on", "auto", False, "on"),
    State("auto, project says on, unavailable", "auto", "on", False, "on"),
]
NETWORKS = ["off", "on (user)", "on (project)"]
LEVELS = [
    "confirm",
    "sandboxed (user)",
    "sandboxed (project)",
    "auto (user)",
    "auto (project)",
    "deny (user)",
    "deny (project)",
    "rule (user)",
    "rule (project)",
    "--yes",
]
"""`rule`: `allow_commands: [touch]`, which the cell's command (`touch ...; touch ...`) matches."""


def expected(state: State, network: str, level: str) -> str:
    """The cell as docs/sandbox.md's matrix states it."""
    if level.startswith("deny") or (state.effective == "on" and not state.works):
        return "refused"
    sandboxed = state.effective != "off" and state.works
    where = "sandboxed" if sandboxed else "outside"
    if level.startswith(("auto", "rule")) or level == "--yes":
        return where
    if level.startswith("sandboxed") and sandboxed and network != "on (project)":
        return where
    return f"asks, then {where}"


CELLS = [
    pytest.param(state, network, level, id=f"{state}|network {network}|{level}")
    for state in STATES
    for network in (NETWORKS if state.works and state.effective != "off" else ["off"])
    for level in LEVELS
]


RunCell = Callable[..., Awaitable[str]]


class Person:
    """Someone at the terminal who says yes, and remembers being asked."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    async def __call__(self, request: ApprovalRequest) -> Approval:
        self.asked.append(request)
        return Approval("yes")


def _configs(state: State, network: str, level: str) -> tuple[str, str]:
    """The user's and the project's config for a cell; where the sandbox cannot run, the
    user's names a program that is not there."""
    user = [f"sandbox: {state.user}"]
    project = [f"sandbox: {state.project}"] if state.project else []
    user_options = [] if state.works else ["program: /nonexistent/bwrap"]
    if network == "on (user)":
        user_options.append("network: 'on'")
    if network == "on (project)":
        project.append("sandbox_options: {network: 'on'}")
    if user_options:
        user.append(f"sandbox_options: {{{', '.join(user_options)}}}")
    if level != "confirm" and level != "--yes":
        name, _, who = level.partition(" (")
        setting = "allow_commands: [touch]" if name == "rule" else f"permissions: {{bash: {name}}}"
        (user if who == "user)" else project).append(setting)
    return "\n".join(user) + "\n", "\n".join(project) + "\n"


@pytest.mark.parametrize(("state", "network", "level"), CELLS)
async def test_every_cell(run_cell: RunCell, state: State, network: str, level: str) -> None:
    assert await run_cell(state, network, level) == expected(state, network, level)


def expected_outside(state: State, level: str) -> str:
    """A request to run outside the sandbox (bash's `unsandboxed`), as the docs state it: an
    allow rule never approves one."""
    if state.effective == "on" or level.startswith("deny"):
        return "refused"
    if level.startswith("rule"):
        return "asks, then outside"
    if state.effective == "auto" and state.works:  # leaving it: a person, every time
        return "refused" if level == "--yes" else "asks, then outside"
    return "outside" if level in ("auto (user)", "--yes") else "asks, then outside"


@pytest.mark.parametrize(
    ("state", "level"),
    [
        pytest.param(state, level, id=f"{state}|{level}")
        for state in STATES
        for level in (
            "confirm",
            "sandboxed (user)",
            "auto (user)",
            "deny (user)",
            "rule (user)",
            "rule (project)",
            "--yes",
        )
    ],
)
async def test_every_request_to_leave_the_sandbox(
    run_cell: RunCell, state: State, level: str
) -> None:
    happened = await run_cell(state, "off", level, {"unsandboxed": "needs the network"})
    assert happened == expected_outside(state, level)


@pytest.fixture
def run_cell(fake_llm: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunCell:
    """`await run_cell(state, network, level, bash_args)`: load both configs, run one bash
    call, and say what happened."""

    async def run(
        state: State, network: str, level: str, args: dict[str, str] | None = None
    ) -> str:
        home, project, outside = tmp_path / "home", tmp_path / "project", tmp_path / "outside"
        for folder in (home / ".zen", project / ".zen", outside):
            folder.mkdir(parents=True)
        monkeypatch.setenv("HOME", str(home))
        user_yaml, project_yaml = _configs(state, network, level)
        (home / ".zen" / "config.yaml").write_text(user_yaml)
        (project / ".zen" / "config.yaml").write_text(project_yaml)
        command = f"touch made-inside; touch {outside}/made-outside"
        bash = call("bash", {"command": command, **(args or {})})
        fake = fake_llm([tool_calls([bash]), text("done")])
        flags = {"model": "m", "base_url": fake.base_url, "api_key": "k"}
        config = load_config(project, flags, env={"HOME": str(home)}, trusted=True)
        session = closing(Session(config, Workspace(project)))
        person = Person()
        await session.run("go", ev.ignore, Refusals(yes=True) if level == "--yes" else person)
        inside, escaped = (project / "made-inside").exists(), (outside / "made-outside").exists()
        where = "outside" if escaped else "sandboxed" if inside else None
        return "refused" if where is None else f"asks, then {where}" if person.asked else where

    return run

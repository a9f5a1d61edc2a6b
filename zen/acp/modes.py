"""The session modes an editor offers (ACP `session/set_mode`): single, or dual in one of its
three collaborations; a switch to dual first resolves each role's model, so a missing key is
the switch's error, not the next prompt's."""

from __future__ import annotations

from acp.schema import SessionMode, SessionModeState

from zen.acp.errors import bad_params, failure
from zen.agent.session import Session
from zen.settings.model_roles import resolve_model
from zen.settings.schema import DUAL_ROLES, ConfigError

MODES = [
    SessionMode(id="single", name="Single", description="one agent does everything"),
    SessionMode(
        id="delegated",
        name="Dual: delegated",
        description="an Orchestrator plans and sends each step to a Coder",
    ),
    SessionMode(
        id="autonomous",
        name="Dual: autonomous",
        description="the Coder gets whole tasks and finds its own way",
    ),
    SessionMode(
        id="controlled",
        name="Dual: controlled",
        description="the Coder only writes code; the Orchestrator applies it",
    ),
]


def mode_state(session: Session) -> SessionModeState:
    current = "single" if session.mode == "single" else session.collaboration
    return SessionModeState(current_mode_id=current, available_modes=MODES)


def switch_mode(session: Session, mode_id: str) -> None:
    """Switch `session` to `mode_id`; an unknown mode or a role without a model is refused."""
    if mode_id not in {m.id for m in MODES}:
        raise bad_params(f"unknown mode {mode_id!r}: {', '.join(m.id for m in MODES)}")
    if mode_id == "single":
        session.set_mode("single")
        return
    try:
        for role in DUAL_ROLES:
            resolve_model(session.config, role)  # a role's missing key fails here
    except ConfigError as e:
        raise failure(str(e)) from None
    session.set_collaboration(mode_id)
    session.set_mode("dual")

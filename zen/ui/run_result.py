"""The one JSON object `zen -p --output-format json|stream-json` ends with, whatever happened.

Its own module because the run (`oneshot.py`) and the CLI's refusals before or around a run
(`zen.cli.start`: a bad config, Ctrl-C, SIGTERM) both write it, and must agree on its keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:  # a refusal before any run must not load the agent
    from zen.agent.loop import RunResult
    from zen.agent.session import Session


@dataclass
class Progress:
    """How far a run got, kept outside it: a signal that cancels the run still reports its
    session, usage and turns (what a script needs to resume it)."""

    session: Session | None = None
    turns: int = 0
    session_id: str | None = None
    """Kept as the run goes: a closed session's record no longer says it."""


def result_object(
    session: Session | None,
    result: RunResult | None,
    error: str | None,
    stop: str = "error",
    *,
    duration_ms: int = 0,
    denials: list[dict[str, Any]] | None = None,
    tool_calls: dict[str, int] | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The one object `json` and `stream-json` end with, even when the run failed (without a
    result, what `progress` saw of it)."""
    progress = progress or Progress()
    # this run's, not the session's: `-c` runs would count the earlier ones again
    status = session.status() if session else None
    usage = {role: u.to_json() for role, u in status.run_usage.items()} if status else {}
    cost = status.run_cost if status else None
    triaged = session.triage if session else None
    return {
        "type": "result",
        "result": error if error else (result.text if result else ""),
        "is_error": bool(error) or (result is not None and result.stop != "done"),
        "stop": stop if error else (result.stop if result else "error"),
        "turns": result.turns if result else progress.turns,
        "usage": usage,
        "files_changed": result.files_changed if result else [],
        "changed_nothing": bool(result and result.changed_nothing),
        "cost_usd": None if cost is None else round(cost, 6),
        "duration_ms": duration_ms,
        "permission_denials": denials or [],
        "tool_calls": tool_calls or {"native": 0, "recovered": 0, "malformed": 0},
        "checkpoint": session.run_checkpoint if session else None,
        "triage": triaged.path if triaged else None,
        "triage_escalated": bool(triaged and triaged.escalated),
        "session_id": (session.id if session else None) or progress.session_id,
    }


def write_result(out: TextIO, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, ensure_ascii=True) + "\n")
    out.flush()

"""One row of the report per task, mode and repeat: what the child said and the check decided.

`ended` says how the agent's run ended: `answer` (it gave its final answer), `deadline` (its
time ran out, by zen's own `--max-time` or the bench's kill), `runaway` (zen stopped output
that repeated itself), `length` (an answer cut at max_tokens), `max_turns`, `budget`, or
`error` (the request failed, or zen gave no result).
"""

from __future__ import annotations

from typing import Any

from zen.base.terminal_safe import terminal_safe
from zen.bench.child import Outcome
from zen.bench.verify import Verdict

ENDED = {
    "done": "answer",
    "max_time": "deadline",
    "runaway": "runaway",
    "length": "length",
    "max_turns": "max_turns",
    "max_budget": "budget",
}
TRIAGE = ("question", "small", "direct", "large")
"""Dual mode's triage paths; anything else the child said is dropped (None)."""
NO_CALLS = {"native": 0, "recovered": 0, "malformed": 0}


def ended_of(outcome: Outcome) -> str:
    if outcome.killed:
        return "deadline"
    return ENDED.get(str(outcome.result.get("stop")), "error")


def make_row(
    task: str,
    mode: str,
    repeat: int,
    outcome: Outcome,
    verdict: Verdict,
    collaboration: str | None = None,
) -> dict[str, Any]:
    result = outcome.result
    tokens = _tokens(result.get("usage"))
    ended = ended_of(outcome)
    error = None
    if ended == "error":
        error = terminal_safe(str(result.get("result") or ""))[:300] or outcome.last_error_line
        error = error or "zen gave no result"
    calls = result.get("tool_calls")
    triage = result.get("triage")
    return {
        "task": task,
        "mode": mode,
        "collaboration": collaboration,
        "repeat": repeat,
        "solved": verdict.status == "passed",
        "check": verdict.status,
        "check_output": verdict.output,
        "ended": ended,
        "error": error,
        "turns": _int(result.get("turns")),
        "tokens": tokens,
        "total_tokens": _totals(tokens),
        "seconds": round(outcome.seconds, 1),
        "cost_usd": result.get("cost_usd") if isinstance(result.get("cost_usd"), float) else None,
        "triage": triage if triage in TRIAGE else None,
        "triage_escalated": result.get("triage_escalated") is True,
        "changed_nothing": result.get("changed_nothing") is True,
        "tool_calls": {k: _int(calls.get(k)) for k in NO_CALLS}
        if isinstance(calls, dict)
        else dict(NO_CALLS),
    }


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _tokens(usage: Any) -> dict[str, dict[str, int]]:
    """Per role: prompt tokens the server read (uncached) and reused (cached), and output."""
    if not isinstance(usage, dict):
        return {}
    out = {}
    for role, u in usage.items():
        if not isinstance(u, dict):
            continue
        prompt, cached = _int(u.get("prompt_tokens")), _int(u.get("cached_tokens"))
        out[terminal_safe(str(role))[:40]] = {
            "prompt_uncached": max(prompt - cached, 0),
            "prompt_cached": min(cached, prompt),
            "output": _int(u.get("completion_tokens")),
            "requests": _int(u.get("requests")),
        }
    return out


def _totals(tokens: dict[str, dict[str, int]]) -> dict[str, int]:
    keys = ("prompt_uncached", "prompt_cached", "output")
    return {k: sum(role[k] for role in tokens.values()) for k in keys}

"""The bench's report: one JSON document (`--json`, `--output`), or a table with the modes side
by side (solved, tokens per solved task, wall time) for a person."""

from __future__ import annotations

import json
from typing import Any

from zen.base.terminal_safe import terminal_safe
from zen.ui.format import tokens as short_tokens

CALL_KINDS = ("native", "recovered", "malformed")


def document(header: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    return json.dumps({**header, "rows": rows}, ensure_ascii=True, indent=1) + "\n"


def cell(rows: list[dict[str, Any]]) -> str:
    """One task in one mode: `✓`, `✗ deadline`, `! check` (the check broke), or `2/3`."""
    if not rows:
        return "-"
    if len(rows) > 1:
        return f"{sum(r['solved'] for r in rows)}/{len(rows)}"
    row = rows[0]
    if row["check"] == "error":
        return "! check"
    if row["solved"]:
        return "✓"
    return "✗" if row["ended"] == "answer" else f"✗ {row['ended']}"


def table(header: dict[str, Any], rows: list[dict[str, Any]], modes: list[str]) -> str:
    tasks = list(dict.fromkeys(r["task"] for r in rows))
    lines = [["task", *modes]]
    for task in tasks:
        lines.append(
            [
                task,
                *(cell([r for r in rows if r["task"] == task and r["mode"] == m]) for m in modes),
            ]
        )
    lines.append([""] * (len(modes) + 1))
    for label, fn in SUMMARY:
        lines.append([label, *(fn([r for r in rows if r["mode"] == m]) for m in modes)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(modes) + 1)]
    text = "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in lines
    )
    title = f"zen bench: {header['model']} at {header['base_url']} (zen {header['zen_version']})"
    return terminal_safe(title) + "\n\n" + text + "\n"


def _solved(rows: list[dict[str, Any]]) -> str:
    repeats = sorted({r["repeat"] for r in rows})
    tasks = len({r["task"] for r in rows})
    per_run = [sum(r["solved"] for r in rows if r["repeat"] == n) for n in repeats]
    if not per_run:
        return "-"
    if len(per_run) == 1:
        return f"{per_run[0]}/{tasks}"
    return f"{min(per_run)}-{max(per_run)}/{tasks} ({len(per_run)} runs)"


def _per_solved(rows: list[dict[str, Any]]) -> str:
    solved = sum(r["solved"] for r in rows)
    spent = sum(sum(r["total_tokens"].values()) for r in rows)
    return short_tokens(round(spent / solved)) if solved else "-"


def _prompt(rows: list[dict[str, Any]]) -> str:
    fresh = sum(r["total_tokens"]["prompt_uncached"] for r in rows)
    cached = sum(r["total_tokens"]["prompt_cached"] for r in rows)
    return f"{short_tokens(fresh)} + {short_tokens(cached)} cached"


def _output(rows: list[dict[str, Any]]) -> str:
    return short_tokens(sum(r["total_tokens"]["output"] for r in rows))


def _wall(rows: list[dict[str, Any]]) -> str:
    runs = max(len({r["repeat"] for r in rows}), 1)
    seconds = round(sum(r["seconds"] for r in rows) / runs)
    return f"{seconds // 60}m{seconds % 60:02d}s" if seconds >= 60 else f"{seconds}s"


def _ended(rows: list[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r["ended"]] = counts.get(r["ended"], 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items(), key=lambda kv: -kv[1]))


def _calls(rows: list[dict[str, Any]]) -> str:
    return "/".join(str(sum(r["tool_calls"][k] for r in rows)) for k in CALL_KINDS)


def _cost(rows: list[dict[str, Any]]) -> str:
    costs = [r["cost_usd"] for r in rows]
    if not costs or any(c is None for c in costs):
        return "-"
    return f"${sum(costs):.4f}"


SUMMARY = (
    ("solved", _solved),
    ("tokens per solved task", _per_solved),
    ("prompt tokens", _prompt),
    ("output tokens", _output),
    ("wall time (per run)", _wall),
    ("cost", _cost),
    ("ended", _ended),
    ("tool calls native/text/bad", _calls),
)

"""The bench's report: one JSON document (`--json`, `--output`, the results file), or a table
with the modes side by side (solved, tokens per solved task, wall time) for a person, then one
short line per failed run saying why it failed."""

from __future__ import annotations

import json
from typing import Any

from zen.base.terminal_safe import terminal_safe
from zen.ui.format import tokens as short_tokens

CALL_KINDS = ("native", "recovered", "malformed")


def document(header: dict[str, Any], rows: list[dict[str, Any]]) -> str:
    return json.dumps({**header, "rows": rows}, ensure_ascii=True, indent=1) + "\n"


def cell(rows: list[dict[str, Any]]) -> str:
    """One task in one mode: `✓`, `✗ deadline`, `! check` (the check broke), or `2 of 3`."""
    if not rows:
        return "-"
    if len(rows) > 1:
        return f"{sum(r['solved'] for r in rows)} of {len(rows)}"
    row = rows[0]
    if row["check"] == "error":
        return "! check"
    if row["solved"]:
        return "✓"
    return "✗" if row["ended"] == "answer" else f"✗ {row['ended']}"


def table(
    header: dict[str, Any], rows: list[dict[str, Any]], modes: list[str], stopped: str | None = None
) -> str:
    """The modes side by side; `stopped`: what ended the bench early (the table is partial)."""
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
    title = terminal_safe(title_line(header))
    if stopped:
        title += f"\npartial: {stopped} after {len(rows)} of {planned(header)} runs"
    why = failures(rows)
    return title + "\n\n" + text + "\n" + ("\n" + "\n".join(why) + "\n" if why else "")


def title_line(header: dict[str, Any]) -> str:
    """`zen bench: qwen at http://…/v1 (zen 0.9) · temperature 0, tool protocol text · 13 tasks`"""
    tasks = f"{header['tasks']} task{'s' * (header['tasks'] != 1)}"
    repeat = f" × {header['repeat']} runs" if header.get("repeat", 1) > 1 else ""
    return (
        f"zen bench: {header['model']} at {header['base_url']} (zen {header['zen_version']}) · "
        f"{sampling_text(header['sampling'])} · {tasks}{repeat}"
    )


def sampling_text(sampling: dict[str, Any]) -> str:
    """`temperature 0, max_tokens 4096, tool protocol text`; what is unset, in words."""
    temperature = sampling.get("temperature")
    parts = [
        f"temperature {temperature:g}" if temperature is not None else "the server's temperature"
    ]
    if sampling.get("max_tokens") is not None:
        parts.append(f"max_tokens {sampling['max_tokens']}")
    parts.append(f"tool protocol {sampling.get('tool_protocol') or 'native'}")
    return ", ".join(parts)


def planned(header: dict[str, Any]) -> int:
    return int(header["tasks"]) * len(header["modes"]) * int(header["repeat"])


def failures(rows: list[dict[str, Any]]) -> list[str]:
    """`✗ add-flag · single: the check said: no --verbose flag` per failed run (repeats
    numbered), one short line each."""
    failed = [r for r in rows if not r["solved"]]
    repeats = len({r["repeat"] for r in rows}) > 1
    lines = []
    for r in failed:
        run = f" (run {r['repeat']})" if repeats else ""
        lines.append(terminal_safe(clip(f"✗ {r['task']} · {r['mode']}{run}: {why(r)}", 110)))
    return lines


ENDINGS = {
    "deadline": "its deadline passed",
    "runaway": "stopped: its output repeated itself",
    "length": "the answer was cut at max_tokens",
    "max_turns": "max_turns reached",
    "budget": "over its budget",
}


def why(row: dict[str, Any]) -> str:
    """Why a run failed, in a few words: how it ended, or what the check said last (after
    `changed no file` when the task asked for a change and the run made none)."""
    said = last_line(row.get("check_output") or "")
    if row["check"] == "error":
        return f"the check broke: {said}" if said else "the check broke"
    if row["ended"] == "error":
        return f"error: {row.get('error') or 'zen gave no result'}"
    if row["ended"] in ENDINGS:
        return ENDINGS[row["ended"]]
    checked = f"the check said: {said}" if said else "the check failed"
    return f"changed no file; {checked}" if row.get("changed_nothing") is True else checked


def last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _solved(rows: list[dict[str, Any]]) -> str:
    """`3 of 13`; with repeats `3 of 13 in each of 2 runs`, or `2–5 of 13 (3 runs)`."""
    repeats = sorted({r["repeat"] for r in rows})
    tasks = len({r["task"] for r in rows})
    per_run = [sum(r["solved"] for r in rows if r["repeat"] == n) for n in repeats]
    if not per_run:
        return "-"
    if len(per_run) == 1:
        return f"{per_run[0]} of {tasks}"
    if min(per_run) == max(per_run):
        return f"{per_run[0]} of {tasks} in each of {len(per_run)} runs"
    return f"{min(per_run)}–{max(per_run)} of {tasks} ({len(per_run)} runs)"


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

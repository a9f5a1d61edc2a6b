"""Plain-text pieces shared by every front-end: how a tool call, a diff excerpt, folded
reasoning and a run's status line read in a log. Renderers add the styling."""

from __future__ import annotations

import json
import re
from typing import Any

from zen.agent.roles import NAMED
from zen.base.text import clip

DETAIL_CHARS = 60
"""A call line's argument is cut to this many characters."""
NESTED = tuple(role.name for role in NAMED if not role.top)
"""Agents whose activity is shown indented under the call that started them (sub-agents,
`sub:<description>`, too)."""


def is_nested(agent: str) -> bool:
    return agent in NESTED or agent.startswith("sub:")


def call_parts(
    agent: str, name: str, detail: str, ok: bool, summary: str
) -> tuple[str, str, str, str, str]:
    """(indent, marker, tool, detail, outcome): a call line, for renderers that style it."""
    return (
        "    " if is_nested(agent) else "",
        "✓" if ok else "✗",
        name,
        clip(detail, DETAIL_CHARS),
        summary,
    )


def call_line(agent: str, name: str, detail: str, ok: bool, summary: str) -> str:
    """`✓ read-file app.py — read 42 lines`, indented for nested agents."""
    indent, marker, tool, arg, outcome = call_parts(agent, name, detail, ok, summary)
    text = f"{indent}{marker} {tool}{' ' + arg if arg else ''}"
    if outcome:
        text += f" — {outcome}"
    return text


def memo_line(agent: str, key: str, summary: str) -> str:
    return ("    " if is_nested(agent) else "") + f"memo {key} — {summary}"


def progress_line(agent: str, name: str, detail: str = "") -> str:
    """The live line while a call runs: `coder › edit-file app/greet.py`."""
    arg = clip(detail, DETAIL_CHARS)
    return f"{agent} › {name}{' ' + arg if arg else ''}"


def tokens(n: int, estimated: bool = False) -> str:
    """`950`, `12.3k`, `1.2M`: token counts at a glance; `~1.2k` for zen's own estimate
    (the server sent no usage)."""
    mark = "~" if estimated else ""
    if n < 1000:
        return f"{mark}{n}"
    if n < 1_000_000:
        return f"{mark}{n / 1000:.1f}k"
    return f"{mark}{n / 1_000_000:.1f}M"


def duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes, secs = divmod(int(seconds), 60)
    return f"{minutes}m {secs:02d}s"


def status_line(
    usage: dict[str, tuple[int, int, int]],
    seconds: float,
    estimated: frozenset[str] | set[str] = frozenset(),
    *,
    cost: float | None | bool = False,
    context: tuple[int, int | None] = (0, None),
) -> str:
    """After a run: `main 3.1k in (80% cached) / 412 out · $0.0123 · context 9.8k/128k (8%) ·
    12.3s`.

    `usage` maps a role to (prompt, completion, cached) tokens of this run; roles in
    `estimated` are shown as estimates (`~1.2k`). `cost`: USD, None when unknown, False to
    leave it out; `context`: tokens the next request holds and the window (None: unknown).
    """
    from zen.llm.pricing import usd

    parts = []
    for role, (prompt, completion, cached) in sorted(usage.items(), key=role_order):
        if not (prompt or completion):
            continue
        guess = role in estimated
        text = f"{role} {tokens(prompt, guess)} in"
        if cached and prompt:
            text += f" ({cached / prompt:.0%} cached)"
        parts.append(f"{text} / {tokens(completion, guess)} out")
    if cost is not False and parts:
        parts.append(usd(cost if isinstance(cost, float) else None))
    used, window = context
    if used:
        parts.append(
            f"context {tokens(used)}/{tokens(window)} ({used / window:.0%})"
            if window
            else f"context {tokens(used)}"
        )
    parts.append(duration(seconds))
    return " · ".join(parts)


ROLES = tuple(role.name for role in NAMED)


def role_order(item: tuple[str, object]) -> tuple[int, str]:
    role = item[0]
    return (ROLES.index(role) if role in ROLES else len(ROLES), role)


def diff_excerpt(diff: str, max_lines: int = 6) -> list[str]:
    """The changed lines of a unified diff, at most `max_lines`, then `… N more`."""
    changed = [
        line
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++ ", "--- "))
    ]
    if len(changed) <= max_lines:
        return changed
    return [*changed[:max_lines], f"… {len(changed) - max_lines} more changed lines"]


def output_tail(output: str, max_lines: int = 5) -> tuple[list[str], int]:
    """The last non-blank lines of a tool's output (a command's closing `exit N` and
    `(no output)` left out: the log line says them) and how many lines came before."""
    lines = output.rstrip().splitlines()
    if lines and re.fullmatch(r"exit -?\d+", lines[-1]):
        lines.pop()
    while lines and not lines[-1].strip():
        lines.pop()
    if lines == ["(no output)"]:
        return [], 0
    return lines[-max_lines:], max(0, len(lines) - max_lines)


def preview_key(agent: str, tool: str, args: dict[str, Any]) -> str:
    """Identifies one call across its approval question and its finished line."""
    return json.dumps([agent, tool, args], sort_keys=True, default=str)


def fold(text: str, width: int, max_lines: int = 3) -> list[str]:
    """Reasoning and reports folded to a few lines: whitespace collapsed, wrapped, cut."""
    import textwrap

    lines = textwrap.wrap(" ".join(text.split()), max(20, width))
    if len(lines) <= max_lines:
        return lines
    kept = lines[:max_lines]
    kept[-1] = kept[-1][: max(0, width - 2)] + " …"
    return kept


def endpoint_line(role: str, settings: Any) -> str:
    """`main: gpt-4.1 at https://api.openai.com/v1, key sk-…abcd (environment OPENAI_API_KEY)`:
    which key goes to which host, never the key itself."""
    from zen.base.redaction import redact

    key = "no key"
    if settings.api_key:
        key = f"key {redact(settings.api_key)}"
        if settings.key_source:
            key += f" ({settings.key_source})"
    return f"{role}: {settings.model} at {settings.base_url}, {key}"

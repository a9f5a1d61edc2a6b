"""Hooks: the user's own commands at fixed points of a run, in Claude Code's format.

A hook is a shell command. It gets one JSON object on stdin (session id, workspace, event,
tool name and input, ...) and answers by exit code (0 allow, 2 block with stderr as the
reason the model reads) or by JSON on stdout (`decision`, `reason`, `hookSpecificOutput` with
`permissionDecision` and `updatedInput`). Claude Code's tool names and input keys are sent
alongside zen's (`Bash`, `Read` with `file_path`...), so a hook written for Claude Code fires
unchanged, and its `updatedInput` is mapped back.

Hooks come from zen's config (user layer, and the project layer of a trusted workspace) and
from a trusted workspace's `.claude/settings.json`. Each runs under the one rule for children
(`child.py`): its own session and the process mark, a deadline, at most 64 KB of each output
kept; its whole process tree, daemons included, dies when it ends, times out or is cancelled.
A hook that timed out decides nothing, and nothing it wrote reaches the model.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol

from zen.base import events as ev
from zen.base.bom import decode_text
from zen.tools.child import run_child

EVENTS = (
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "PreCompact",
)
TOOL_EVENTS = ("PreToolUse", "PostToolUse")
DEFAULT_TIMEOUT = 60.0
OUTPUT_LIMIT = 64 * 1024
"""Bytes of a hook's stdout or stderr kept: what it says is a reason, not a transcript."""

Permission = Literal["allow", "deny", "ask"]


class HookedTool(Protocol):
    """What hooks need of a tool (`zen.tools.base.Tool` has it)."""

    name: str
    claude_name: str
    """Its name in Claude Code (`Bash`, `Read`), what a reused hook's matcher expects; empty:
    its own name."""
    file_arg: bool
    """Its `path` is Claude Code's `file_path` (absolute)."""


def claude_name(tool: HookedTool) -> str:
    return tool.claude_name or tool.name


@dataclass(frozen=True)
class Hook:
    event: str
    matcher: str
    """A regex matched against the tool's zen and Claude Code names; empty or `*`: any."""
    command: str
    timeout: float = DEFAULT_TIMEOUT
    source: str = "config"

    def matches(self, tool: HookedTool | None) -> bool:
        if tool is None or self.matcher in ("", "*"):
            return True
        names = (tool.name, claude_name(tool))
        try:
            return any(re.fullmatch(self.matcher, n) for n in names)
        except re.error:
            return False


@dataclass
class Outcome:
    """What the hooks of one event decided, all of them together."""

    block: bool = False
    reason: str = ""
    permission: Permission | None = None
    updated_input: dict[str, Any] | None = None
    context: list[str] = field(default_factory=list)
    """Text the hooks add for the model (stdout of UserPromptSubmit/SessionStart, or
    `additionalContext`)."""


def parse_hooks(raw: Any, source: str) -> tuple[list[Hook], list[str]]:
    """Claude Code's `hooks` object → hooks, plus one problem line per entry that is unusable
    (never silently dropped)."""
    hooks: list[Hook] = []
    problems: list[str] = []
    if not isinstance(raw, dict):
        return hooks, [f"{source}: hooks must be a mapping of event names"] if raw else []
    for event, groups in raw.items():
        if event not in EVENTS:
            problems.append(f"{source}: unknown hook event {event!r} (known: {', '.join(EVENTS)})")
            continue
        for group in groups if isinstance(groups, list) else [groups]:
            if not isinstance(group, dict) or not isinstance(group.get("hooks"), list):
                problems.append(f"{source}: {event} entries need a `hooks` list")
                continue
            matcher = str(group.get("matcher") or "")
            try:
                re.compile("" if matcher == "*" else matcher)
            except re.error as e:
                problems.append(f"{source}: {event} matcher {matcher!r} is not a regex ({e})")
                continue
            for spec in group["hooks"]:
                command = spec.get("command") if isinstance(spec, dict) else None
                if not isinstance(command, str) or spec.get("type", "command") != "command":
                    problems.append(f"{source}: {event} hooks need type: command and a command")
                    continue
                timeout = spec.get("timeout", DEFAULT_TIMEOUT)
                if not isinstance(timeout, (int, float)) or timeout <= 0:
                    timeout = DEFAULT_TIMEOUT
                hooks.append(Hook(event, matcher, command, float(timeout), source))
    return hooks, problems


def load_hooks(configured: Any, root: Path, trusted: bool) -> tuple[list[Hook], list[str]]:
    """zen's configured hooks, then a trusted workspace's `.claude/settings.json` hooks
    (Claude Code's own file, reused unchanged); with one line per problem."""
    hooks, problems = parse_hooks(configured, "config")
    settings = root / ".claude" / "settings.json"
    if trusted and settings.is_file():
        try:
            data = json.loads(decode_text(settings.read_bytes()))
        except (OSError, ValueError) as e:
            return hooks, [*problems, f"{settings}: unreadable ({e}); its hooks are ignored"]
        more, said = parse_hooks(
            data.get("hooks") if isinstance(data, dict) else None, ".claude/settings.json"
        )
        hooks, problems = hooks + more, problems + said
    return hooks, problems


def unmatched(hooks: list[Hook], tools: list[HookedTool]) -> list[str]:
    """Warnings for tool-event matchers that can match none of `tools` (MCP patterns are
    left alone: their servers may start later)."""
    lines = []
    for hook in hooks:
        if hook.event not in TOOL_EVENTS or hook.matcher in ("", "*"):
            continue
        if hook.matcher.startswith("mcp__") or any(hook.matches(t) for t in tools):
            continue
        lines.append(
            f"hook matcher {hook.matcher!r} ({hook.event}, {hook.source}) matches no "
            f"tool; zen's tools: {', '.join(t.name for t in tools)}"
        )
    return lines


def claude_input(tool: HookedTool, args: dict[str, Any], root: Path) -> dict[str, Any]:
    """zen's arguments plus the keys Claude Code would send (`file_path`, absolute)."""
    shown = dict(args)
    if tool.file_arg and isinstance(args.get("path"), str):
        shown["file_path"] = str(root / args["path"])
    return shown


def zen_input(tool: HookedTool, updated: dict[str, Any], root: Path) -> dict[str, Any]:
    """A hook's `updatedInput` back in zen's keys (`file_path` → `path`)."""
    args = dict(updated)
    file_path = args.pop("file_path", None)
    if tool.file_arg and isinstance(file_path, str):
        args["path"] = file_path
    return args


class Hooks:
    """The hooks of one session; `run` fires those of an event, in order, and merges what
    they decide. A hook that fails (not found, crashes, times out, bad JSON) is reported on
    one warning line and decides nothing."""

    def __init__(self, hooks: list[Hook], root: Path, session_id: str) -> None:
        self.hooks = hooks
        self.root = root
        self.session_id = session_id

    def __bool__(self) -> bool:
        return bool(self.hooks)

    def wants(self, event: str, tool: HookedTool | None = None) -> bool:
        return any(h.event == event and h.matches(tool) for h in self.hooks)

    async def run(
        self,
        event: str,
        emit: ev.Emit,
        agent: str,
        *,
        tool: HookedTool | None = None,
        **fields: Any,
    ) -> Outcome:
        outcome = Outcome()
        payload = {
            "session_id": self.session_id,
            "transcript_path": "",
            "cwd": str(self.root),
            "hook_event_name": event,
            **fields,
        }
        if tool is not None:
            payload["tool_name"] = claude_name(tool)
            payload["zen_tool_name"] = tool.name
        for hook in self.hooks:
            if hook.event != event or not hook.matches(tool):
                continue
            said = await self._one(hook, payload, emit, agent)
            if said is None:
                continue
            code, out, err = said
            self._merge(outcome, hook, code, out, err, emit, agent)
            if outcome.block:
                break
        return outcome

    async def _one(
        self, hook: Hook, payload: dict[str, Any], emit: ev.Emit, agent: str
    ) -> tuple[int, str, str] | None:
        data = json.dumps(payload, ensure_ascii=True).encode()
        env = {
            **os.environ,
            "CLAUDE_PROJECT_DIR": str(self.root),
            "ZEN_PROJECT_DIR": str(self.root),
        }
        command = hook.command if sys.platform == "win32" else ["/bin/sh", "-c", hook.command]
        try:
            done = await run_child(
                command,
                cwd=self.root,
                env=env,
                timeout=hook.timeout,
                limit=OUTPUT_LIMIT,
                stdin=data,
            )
        except OSError as e:
            self._failed(hook, f"could not start: {e.strerror or e}", emit, agent)
            return None
        if done.timed_out or done.code is None:  # what it said so far decides nothing
            self._failed(hook, f"timed out after {hook.timeout:g} s", emit, agent)
            return None
        assert done.err is not None
        out, err = (x.data().decode("utf-8", "replace") for x in (done.out, done.err))
        return done.code, out, err

    def _merge(
        self, outcome: Outcome, hook: Hook, code: int, out: str, err: str, emit: ev.Emit, agent: str
    ) -> None:
        if code == 2:
            outcome.block = True
            outcome.reason = err.strip() or f"blocked by a {hook.event} hook"
            self._said(hook, f"blocked: {outcome.reason}", emit, agent)
            return
        if code != 0:
            self._failed(hook, f"exit {code}: {(err or out).strip()[:200]}", emit, agent)
            return
        answer = _json_object(out)
        if answer is None:
            if out.strip():
                if hook.event in ("UserPromptSubmit", "SessionStart"):
                    outcome.context.append(out.strip())
                self._said(hook, out.strip(), emit, agent)
            return
        specific = answer.get("hookSpecificOutput")
        specific = specific if isinstance(specific, dict) else {}
        decision = answer.get("decision") or specific.get("permissionDecision")
        reason = str(
            answer.get("reason")
            or specific.get("permissionDecisionReason")
            or answer.get("stopReason")
            or ""
        )
        if decision in ("block", "deny") or answer.get("continue") is False:
            outcome.block = True
            outcome.reason = reason or f"blocked by a {hook.event} hook"
        elif decision in ("allow", "approve"):
            outcome.permission = "allow"
        elif decision == "ask":
            outcome.permission = "ask"
        if isinstance(specific.get("updatedInput"), dict):
            outcome.updated_input = specific["updatedInput"]
        if isinstance(specific.get("additionalContext"), str):
            outcome.context.append(specific["additionalContext"])
        message = answer.get("systemMessage") or reason
        if message or outcome.block:
            self._said(hook, str(message or outcome.reason), emit, agent)

    @staticmethod
    def _said(hook: Hook, text: str, emit: ev.Emit, agent: str) -> None:
        line = " ".join(text.split())
        emit(ev.Notice(agent=agent, text=f"hook {hook.event}: {line[:300]}"))

    @staticmethod
    def _failed(hook: Hook, why: str, emit: ev.Emit, agent: str) -> None:
        emit(
            ev.Notice(
                agent=agent,
                text=f"hook {hook.event} `{hook.command[:80]}` failed ({why}); it decided nothing",
                level="warning",
            )
        )


def _json_object(text: str) -> dict[str, Any] | None:
    stripped = text.strip()
    if not stripped.startswith("{"):
        return None
    try:
        value = json.loads(stripped)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None

"""Compaction anchored in the memo: when a conversation fills its window, shrink it.

First the cheap step: tool outputs older than the newest `KEEP_TOOL_SHARE` of the window become
one-line stubs, if that alone frees enough. Otherwise the model writes the task's state into the
memo under fixed keys (`task:goal`, `task:constraints` with the user's own words, `task:decisions`,
`task:done`, `task:next`, `file:*`), and the conversation restarts from the system prompt (project
instructions re-read from disk), one message holding that state, the memo index and the user's
messages, and the newest turns that fit. Before anything is dropped, every user message must be
represented: each of its sentences verbatim in `task:constraints`, else the message is kept whole.
A structured memo is checkable in a way a prose summary is not, and it outlives the conversation.

`compact()` is the one place a compaction starts (the seam for PreCompact hooks).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from zen.agent.context import (
    RESTART_HEADER,
    WindowResolver,
    is_restart,
    message_tokens,
    messages_tokens,
    tools_tokens,
)
from zen.agent.text_protocol import from_zen
from zen.base import events as ev
from zen.base.preamble import asked, frame
from zen.base.text import clip
from zen.llm.errors import ContextLengthError
from zen.settings.prompts import load_prompt, render
from zen.tools.registry import ToolRegistry, parse_arguments

if TYPE_CHECKING:
    from zen.llm.types import AssistantTurn
    from zen.tools.base import RunContext, ToolContext

KEEP_TOOL_SHARE = 0.1
"""The newest tool outputs, up to this share of the window, are never stubbed."""
PRUNE_ENOUGH = 0.6
"""Stubbing alone suffices when it brings the conversation under this share of the threshold."""
TAIL_SHARE = 0.15
"""The newest turns since the last user message kept verbatim, up to this share of the window."""
KEEP_USER_MESSAGES = 3
"""The user's newest messages are always kept verbatim."""
SUMMARY_VIEW = 0.8
"""The summarising request shows the model at most this share of the window."""
STATE_KEYS = ("task:goal", "task:constraints", "task:decisions", "task:done", "task:next")
MAX_FILE_KEYS = 40
MAX_ENTRY_CHARS = 8_000
SUMMARY_CHARS = 100
AGAIN = 0.05
"""After a compaction, the next automatic one waits until the conversation grew this share."""

_SECTION = re.compile(r"^\s*#{1,4}\s*`?((?:task:[a-z]+)|(?:file:\S+?))`?\s*:?\s*$")
_ATTACHED = re.compile(r'<file path="([^"\n]*)">\n(.*?)\n</file>', re.DOTALL)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_KEPT = re.compile(r"<user-message>\n(.*?)\n</user-message>", re.DOTALL)
_TAGS = (("<user-message>", "<user-message\u200b>"), ("</user-message>", "</user-message\u200b>"))
"""Escaped everywhere but zen's own wrappers: model-written notes (steerable by a hostile file)
must never pass for the user's words at the next compaction."""
_STUB = "[output of "


@dataclass
class ContextPolicy:
    """What an agent needs to keep its conversation inside the window."""

    window: WindowResolver
    compact_at: float = 0.8
    facts: Callable[[], str] | None = None
    """The run's facts afresh (project instructions re-read from disk), framed before the
    restart message as before the first."""
    owns_task: bool = True
    """The agent the user talks to keeps its `task:*` state in the shared memo. A Coder or
    sub-agent keeps its own only in its restart message (its sub-task must not overwrite the
    Orchestrator's); its `file:*` notes are shared either way."""


class ChatModel(Protocol):
    """The model an agent streams its turns from: the LLM client, or a test's fake."""

    echo_reasoning: bool

    async def stream(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        emit: ev.Emit,
        agent: str,
    ) -> AssistantTurn: ...


class Compactable(Protocol):
    """What a compaction needs of the agent whose conversation it shrinks (`loop.Agent`).
    A Protocol, so this module need not import the loop that calls it."""

    name: str
    messages: list[dict[str, Any]]
    client: ChatModel
    registry: ToolRegistry
    ctx: ToolContext
    context: ContextPolicy | None
    constraints: str
    compacted_to: int | None

    def context_tokens(self) -> int: ...

    def wire_tools(self) -> list[dict[str, Any]]: ...

    def replace_messages(self, messages: list[dict[str, Any]]) -> None: ...


async def compact(
    agent: Compactable, run: RunContext, reason: str, focus: str = ""
) -> ev.Compacted | None:
    """Compact `agent`'s conversation within `run` (its events, and the run its memo notes are
    credited to); the one place a compaction starts.

    reason: "auto" (the threshold was crossed: stubbing old tool outputs is tried first),
    "overflow" (the server said the request is too long) or "manual" (/compact [focus]).
    Returns the event it emitted, or None when there was nothing to compact.
    """
    policy = agent.context
    if policy is None or len(agent.messages) < 2:
        return None
    hooks = agent.ctx.hooks
    if hooks and hooks.wants("PreCompact"):
        trigger = "manual" if reason == "manual" else "auto"
        await hooks.run(
            "PreCompact", run.emit, agent.name, trigger=trigger, custom_instructions=focus
        )
    before = agent.context_tokens()
    if reason == "overflow":  # the server's window is evidently smaller than this request
        policy.window.learn_limit(before)
    window = (await policy.window.get()).tokens
    schemas = agent.wire_tools()
    if reason == "auto":
        pruned = prune_tool_outputs(agent.messages, int(window * KEEP_TOOL_SHARE), agent)
        after = tools_tokens(schemas) + messages_tokens(pruned)
        if pruned != agent.messages and after <= window * policy.compact_at * PRUNE_ENOUGH:
            agent.replace_messages(pruned)
            return _done(agent, run.emit, reason, before, after, 0)

    run.emit(ev.Compacting(agent=agent.name))
    entries = await _summarise(agent, run.emit, window, focus)
    state = _keep_state(agent, policy, entries, run.id)
    facts = policy.facts() if policy.facts else ""
    messages = restart(agent, facts, state, window)
    if reason == "manual" and messages[-1]["role"] == "user":
        # the next task arrives as a user message: keep roles alternating for strict templates
        messages.append({"role": "assistant", "content": load_prompt("compacted-ack")})
    after = tools_tokens(schemas) + messages_tokens(messages)
    agent.replace_messages(messages)
    return _done(agent, run.emit, reason, before, after, len(agent.ctx.memo.entries))


def _keep_state(
    agent: Compactable, policy: ContextPolicy, entries: dict[str, str], run: str
) -> dict[str, str]:
    """Write the summary's `entries` into the memo (an agent that does not own the task keeps
    only its `file:*` notes there); the task state the restarted conversation starts from."""
    memo = agent.ctx.memo
    earlier = memo.read("task:constraints") if policy.owns_task else None
    carried = earlier.content if earlier else agent.constraints
    if carried:  # instructions only ever accumulate: an earlier compaction's are never lost
        entries["task:constraints"] = merge_constraints(
            carried, entries.get("task:constraints", "")
        )
    agent.constraints = entries.get("task:constraints", "")
    for key, content in entries.items():
        if policy.owns_task or not key.startswith("task:"):
            memo.write(key, content, _summary(content), agent.name, run=run)
    if policy.owns_task:  # the memo's state, older keys this summary left out included
        found = (memo.read(key) for key in STATE_KEYS)
        return {e.key: e.content for e in found if e is not None}
    return {key: entries[key] for key in STATE_KEYS if key in entries}


def _done(
    agent: Compactable, emit: ev.Emit, reason: str, before: int, after: int, memo_keys: int
) -> ev.Compacted:
    event = ev.Compacted(
        agent=agent.name, before=before, after=after, memo_keys=memo_keys, reason=reason
    )
    agent.compacted_to = after
    emit(event)
    return event


# -- the cheap step -------------------------------------------------------------------------


def prune_tool_outputs(
    messages: list[dict[str, Any]], keep: int, agent: Compactable, *, newest_too: bool = False
) -> list[dict[str, Any]]:
    """A copy with tool outputs older than the newest `keep` tokens of them as one-line stubs.

    The outputs of the last turn (what the model just asked for) are kept unless `newest_too`.
    The messages stay (a call and its result are never split); only their text shrinks.
    """
    calls = _calls(messages)
    out = list(messages)
    last_turn = max((i for i, m in enumerate(out) if m.get("role") == "assistant"), default=0)
    seen = 0
    for i in range(len(out) - 1, 0, -1):
        message = out[i]
        if message.get("role") != "tool":
            continue
        content = str(message.get("content") or "")
        seen += message_tokens(message)
        if (i > last_turn and not newest_too) or seen <= keep or content.startswith(_STUB):
            continue
        name, args = calls.get(str(message.get("tool_call_id")), ("a tool", {}))
        detail = agent.registry.detail(name, args)
        stub = f"{_STUB}{name}{' ' + detail if detail else ''}, {len(content):,} chars, dropped]"
        if len(stub) < len(content):
            out[i] = {**message, "content": stub}
    return out


def _calls(messages: list[dict[str, Any]]) -> dict[str, tuple[str, dict[str, Any]]]:
    """tool_call_id -> (tool name, arguments) for every call in the conversation."""
    found: dict[str, tuple[str, dict[str, Any]]] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            args = parse_arguments(str(function.get("arguments") or ""))
            found[str(call.get("id"))] = (
                str(function.get("name") or "a tool"),
                args if isinstance(args, dict) else {},
            )
    return found


# -- the model writes the state into the memo -----------------------------------------------


async def _summarise(agent: Compactable, emit: ev.Emit, window: int, focus: str) -> dict[str, str]:
    """One request asking the model for the state; {memo key: content} ({} if it failed)."""
    ask = {
        "role": "user",
        "content": render(
            load_prompt("compact"),
            focus=f"\nThe user asks to keep in particular: {focus.strip()}"
            if focus.strip()
            else "",
        ),
    }
    schemas = agent.wire_tools()
    budget = int(window * SUMMARY_VIEW) - tools_tokens(schemas) - message_tokens(ask)
    for _ in range(2):
        view = fit_view(agent.messages, budget, agent)
        try:
            reply = await agent.client.stream([*view, ask], schemas, _quiet(emit), agent.name)
        except ContextLengthError:  # again, at half of what was just refused
            budget = min(budget, messages_tokens(view)) // 2
            continue
        return parse_state(reply.content, [(c.name, c.arguments) for c in reply.tool_calls])
    emit(
        ev.Notice(
            agent=agent.name,
            text="compaction: the model could not summarise; keeping your messages verbatim",
            level="warning",
        )
    )
    return {}


def _quiet(emit: ev.Emit) -> ev.Emit:
    """The summary is for the memo, not the screen: pass on only usage and retries."""

    def quiet(event: ev.Event) -> None:
        if isinstance(event, (ev.Usage, ev.Retrying)):
            emit(event)

    return quiet


def fit_view(
    messages: list[dict[str, Any]], budget: int, agent: Compactable
) -> list[dict[str, Any]]:
    """The conversation as the summarising request shows it: under `budget` tokens if it can.

    Tool outputs are stubbed (old ones, then all), attached files dropped, then the oldest
    assistant turns left out; the user's messages always stay.
    """
    view = prune_tool_outputs(messages, int(budget * 0.25), agent)
    if messages_tokens(view) <= budget:
        return view
    view = prune_tool_outputs(view, 0, agent, newest_too=True)
    view = [
        {**m, "content": strip_attachments(m["content"])}
        if m.get("role") == "user" and isinstance(m.get("content"), str)
        else m
        for m in view
    ]
    while messages_tokens(view) > budget:
        first = next((i for i, m in enumerate(view) if i and m.get("role") == "assistant"), None)
        if first is None:
            break
        end = first + 1
        while end < len(view) and view[end].get("role") == "tool":
            end += 1
        del view[first:end]
    return view


def parse_state(text: str, calls: list[tuple[str, str]]) -> dict[str, str]:
    """`## task:goal` sections of the answer (and any memo writes it made) as memo entries."""
    entries: dict[str, str] = {}
    for name, arguments in calls:  # a model that used the memo tool anyway
        args = parse_arguments(arguments)
        if name == "memo" and isinstance(args, dict) and args.get("action") == "write":
            memo_key, content = args.get("key"), args.get("content")
            if isinstance(memo_key, str) and isinstance(content, str):
                _put(entries, memo_key.strip(), content)
    key: str | None = None
    lines: list[str] = []
    for line in (text or "").splitlines():
        match = _SECTION.match(line)
        if match:
            if key:
                _put(entries, key, "\n".join(lines))
            key, lines = match.group(1), []
        elif key:
            lines.append(line)
    if key:
        _put(entries, key, "\n".join(lines))
    return entries


def _put(entries: dict[str, str], key: str, content: str) -> None:
    content = content.strip()
    files = sum(1 for k in entries if k.startswith("file:"))
    allowed = key in STATE_KEYS or (
        key.startswith("file:") and len(key) > 5 and (key in entries or files < MAX_FILE_KEYS)
    )
    if allowed and content:
        entries[key] = content[:MAX_ENTRY_CHARS]


def merge_constraints(earlier: str, new: str) -> str:
    """`new`, preceded by every line of `earlier` it does not already hold word for word."""
    have = _norm(new)
    missing = [
        line
        for line in earlier.splitlines()
        if re.search(r"\w", line) and _norm(line.strip(" -*")) not in have
    ]
    return "\n".join([*missing, new]).strip()


def _summary(content: str) -> str:
    line = next((ln.strip(" -*#") for ln in content.splitlines() if ln.strip(" -*#")), "")
    return clip(line, SUMMARY_CHARS)


# -- the new conversation -------------------------------------------------------------------


def restart(
    agent: Compactable, facts: str, state: dict[str, str], window: int
) -> list[dict[str, Any]]:
    """The system prompt, the restart message (after `facts`), and the newest turns that fit."""
    messages = agent.messages
    texts = user_texts(messages)
    constraints = state.get("task:constraints", "")
    kept = [
        t
        for i, t in enumerate(texts)
        if i >= len(texts) - KEEP_USER_MESSAGES or not represented(t, constraints)
    ]
    note = render(
        load_prompt("compacted"),
        state=_escape("\n\n".join(f"## {k}\n{v}" for k, v in state.items()))
        or "(no notes were written)",
        index=_escape(agent.ctx.memo.index_text()) or "(empty)",
        messages="\n".join(
            f"<user-message>\n{_escape(strip_attachments(t))}\n</user-message>" for t in kept
        )
        or "(none)",
    )
    assert note.startswith(RESTART_HEADER)
    head = [messages[0], {"role": "user", "content": frame(facts, note)}]
    compact_at = agent.context.compact_at if agent.context else 0.8
    room = int(window * compact_at * 0.9) - messages_tokens(head)
    budget = min(int(window * TAIL_SHARE), room - tools_tokens(agent.wire_tools()))
    return head + tail(messages, budget)


def _escape(text: str) -> str:
    for tag, escaped in _TAGS:
        text = text.replace(tag, escaped)
    return text


def _unescape(text: str) -> str:
    for tag, escaped in _TAGS:
        text = text.replace(escaped, tag)
    return text


def tail(messages: list[dict[str, Any]], budget: int) -> list[dict[str, Any]]:
    """The newest whole turns after the last user message, within `budget` tokens.

    Cut only where an assistant message begins, so each call keeps its results.
    """
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=0)
    after = messages[last_user + 1 :]
    best: list[dict[str, Any]] = []
    for start in range(len(after) - 1, -1, -1):
        if after[start].get("role") != "assistant":
            continue
        if messages_tokens(after[start:]) > budget:
            break
        best = after[start:]
    return best


def user_texts(messages: list[dict[str, Any]]) -> list[str]:
    """Every message the user gave this conversation, including those a compaction kept."""
    texts: list[str] = []
    for i, message in enumerate(messages):
        if i == 0 or message.get("role") != "user" or from_zen(message.get("content")):
            continue  # the text protocol's results are zen's words, not the user's
        if is_restart(message):
            texts.extend(_unescape(m) for m in _KEPT.findall(asked(message["content"])))
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
        texts.append(asked(str(content or "")) if i == 1 else str(content or ""))  # zen's frame
    return texts


def represented(text: str, constraints: str) -> bool:
    """True when every sentence of the user's message is in `constraints`, word for word."""
    have = _norm(constraints)
    sentences = [_norm(s) for s in _SENTENCES.split(strip_attachments(text))]
    return all(s in have for s in sentences if re.search(r"\w", s))


def strip_attachments(text: str) -> str:
    """An `@file` attached to a message is data, not an instruction: a note replaces it."""
    return _ATTACHED.sub(
        lambda m: f"[attached file {m.group(1)}: {len(m.group(2)):,} chars, not kept]", text
    )


def _norm(text: str) -> str:
    return " ".join(text.split())

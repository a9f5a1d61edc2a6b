"""What a compaction keeps of a conversation, and in what form: pure functions over messages.

`compaction.py` decides when to compact and makes the summarising request; these say how: old
tool outputs as one-line stubs, the view the summarising request shows, the `## task:*`
sections of its answer as memo entries, the restart message with the user's own words, and
the newest turns that fit after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from zen.agent.context import RESTART_HEADER, is_restart, message_tokens, messages_tokens
from zen.agent.protocols.edit_blocks import from_zen
from zen.base.preamble import asked
from zen.base.text import clip
from zen.settings.prompts import load_prompt, render
from zen.tools.registry import parse_arguments

Detail = Callable[[str, dict[str, Any]], str]
"""What a log line shows of a call (`ToolRegistry.detail`): a stub names its call with it."""
KEEP_USER_MESSAGES = 3
"""The user's newest messages are always kept verbatim."""
STATE_KEYS = ("task:goal", "task:constraints", "task:decisions", "task:done", "task:next")
MAX_FILE_KEYS = 40
MAX_ENTRY_CHARS = 8_000
SUMMARY_CHARS = 100

_SECTION = re.compile(r"^\s*#{1,4}\s*`?((?:task:[a-z]+)|(?:file:\S+?))`?\s*:?\s*$")
_ATTACHED = re.compile(r'<file path="([^"\n]*)">\n(.*?)\n</file>', re.DOTALL)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_KEPT = re.compile(r"<user-message>\n(.*?)\n</user-message>", re.DOTALL)
_TAGS = (("<user-message>", "<user-message\u200b>"), ("</user-message>", "</user-message\u200b>"))
"""Escaped everywhere but zen's own wrappers: model-written notes (steerable by a hostile file)
must never pass for the user's words at the next compaction."""
_STUB = "[output of "


def prune_tool_outputs(
    messages: list[dict[str, Any]], keep: int, detail: Detail, *, newest_too: bool = False
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
        said = detail(name, args)
        stub = f"{_STUB}{name}{' ' + said if said else ''}, {len(content):,} chars, dropped]"
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


def fit_view(messages: list[dict[str, Any]], budget: int, detail: Detail) -> list[dict[str, Any]]:
    """The conversation as the summarising request shows it: under `budget` tokens if it can.

    Tool outputs are stubbed (old ones, then all), attached files dropped, then the oldest
    assistant turns left out; the user's messages always stay.
    """
    view = prune_tool_outputs(messages, int(budget * 0.25), detail)
    if messages_tokens(view) <= budget:
        return view
    view = prune_tool_outputs(view, 0, detail, newest_too=True)
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


def summary_line(content: str) -> str:
    """A memo entry's one-line summary: its first line with words."""
    line = next((ln.strip(" -*#") for ln in content.splitlines() if ln.strip(" -*#")), "")
    return clip(line, SUMMARY_CHARS)


def restart_note(messages: list[dict[str, Any]], state: dict[str, str], memo_index: str) -> str:
    """The message a compacted conversation restarts from: the task's state, the memo's index
    and the user's messages a summary does not hold word for word (the newest always)."""
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
        index=_escape(memo_index) or "(empty)",
        messages="\n".join(
            f"<user-message>\n{_escape(strip_attachments(t))}\n</user-message>" for t in kept
        )
        or "(none)",
    )
    assert note.startswith(RESTART_HEADER)
    return note


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
            continue  # edit blocks' results are zen's words, not the user's
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

"""`zen sessions list|show|rm|export`: the saved sessions, from the command line.

`export` writes JSON lines (`sessions_export.py`): a `Session` header, then the same events
`--output-format stream-json` prints, secrets redacted by default.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from typing import TextIO

from zen.base import exits
from zen.base.paths import expand_user
from zen.base.preamble import asked
from zen.base.terminal_safe import terminal_safe
from zen.base.text import clip
from zen.stores.session_db import SessionError
from zen.stores.session_rows import SessionInfo
from zen.stores.sessions import SessionStore
from zen.ui.sessions_export import agent_name, export_events, runs_by_call


def age(seconds: float) -> str:
    """`just now`, `5 min`, `3 h`, `2 d`: how long ago."""
    for size, unit in ((86400, "d"), (3600, "h"), (60, "min")):
        if seconds >= size:
            return f"{int(seconds // size)} {unit} ago"
    return "just now"


def session_row(info: SessionInfo, now: float | None = None) -> str:
    """`id  age  tasks  mode  title`: one line of a session list. A task is one message of
    the user's (a model "turn", as `-p`'s JSON counts them, is one request)."""
    tasks = _count(info.turns, "task")
    when = age((now or time.time()) - info.updated)
    return terminal_safe(f"{info.id}  {when:>11}  {tasks:>9}  {_mode(info):<7}  {info.title}")


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


def _mode(info: SessionInfo) -> str:
    """`single`, or `dual·delegated`: collaboration means something only in dual mode."""
    return info.agent_mode + (f"·{info.collaboration}" if info.agent_mode == "dual" else "")


def _models(info: SessionInfo) -> str:
    """The model each role talked to; a record from before roles were stored names the
    configured model, None meaning the provider's default."""
    roles = {k: v for k, v in info.models.items() if k != "model" and v}
    if roles:
        return ", ".join(f"{role}: {model}" for role, model in roles.items())
    return "model: " + (info.models.get("model") or "the provider's default")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="zen sessions")
    sub = parser.add_subparsers(dest="action", required=True)
    listing = sub.add_parser("list", help="this workspace's sessions, newest first")
    listing.add_argument("-C", dest="directory", metavar="DIR")
    listing.add_argument("--all", action="store_true", help="every workspace's sessions")
    listing.add_argument("-n", dest="limit", type=int, default=20)
    for name, summary in (
        ("show", "one session's conversation, memo and todos"),
        ("rm", "delete a session"),
        ("export", "a session as JSON lines (secrets redacted)"),
    ):
        one = sub.add_parser(name, help=summary)
        one.add_argument("id")
        if name == "export":
            one.add_argument(
                "--raw-tool-outputs",
                action="store_true",
                help="tool outputs exactly as saved (not redacted)",
            )
    return parser


def sessions_command(argv: list[str], out: TextIO = sys.stdout) -> int:
    args = _parser().parse_args(argv)
    try:
        store = SessionStore()
    except SessionError as e:
        print(terminal_safe(f"zen: {e}"), file=sys.stderr)
        return exits.USAGE
    try:
        _act(store, args, out)
        return exits.DONE
    except SessionError as e:
        print(terminal_safe(f"zen: {e}"), file=sys.stderr)
        return exits.USAGE
    finally:
        store.close()


def _act(store: SessionStore, args: argparse.Namespace, out: TextIO) -> None:
    if args.action == "list":
        _list(store, args, out)
        return
    info = store.get(args.id)
    if args.action == "rm":
        _remove(store, info, out)
    elif args.action == "show":
        for line in show_lines(store, info):
            print(terminal_safe(line), file=out)
    else:
        for event in export_events(store, info, raw_tools=args.raw_tool_outputs):
            out.write(json.dumps(event, ensure_ascii=True) + "\n")


def _list(store: SessionStore, args: argparse.Namespace, out: TextIO) -> None:
    root = None if args.all else str(expand_user(args.directory or ".").resolve())
    found = store.recent(root, max(args.limit, 1), started=True)
    if not found:
        where = "" if args.all else f" in {root}"
        print(terminal_safe(f"no saved sessions{where}"), file=out)
    for info in found:
        line = session_row(info)
        print(terminal_safe(line + (f"  ({info.workspace})" if args.all else "")), file=out)


def _remove(store: SessionStore, info: SessionInfo, out: TextIO) -> None:
    """Refused while another live zen holds the session (it is still writing to it)."""
    holder = store.claim(info.id)
    if holder is not None:
        raise SessionError(f"session {info.id} is open in another zen ({holder})")
    store.remove(info.id)
    print(f"deleted session {info.id}", file=out)


# -- show --------------------------------------------------------------------------------------


def show_lines(store: SessionStore, info: SessionInfo) -> Iterator[str]:
    made = time.strftime("%Y-%m-%d %H:%M", time.localtime(info.created))
    yield f"session {info.id} · {info.title}"
    yield f"  {info.workspace} · started {made} · updated {age(time.time() - info.updated)}"
    answers = sum(m.get("role") == "assistant" for m in store.messages(info.id))
    counts = f"{_count(info.turns, 'task')}, {_count(answers, 'model turn')}"
    yield f"  mode {_mode(info)} · {_models(info)} · {counts}"
    yield ""
    yield from _conversation(store, info, "")
    memo = store.memo(info.id)
    if memo:
        yield ""
        yield "memo:"
        for m in memo:
            yield f"  {m.key} — {m.summary} ({m.author})"
    todos = info.state.get("todos") or []
    if todos:
        yield ""
        yield "todos:"
        marks = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
        for t in todos:
            yield f"  {marks.get(t.get('status'), '[?]')} {t.get('id')}. {t.get('text')}"


def _conversation(store: SessionStore, info: SessionInfo, indent: str) -> Iterator[str]:
    runs = runs_by_call(store, info)
    for m in store.messages(info.id):
        role, content = m.get("role"), str(m.get("content") or "")
        if role == "user":
            yield f"{indent}› {_first(asked(content), 200)}"
        elif role == "assistant":
            if content.strip():
                yield f"{indent}{agent_name(info)}: {_first(content, 400)}"
            for c in m.get("tool_calls") or []:
                fn = c.get("function", {})
                yield f"{indent}  → {fn.get('name')} {_first(fn.get('arguments', ''), 120)}"
                for child in runs.get(c.get("id"), []):
                    yield f"{indent}    [{child.agent}]"
                    yield from _conversation(store, child, indent + "    ")
        elif role == "tool":
            yield f"{indent}  ← {_first(content, 120)} ({len(content):,} chars)"


def _first(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return clip(line, limit)

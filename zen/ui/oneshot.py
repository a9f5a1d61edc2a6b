"""`zen -p`: run one task with nobody watching, and report it as text, JSON or JSON lines.

text: the final answer on stdout, one line per tool call on stderr, both made terminal-safe
(`zen.base.terminal_safe`) whether or not they are a terminal: piped output ends up on one too.
json: one object at the end, whatever happened (`is_error` and a message on failure), with
tokens per role and tool calls counted by origin (native, recovered from text, malformed).
stream-json: every event as a JSON line as it happens, then the same result object.
JSON keeps the exact text, ASCII-escaped (`\\u009b`, `\\u202e`).
Exit codes (zen/base/exits.py): 0 done, 1 model/API error, 3 max turns, 4 max time, 5 answer cut at
max_tokens, 7 calls refused for want of approval, 8 over budget (130, 143, 129: the CLI's).
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from typing import Any, TextIO

from zen.agent.loop import RunResult
from zen.agent.run_guards import BudgetLimit, TimeLimit
from zen.agent.session import Session
from zen.base import events as ev
from zen.base import exits
from zen.base.terminal_safe import terminal_safe
from zen.llm.deadlines import MID_STREAM
from zen.llm.types import LLMError
from zen.settings.schema import ConfigError
from zen.ui.call_tally import CallTally
from zen.ui.format import call_line, memo_line
from zen.ui.refusals import Refusals
from zen.ui.run_result import Progress, result_object, write_result

STALL_NOTICE = 10.0
"""Seconds a stream may pause inside an answer before stderr says so: a local model on a busy
CPU pauses for seconds between tokens, and a line per pause would bury the log."""


class TextLog:
    """Tool calls, memo summaries, retries and long waits as plain lines on stderr."""

    def __init__(self, err: TextIO) -> None:
        self.err = err
        self._waiting: set[str] = set()
        """Agents whose current wait was already announced (one line per wait)."""

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.Waiting):
            if event.agent in self._waiting or event.what == "retry":
                return  # the retry line already said how long
            if event.what == MID_STREAM and event.elapsed < STALL_NOTICE:
                return
            self._waiting.add(event.agent)
            line = (
                f"waiting for {event.what} ({event.elapsed:.0f}s so far, "
                f"giving up after {event.limit:g}s)"
            )
            if event.agent != "main":
                line = f"{event.agent} › {line}"
            print(terminal_safe(line), file=self.err, flush=True)
            return
        self._waiting.discard(event.agent)
        if isinstance(event, ev.ToolCallFinished):
            if event.name == "memo" and event.ok and event.args.get("action") == "write":
                return  # its MemoWritten line says it
            line = call_line(event.agent, event.name, event.detail, event.ok, event.summary)
        elif isinstance(event, ev.MemoWritten):
            line = memo_line(event.agent, event.key, event.summary)
        elif isinstance(event, ev.Retrying):
            line = f"retrying in {event.delay:.1f}s ({event.reason})"
        elif isinstance(event, ev.Notice):
            line = event.text
        elif isinstance(event, ev.Compacted):
            line = event.line
        else:
            return
        print(terminal_safe(line), file=self.err, flush=True)


class StreamedText:
    """`-p` on a terminal: the top agent's text as it streams (stdout), tool lines as they
    happen (stderr, through TextLog), each starting on a fresh line."""

    def __init__(self, out: TextIO, err: TextIO, agent: str) -> None:
        self.out = out
        self.log = TextLog(err)
        self.agent = agent
        self.streamed = False
        self._at_line_start = True

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta) and event.agent == self.agent:
            if event.text:
                self.out.write(terminal_safe(event.text))
                self.out.flush()
                self.streamed = True
                self._at_line_start = event.text.endswith("\n")
            return
        if isinstance(event, ev.Retrying) and event.agent == self.agent and self.streamed:
            self.end_line()
            self.out.write("[the connection dropped; the answer starts again]\n")
        if isinstance(
            event,
            (
                ev.TurnEnded,
                ev.ToolCallFinished,
                ev.MemoWritten,
                ev.Retrying,
                ev.Notice,
                ev.Compacted,
                ev.Waiting,
            ),
        ):
            self.end_line()
        self.log(event)

    def end_line(self) -> None:
        if not self._at_line_start:
            self.out.write("\n")
            self.out.flush()
            self._at_line_start = True


class JsonLines:
    def __init__(self, out: TextIO) -> None:
        self.out = out

    def __call__(self, event: ev.Event) -> None:
        self.out.write(json.dumps(event.to_json(), ensure_ascii=True) + "\n")
        self.out.flush()


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _warnings_to(err: TextIO) -> ev.Emit:
    """`json`: stdout holds only the result, but a warning (the server dropped the tools, cut
    the conversation) still reaches stderr: a script's user must not miss it."""

    def emit(event: ev.Event) -> None:
        if isinstance(event, ev.Notice) and event.level == "warning":
            print(terminal_safe(f"zen: warning: {event.text}"), file=err, flush=True)

    return emit


def _pick_emit(
    output_format: str, out: TextIO, err: TextIO, agent: str
) -> tuple[ev.Emit, StreamedText | None]:
    """Where the run's events go for this format; the StreamedText too when text streams."""
    if output_format == "stream-json":
        return JsonLines(out), None
    if output_format != "text":
        return _warnings_to(err), None
    if _is_tty(out):
        streamed = StreamedText(out, err, agent)
        return streamed, streamed
    return TextLog(err), None


@dataclass
class _Outcome:
    """How a run ended: its result, or the error that stopped it with its stop and exit code."""

    result: RunResult | None = None
    error: str | None = None
    stop: str = "error"
    code: int = exits.API_ERROR


def _failed(e: Exception) -> _Outcome:
    """What stopped a run: one message and exit code, never a traceback."""
    if isinstance(e, TimeLimit):
        return _Outcome(error=str(e), stop="max_time", code=exits.MAX_TIME)
    if isinstance(e, BudgetLimit):
        return _Outcome(error=str(e), stop="max_budget", code=exits.BUDGET)
    if isinstance(e, LLMError):
        return _Outcome(error=str(e))
    if isinstance(e, ConfigError):  # e.g. no key for a role's own provider, found when it starts
        return _Outcome(error=str(e), code=exits.USAGE)
    return _Outcome(error=f"internal error: {type(e).__name__}: {e}")  # a bug in zen


def _report_text(o: _Outcome, streamed: StreamedText | None, out: TextIO, err: TextIO) -> None:
    result = o.result
    if o.error:
        print(terminal_safe(f"zen: {o.error}"), file=err)
    elif result and result.stop == "max_turns":
        print(
            f"zen: stopped after {result.turns} turns (max_turns); raise it with --max-turns",
            file=err,
        )
    elif streamed is not None and streamed.streamed:
        streamed.end_line()  # the answer is on screen already
    elif result:
        out.write(terminal_safe(result.text.rstrip("\n")) + "\n")


def _exit_code(o: _Outcome, denied: list[dict[str, Any]]) -> int:
    if o.error:
        return o.code
    if o.result and o.result.stop != "done":
        return exits.MAX_TURNS if o.result.stop == "max_turns" else exits.CUT
    return exits.DENIED if denied else exits.DONE


async def run_oneshot(
    session: Session,
    task: str,
    *,
    output_format: str = "text",
    yes: bool = False,
    out: TextIO = sys.stdout,
    err: TextIO = sys.stderr,
    progress: Progress | None = None,
) -> int:
    progress = progress or Progress()
    progress.session = session
    picked, streamed = _pick_emit(output_format, out, err, session.role)
    emit = CallTally(picked)

    held: list[ev.Notice] = []

    def seen(event: ev.Event) -> None:
        if isinstance(event, ev.Notice) and event.after_answer and output_format != "stream-json":
            held.append(event)  # advice about the run goes after its answer
            return
        if isinstance(event, ev.TurnStarted) and event.agent == session.role:
            progress.turns, progress.session_id = event.turn, session.id
        emit(event)

    refusals = Refusals(yes=yes)
    started = time.monotonic()
    try:
        o = _Outcome(await session.run(task, seen, refusals))
    except Exception as e:  # every failure becomes one message and exit code
        o = _failed(e)
    if output_format == "text":
        _report_text(o, streamed, out, err)
    else:
        duration_ms = int((time.monotonic() - started) * 1000)
        if o.result is not None:
            more = await session.changed_files()  # what bash changed is listed too
            o.result.files_changed += [p for p in more if p not in o.result.files_changed]
        obj = result_object(
            session,
            o.result,
            o.error,
            o.stop,
            duration_ms=duration_ms,
            denials=refusals.denied,
            tool_calls=emit.counts,
        )
        write_result(out, obj)
    out.flush()
    for notice in held:
        line = notice.text if output_format == "text" else f"zen: warning: {notice.text}"
        print(terminal_safe(line), file=err, flush=True)
    if refusals.denied:
        refusals.report(err)
    return _exit_code(o, refusals.denied)

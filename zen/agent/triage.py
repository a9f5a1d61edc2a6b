"""Dual mode's triage: how much orchestration a task needs, decided by a rule before any request.

A rule, not a model call: it costs nothing, gives the same answer every time and can be shown
before the run starts. It reads the task's words and the workspace:

- `question`: the task asks (ends with `?` or opens with a question word) and no edit verb
  appears: the Orchestrator answers it itself after a few reads;
- `small`: an edit the task pins to 1-3 files it names (existing, inside the workspace), in a
  short text: zen sends it to the Coder at once, those files named, no scouting round;
- `direct`: with one model for every role, what is neither: a single agent starts it, and it
  becomes `large` only when it grows past `ESCALATE_AT` of the window (`Session`);
- `large`: everything else: scouts gather notes, the Orchestrator delegates in steps.

The task text is untrusted: a named path counts only when it resolves (symlinks too) to a
regular file inside the workspace root, and what the decision line shows is terminal-safe.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Literal

from zen.agent.loop import Opening
from zen.agent.protocols.block_files import named_files
from zen.base import events as ev
from zen.base.preamble import typed
from zen.base.terminal_safe import terminal_safe
from zen.llm.types import ToolCall
from zen.tools.base import RunContext, ToolResult
from zen.tools.workspace import PathError, Workspace

TriagePath = Literal["question", "small", "direct", "large"]
PATHS: dict[str, TriagePath] = {
    "question": "question",
    "small": "small",
    "direct": "direct",
    "large": "large",
}
ESCALATE_AT = 0.15
"""A direct run's conversation past this share of the window becomes orchestrated (DESIGN.md,
"Dual mode with one model")."""
SMALL_FILES = 3
"""A change to more named files than this is gathered and planned first."""
SMALL_CHARS = 600
"""A longer task says more than a one-step change needs: it is planned."""
SCANNED = 4_000
"""Characters of the task searched for file names (each one costs a path lookup)."""
SHOWN = 5
"""Files the decision line lists, at most."""
QUESTION = re.compile(
    r"^(what|why|how|where|which|who|when|is|are|does|do|did|can|could|should|would|"
    r"explain|describe|tell|show|list|summari[sz]e)\b",
    re.I,
)
_VERBS = (
    r"(add|fix|change|rename|remove|delete|implement|refactor|write|create|update|replace|"
    r"make|move|raise|lower|set|edit|modify|convert|introduce|drop|extract|split|merge|"
    r"regenerate|generate|rewrite|append|insert|revert|restore|bump|upgrade)"
)
EDIT = re.compile(rf"\b{_VERBS}\b", re.I)
NOT_EDIT = re.compile(rf"\b(do not|don't|never|without)\s+(\w+\s+)?{_VERBS}\w*", re.I)
""""Do not change any file": a question's guard, not an edit."""
ASKED = re.compile(r"\?(\s|$)")
SENTENCES = re.compile(r"(?<=[.?!])\s+|\n+")
WH = re.compile(r"^(what|why|how|where|which|who|whose|when)\b", re.I)
POLITE = re.compile(r"^(please\b|(can|could|would|will)\s+(you|we)\b)", re.I)
""""Could you add a docstring?": a request, though it ends with `?`."""
LINES = {
    "question": "zen's triage: a question. Answer it yourself after a few reads; "
    "delegate only if it needs changes.",
    "small": "zen's triage: a small change to {files}. Send it to the Coder at once with "
    "those files named; no scouting.",
    "sent": "zen's triage: a small change to {files}, sent to the Coder at once. If it did "
    "not finish, gather with scouts, then delegate in steps.",
    "large": "zen's triage: a large change. Gather with scouts, then delegate in steps.",
    "direct": "",
    "escalated": "zen's triage: this task grew long, so it is now orchestrated. The memo "
    "holds what was learned (task:*, file:*); scout only what it lacks, then delegate the "
    "rest to the Coder in steps.",
}


@dataclass(frozen=True)
class Decision:
    path: TriagePath
    files: tuple[str, ...] = ()
    """Files the task names, workspace-relative, that exist inside the workspace."""
    reason: str = ""
    forced: bool = False
    """The user chose the path (`triage` setting), not the rule."""
    escalated: bool = False
    """The small path failed: the Orchestrator went on with the large one."""

    def note(self, sent: bool = False) -> str:
        """The Orchestrator's one line for this task (framed before it, like the facts);
        `sent`: zen sent the task to the Coder itself."""
        line = LINES["sent" if sent else self.path]
        return line.format(files=", ".join(self.files) or "the files it names")

    def event(self, agent: str) -> ev.Triaged:
        """What the user is shown: one line, control characters stripped."""
        more = ", …" if len(self.files) > SHOWN else ""
        files = f" ({', '.join(self.files[:SHOWN])}{more})" if self.files else ""
        escalated = self.escalated
        if escalated and self.path == "direct":
            line = "triage: direct → large: the task grew long; the Orchestrator delegates the rest"
        elif escalated:
            line = "triage: small → large: the Coder did not finish; the Orchestrator plans it"
        else:
            line = f"triage: {self.path}{files}: {self.reason}"
        return ev.Triaged(
            agent=agent,
            text=terminal_safe(line),
            path="large" if escalated else self.path,
            files=self.files,
            escalated=escalated,
        )


def decide(
    task: str,
    files: list[str],
    setting: str = "auto",
    collaboration: str = "delegated",
    one_model: bool = False,
) -> Decision:
    """The rule, on the task's words and the files it names (see the module's docstring);
    `one_model`: every role runs on the same model, so what is neither a question nor small
    starts direct.
    In `controlled` the Orchestrator applies the Coder's code itself, and scouts' notes spare
    it whole files: no `small` (dev/bench/tokens.py: 1.05x single against 1.08x, 0.73x against
    1.05x with cheap scouts and Coder)."""
    words = task.strip()
    edits = _edits(words)
    asks = bool(ASKED.search(words) or QUESTION.match(words))
    named = tuple(files)
    chosen = PATHS.get(setting)
    if chosen is not None:
        return Decision(chosen, named, "chosen by the triage setting", forced=True)
    if one_model:  # small and question paths cost more than direct here (DESIGN.md)
        return Decision("direct", named, "one model: done directly, orchestrated if it grows long")
    if asks and not edits:
        return Decision("question", named, "a question, answered without delegating")
    small = 0 < len(named) <= SMALL_FILES and len(words) <= SMALL_CHARS
    if edits and small and collaboration != "controlled":
        return Decision("small", named, "the task names its files: straight to the Coder")
    why = "no file named" if not named else "more than a one-step change"
    return Decision("large", named, f"{why}: scouts gather, then delegation in steps")


def asks_for_change(task: str) -> bool:
    """Whether `task` asks for a change (an edit verb, not negated), by the rule alone: single
    mode and the Coder use it too (a task that asked and changed nothing is not a success,
    `agent/nothing_changed.py`). Attached files are not the user's words. A question's
    sentence asks for nothing (an edit verb in "what does add do?" or "...when the variable
    is not set?" is a name or a condition): the nudge would send the model to change files.
    Only the typed words count: a `!cmd` output or an editor's buffer saying "rewrite
    config.py" would have zen tell the model the user asked for it."""
    words = typed(task)[:SCANNED]
    return any(_edits(s) and not _question(s) for s in SENTENCES.split(words))


def _question(sentence: str) -> bool:
    """A sentence that asks (ends with `?` or opens with a wh-word), not a polite request."""
    s = sentence.strip()
    return (s.endswith("?") or bool(WH.match(s))) and not POLITE.match(s)


def _edits(words: str) -> bool:
    return bool(EDIT.search(NOT_EDIT.sub("", words)))


def inside(workspace: Workspace, paths: list[str]) -> list[str]:
    """`paths` that resolve to regular files under the workspace root (not an extra root, not
    through a symlink out), as workspace-relative paths."""
    found = []
    for rel in paths:
        try:
            real = workspace.resolve(rel)
        except PathError:
            continue
        if real.is_relative_to(workspace.root) and real.is_file():
            found.append(real.relative_to(workspace.root).as_posix())
    return list(dict.fromkeys(found))


async def triage(
    task: str,
    workspace: Workspace,
    setting: str = "auto",
    collaboration: str = "delegated",
    one_model: bool = False,
) -> Decision:
    """Decide `task`'s path; the workspace is walked (bounded) in a worker thread."""
    text = task.split('\n\n<file path="', 1)[0]  # attached files are not the user's words
    named = await asyncio.to_thread(named_files, text[:SCANNED], workspace)
    found = inside(workspace, [str(p) for p in named])
    return decide(text, found, setting, collaboration, one_model)


def opening(
    decision: Decision,
    task: str,
    run: RunContext,
    agent: str,
    collaboration: str,
    escalated: Callable[[Decision], None],
) -> Opening:
    """How the Orchestrator's run opens by `decision` (its tools on and a Coder at hand).

    A small change with named files goes to the Coder at once: a `send-to-coder` call zen
    makes in the Orchestrator's conversation, no request before it. Done, the Coder's report
    is the answer. When the Coder did not finish (or in `controlled`, where its code must be
    applied) the Orchestrator goes on from its result; not finished, the decision is
    `escalated` (shown, and handed to `escalated`). Any other path is the decision's note.

    This is where a run becomes orchestrated partway: a later path that starts a task direct
    (the Coder, or a single agent) hands over here, its result in the conversation."""
    if not (decision.path == "small" and decision.files):
        return Opening(note=decision.note())
    args = {"task": task.strip(), "context": "[files] " + " ".join(decision.files)}
    call = ToolCall(f"triage-{run.id}", "send-to-coder", json.dumps(args))

    def settle(done: ToolResult | None) -> str | None:
        controlled = collaboration == "controlled"  # its Coder answers with code, changes nothing
        finished = done is not None and done.ok and (controlled or bool(done.files_changed))
        if finished and not controlled:
            assert done is not None
            return done.output.rsplit("\nfiles changed: ", 1)[0]
        if not finished:
            later = replace(decision, escalated=True)
            run.emit(later.event(agent))
            escalated(later)
        return None

    return Opening(decision.note(sent=True), call, settle)

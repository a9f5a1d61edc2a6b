"""dev/bench/tokens.py's scripted model: the task shapes and one policy per role.

The model's decisions are fixed, so only zen's structure differs between modes: which files
each role reads, which lines it changes, which notes it writes. Each shape has the words a user
would type for it, which zen's triage reads (`default` rows): the edit-heavy task names its
files, the others do not; the question shape asks and changes nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from tests.fakes.server import Reply, call, text, tool_calls

MODELS = {"main": "m-main", "orchestrator": "m-orch", "coder": "m-coder", "scout": "m-scout"}
ONE_MODEL = "m-one"
"""Every role's model when the bench runs dual mode on one model (the direct path)."""
PROMPTS = {
    "You are zen": "main",
    "You are the Orchestrator": "orchestrator",
    "You are the Coder": "coder",
    "You are an explorer": "scout",
}
COMPACT = "The conversation is about to be compacted"
ESCALATED = "this task grew long"


def role_of(body: dict[str, Any]) -> str:
    """Which role sent a request: by its system prompt (one model serves them all)."""
    system = str(body["messages"][0]["content"])
    return next(role for start, role in PROMPTS.items() if system.startswith(start))


# ---------------------------------------------------------------------------------------------
# Task shapes


@dataclass(frozen=True)
class Shape:
    name: str
    task: str
    """What the user types: zen's triage decides the dual path from it (default rows)."""
    read: int
    """Files read to understand the task (the first `edit` of them are changed)."""
    edit: int
    """Files that change."""
    changes: int = 1
    """Lines changed in each of those files, one edit-file call each."""
    one_per_turn: bool = False
    """Read one file per turn (long explorations) instead of all at once."""


SHAPES = {
    "scout": Shape(
        "scout-heavy", "Find the module whose limit is too low; raise it to 20.", read=8, edit=1
    ),
    "edit": Shape(
        "edit-heavy",
        "Raise every LIMIT to 20 in mod0.py, mod1.py and mod2.py.",
        read=3,
        edit=3,
        changes=4,
    ),
    "mixed": Shape("mixed", "Raise LIMIT to 20 where the service scales values.", read=5, edit=3),
    "long": Shape(
        "long",
        "Raise every LIMIT to 20 across the service's modules.",
        read=14,
        edit=10,
        changes=2,
        one_per_turn=True,
    ),
    "ask": Shape("question", "What do the helpers in mod0.py, mod1.py and mod2.py return?", 3, 0),
    "eleven": Shape(
        "eleven-reads",
        "Raise LIMIT to 20 in the modules the service scales with.",
        read=11,
        edit=5,
        changes=2,
        one_per_turn=True,
    ),
}
"""`eleven` was added after ESCALATE_AT was chosen on the others, to check it on a shape it
was not set with (between scout-heavy's 8 reads and long's 14)."""
LINES = (31, 71, 111, 151)
"""Where the lines to change are (1-based), at most four per file."""


def module(i: int) -> str:
    """About 1,700 tokens of plausible Python with four marked lines to change."""
    lines = [f'"""Module {i}: helpers for part {i} of the service."""', ""]
    for k in range(46):
        lines += [
            f"def helper_{i}_{k}(value: int, scale: int = {k + 1}) -> int:",
            f"    # step {k}: scale the value and add the part number",
            f"    return value * scale + {i}",
            "",
        ]
    for c, at in enumerate(LINES):
        lines.insert(at - 1, f"LIMIT_{i}_{c} = 10")
    return "\n".join(lines) + "\n"


def files(shape: Shape) -> list[str]:
    return [f"mod{i}.py" for i in range(shape.read)]


def edited(shape: Shape) -> list[str]:
    return files(shape)[: shape.edit]


def change(path: str, c: int) -> tuple[str, str]:
    i = int(re.sub(r"\D", "", path))
    return f"LIMIT_{i}_{c} = 10", f"LIMIT_{i}_{c} = 20"


NOTE = (
    "{path}: 46 helpers helper_N_K(value, scale) return value*scale+N; "
    "LIMIT_N_0..3 = 10 at lines 31, 71, 111, 151."
)


# ---------------------------------------------------------------------------------------------
# The scripted model: one policy per role, driven by the conversation it is given


def step(body: dict[str, Any]) -> int:
    return sum(1 for m in body["messages"] if m["role"] == "assistant")


def first_user(body: dict[str, Any]) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def named_files(message: str) -> list[str]:
    """The files a delegate's task names (not those the memo index lists after it)."""
    task = re.split(r"Notes for this task|[Ss]hared memo|\[requirements\]", message)[0]
    return list(dict.fromkeys(re.findall(r"mod\d+\.py", task)))


def reads(paths: list[str], *, around: int = 0) -> list[Any]:
    """read-file calls: whole files, or only a few lines around each of `around` changes."""
    if not around:
        return [call("read-file", {"path": p}) for p in paths]
    return [
        call("read-file", {"path": p, "offset": LINES[c] - 2, "limit": 5})
        for p in paths
        for c in range(around)
    ]


def edits(shape: Shape, paths: list[str]) -> list[Reply]:
    """One edit-file turn per changed line."""
    turns = []
    for path in paths:
        for c in range(shape.changes):
            old, new = change(path, c)
            turns.append(
                tool_calls(
                    [call("edit-file", {"path": path, "old_string": old, "new_string": new})]
                )
            )
    return turns


def notes(paths: list[str]) -> list[Any]:
    return [
        call(
            "memo",
            {
                "action": "write",
                "key": f"file:{p}",
                "content": NOTE.format(path=p),
                "summary": f"{p}: helpers, LIMIT at line 31",
            },
        )
        for p in paths
    ]


def summaries(paths: list[str]) -> list[Any]:
    return [
        call(
            "memo",
            {
                "action": "write",
                "key": f"file:{p}",
                "content": f"{p}: LIMIT raised to 20",
                "summary": "LIMIT raised to 20",
            },
        )
        for p in paths
    ]


class Script:
    """The fake server's script: the role comes from the model name each role is given."""

    def __init__(self, shape: Shape, mode: str, scouts: bool) -> None:
        self.shape, self.mode, self.scouts = shape, mode, scouts

    def __call__(self, body: dict[str, Any]) -> Reply:
        last = body["messages"][-1]
        if last["role"] == "user" and str(last["content"]).startswith(COMPACT):
            return self.summary(body)
        return getattr(self, role_of(body))(body, step(body))

    def summary(self, body: dict[str, Any]) -> Reply:
        """A compaction's answer (here: a direct run handed over): the task's state and a
        note per file read."""
        read = [
            json.loads(c["function"]["arguments"])["path"]
            for m in body["messages"]
            for c in m.get("tool_calls") or ()
            if c["function"]["name"] == "read-file"
        ]
        sections = [
            f"## task:goal\n{self.shape.task}",
            f"## task:constraints\n{self.shape.task}",
            "## task:done\nRead " + ", ".join(read),
            "## task:next\nChange each LIMIT line to 20.",
            *(f"## file:{p}\n{NOTE.format(path=p)}" for p in dict.fromkeys(read)),
        ]
        return text("\n".join(sections))

    def _explore_then(self, n: int, done: list[Reply]) -> Reply:
        """Read the task's files (all at once, or one per turn), then the rest of the plan."""
        want = files(self.shape)[: self.shape.read]
        if self.shape.one_per_turn:
            plan: list[Reply] = [tool_calls(reads([p])) for p in want]
        else:
            plan = [tool_calls(reads(want))]
        plan += done
        return plan[min(n, len(plan) - 1)]

    def main(self, body: dict[str, Any], n: int) -> Reply:
        return self._explore_then(
            n, [*edits(self.shape, edited(self.shape)), text("Raised every LIMIT to 20.")]
        )

    def orchestrator(self, body: dict[str, Any], n: int) -> Reply:
        """zen's triage line (in its first message) picks the path, as a model follows it."""
        first = first_user(body)
        if any(ESCALATED in str(m["content"]) for m in body["messages"] if m["role"] == "user"):
            noted = set(re.findall(r"file:(mod\d+\.py)", first))  # the restart's memo index
            return self._plan(n - 1, skip=noted)  # n - 1: the restart's acknowledgement
        if "triage: a question" in first:
            return self._explore_then(n, [text("Each helper returns value * scale + N.")])
        if "sent to the Coder at once" in first:  # controlled: apply the Coder's code
            targets = edited(self.shape)
            plan = [tool_calls(reads(targets)), *edits(self.shape, targets), text("Applied.")]
            return plan[min(n - 1, len(plan) - 1)]  # n - 1: zen made the first call
        return self._plan(n)

    def _plan(self, n: int, skip: set[str] | None = None) -> Reply:
        """Gather (scouts, or the Orchestrator's own reads), plan, delegate, verify; `skip`:
        files the memo already has notes of."""
        targets = edited(self.shape)
        task = (
            f"[goal] raise LIMIT to 20 [files] {' '.join(targets)} "
            "[requirements] only the LIMIT line [refs] plan:limits"
        )
        plan = call(
            "memo",
            {
                "action": "write",
                "key": "plan:limits",
                "content": "Change LIMIT_N = 10 to LIMIT_N = 20 (line 31) in " + ", ".join(targets),
                "summary": "raise LIMIT to 20",
            },
        )
        delegate = [tool_calls([plan, call("send-to-coder", {"task": task})])]
        if self.mode == "controlled":  # the Coder answers with code; the Orchestrator applies it
            around = self.shape.changes if self.scouts else 0
            own_reads = [tool_calls(reads(targets, around=around))] if self.scouts else []
            delegate += own_reads + edits(self.shape, targets)
        delegate.append(text("Raised every LIMIT to 20."))
        if self.scouts:
            want = [p for p in files(self.shape)[: self.shape.read] if p not in (skip or ())]
            if not want:
                return delegate[min(n, len(delegate) - 1)]
            groups = [want[i : i + 4] for i in range(0, len(want), 4)]
            spawn = call(
                "spawn-agents",
                {
                    "tasks": [
                        {
                            "description": f"scout {k}",
                            "prompt": "Note the structure and LIMIT line of " + " ".join(g),
                        }
                        for k, g in enumerate(groups)
                    ]
                },
            )
            return ([tool_calls([spawn]), *delegate])[min(n, len(delegate))]
        return self._explore_then(
            n, [tool_calls(notes(files(self.shape)[: self.shape.read])), *delegate]
        )

    def scout(self, body: dict[str, Any], n: int) -> Reply:
        mine = named_files(first_user(body))
        plan = [
            tool_calls(reads(mine)),
            tool_calls(notes(mine)),
            text(f"Notes written for {', '.join(mine)}."),
        ]
        return plan[min(n, len(plan) - 1)]

    def coder(self, body: dict[str, Any], n: int) -> Reply:
        first = first_user(body)
        targets = named_files(first)
        if self.mode == "controlled":
            return text(
                "\n".join(
                    f"{p}: {change(p, c)[1]}" for p in targets for c in range(self.shape.changes)
                )
            )
        noted = self.scouts and "[file:" in first  # no notes (small path): whole files
        around = self.shape.changes if noted else 0
        plan = [
            tool_calls(reads(targets, around=around)),
            *edits(self.shape, targets),
            tool_calls(summaries(targets)),
            text("Raised LIMIT to 20 in every file."),
        ]
        return plan[min(n, len(plan) - 1)]

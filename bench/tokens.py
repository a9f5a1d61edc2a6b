"""What a task costs in prompt tokens, single mode against dual mode, counted at the server.

One scripted task shape is run through zen's real session against the loopback fake server in
single mode and in each dual collaboration mode. The model's decisions are fixed by a script
(which files to read, which lines to change), so only zen's structure differs between modes.
Every request the server receives is measured:

- prompt tokens: the request's messages and tool schemas as compact JSON, 4 characters a token;
- cached: the part of a request that repeats the previous request of the same conversation
  byte for byte (what DeepSeek, OpenAI and Anthropic serve from their prefix cache);
- output tokens: the scripted replies, 4 characters a token.

Cost = uncached x input price + cached x cache ratio x input price + output x output price,
each multiplied by the role's price factor (`--cheap` for scouts and the Coder). Prices are
relative (input = 1 unit per token, output = 4): only ratios are reported.

    python -m bench.tokens [--json] [--shapes scout,edit,mixed,long]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fakes.server import FakeLLM, Reply, call, text, tool_calls
from zen.agent.session import Session
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace

CHARS_PER_TOKEN = 4
OUTPUT_PRICE = 4.0
MODELS = {"main": "m-main", "orchestrator": "m-orch", "coder": "m-coder", "scout": "m-scout"}
ROLE_OF = {v: k for k, v in MODELS.items()}
MODES = ("single", "delegated", "autonomous", "controlled")


# ---------------------------------------------------------------------------------------------
# Task shapes


@dataclass(frozen=True)
class Shape:
    name: str
    read: int
    """Files read to understand the task (the first `edit` of them are changed)."""
    edit: int
    """Files that change."""
    changes: int = 1
    """Lines changed in each of those files, one edit-file call each."""
    one_per_turn: bool = False
    """Read one file per turn (long explorations) instead of all at once."""


SHAPES = {
    "scout": Shape("scout-heavy", read=8, edit=1),
    "edit": Shape("edit-heavy", read=3, edit=3, changes=4),
    "mixed": Shape("mixed", read=5, edit=3),
    "long": Shape("long", read=14, edit=10, changes=2, one_per_turn=True),
}
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
        role = ROLE_OF[body["model"]]
        return getattr(self, role)(body, step(body))

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
            want = files(self.shape)[: self.shape.read]
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
        targets = named_files(first_user(body))
        if self.mode == "controlled":
            return text(
                "\n".join(
                    f"{p}: {change(p, c)[1]}" for p in targets for c in range(self.shape.changes)
                )
            )
        around = self.shape.changes if self.scouts else 0
        plan = [
            tool_calls(reads(targets, around=around)),
            *edits(self.shape, targets),
            tool_calls(summaries(targets)),
            text("Raised LIMIT to 20 in every file."),
        ]
        return plan[min(n, len(plan) - 1)]


# ---------------------------------------------------------------------------------------------
# Counting


@dataclass
class Tally:
    uncached: int = 0
    cached: int = 0
    output: int = 0
    requests: int = 0

    @property
    def prompt(self) -> int:
        return self.uncached + self.cached


@dataclass
class Counter:
    roles: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    last: dict[str, str] = field(default_factory=dict)
    stub: bool = False
    """Count as if a file's raw read output were replaced by a stub once its note is written."""

    def request(self, body: dict[str, Any]) -> None:
        messages = stubbed(body["messages"]) if self.stub else body["messages"]
        sent = json.dumps(
            {"tools": body.get("tools", []), "messages": messages},
            separators=(",", ":"),
            ensure_ascii=False,
        )
        conversation = json.dumps([body["model"], body["messages"][:2]])
        previous = self.last.get(conversation, "")
        common = len(os.path.commonprefix([previous, sent]))
        self.last[conversation] = sent
        tally = self.roles[ROLE_OF[body["model"]]]
        tally.cached += common // CHARS_PER_TOKEN
        tally.uncached += (len(sent) - common) // CHARS_PER_TOKEN
        tally.requests += 1

    def reply(self, body: dict[str, Any], reply: Reply) -> None:
        size = len(getattr(reply, "content", None) or "")
        for c in getattr(reply, "calls", []):
            size += len(c.name) + len(c.arguments)
        self.roles[ROLE_OF[body["model"]]].output += size // CHARS_PER_TOKEN


def stubbed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with each read-file result whose file has a `file:*` note written later
    replaced by a one-line stub naming the note (issue 18's item 4, measured, not built)."""
    calls = {
        c["id"]: json.loads(c["function"]["arguments"]) | {"tool": c["function"]["name"]}
        for m in messages
        for c in m.get("tool_calls") or []
    }
    noted = {
        args["key"][len("file:") :]
        for args in calls.values()
        if args["tool"] == "memo" and str(args.get("key", "")).startswith("file:")
    }
    out = []
    for m in messages:
        args = calls.get(m.get("tool_call_id", ""), {})
        if args.get("tool") == "read-file" and args.get("path") in noted:
            m = {**m, "content": f"[read-file {args['path']}: see memo file:{args['path']}]"}
        out.append(m)
    return out


def cost(roles: dict[str, Tally], cache: float, cheap: float) -> float:
    total = 0.0
    for role, t in roles.items():
        factor = cheap if role in ("coder", "scout") else 1.0
        total += factor * (t.uncached + cache * t.cached + OUTPUT_PRICE * t.output)
    return total


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


async def run(shape: Shape, mode: str, scouts: bool, stub: bool = False) -> dict[str, Tally]:
    counter = Counter(stub=stub)
    script = Script(shape, mode, scouts)

    def counted(body: dict[str, Any]) -> Reply:
        counter.request(body)
        reply = script(body)
        counter.reply(body, reply)
        return reply

    with tempfile.TemporaryDirectory() as tmp, FakeLLM(counted) as fake:
        root = Path(tmp)
        for path in files(shape):
            (root / path).write_text(module(int(re.sub(r"\D", "", path))))
        dual = mode != "single"
        config = Config(
            model=MODELS["orchestrator" if dual else "main"],
            base_url=fake.base_url,
            api_key="bench",
            agent_mode="dual" if dual else "single",
            collaboration=mode if dual else "delegated",
            dual_agent={
                "coder": {"model": MODELS["coder"]},
                **({"scout": {"model": MODELS["scout"]}} if scouts else {}),
            },
        )
        session = Session(config, Workspace(root))
        await session.run("Raise every LIMIT to 20 in the modules.", lambda e: None, yes)
        await session.aclose()
        for path in edited(shape):
            for c in range(shape.changes):
                assert change(path, c)[1] in (root / path).read_text(), f"{mode}: {path} unchanged"
    return dict(counter.roles)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object per line")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--cache", type=float, default=0.1, help="cached input price ratio")
    parser.add_argument(
        "--scouts",
        default="on,off",
        help="dual mode with scouts (on), with the Orchestrator reading (off)",
    )
    parser.add_argument(
        "--cheap",
        type=float,
        default=0.25,
        help="price factor of scouts and Coder in the cheap pairing",
    )
    args = parser.parse_args()
    args.scouts = [x == "on" for x in args.scouts.split(",")]
    pricings = [("one model", 1.0), (f"cheap x{args.cheap:g}", args.cheap)]
    if not args.json:
        print(
            f"{'shape':<12} {'mode':<20} {'prompt':>8} {'cached':>8} {'output':>7} "
            + " ".join(f"{name:>14}" for name, _ in pricings)
        )
    for key in args.shapes.split(","):
        shape = SHAPES[key]
        single = await run(shape, "single", scouts=False)
        for mode, scouts in [("single", False)] + [(m, s) for m in MODES[1:] for s in args.scouts]:
            roles = single if mode == "single" else await run(shape, mode, scouts=scouts)
            label = mode if mode == "single" else f"{mode}{'+scouts' if scouts else ''}"
            tokens = {r: vars(t) for r, t in roles.items()}
            prompt = sum(t.prompt for t in roles.values())
            cached = sum(t.cached for t in roles.values())
            output = sum(t.output for t in roles.values())
            ratios = [
                cost(roles, args.cache, f) / cost(single, args.cache, 1.0) for _, f in pricings
            ]
            if args.json:
                for (name, factor), ratio in zip(pricings, ratios, strict=True):
                    print(
                        json.dumps(
                            {
                                "shape": shape.name,
                                "mode": label,
                                "prices": name,
                                "tokens": tokens,
                                "cost": cost(roles, args.cache, factor),
                                "ratio_to_single": round(ratio, 3),
                            }
                        )
                    )
            else:
                print(
                    f"{shape.name:<12} {label:<20} {prompt:>8,} {cached:>8,} {output:>7,} "
                    + " ".join(f"{r:>13.2f}x" for r in ratios)
                )


if __name__ == "__main__":
    asyncio.run(main())

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

    python -m dev.bench.tokens [--json] [--shapes scout,edit,mixed,long]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from dev.bench.token_script import (
    MODELS,
    ONE_MODEL,
    SHAPES,
    Script,
    Shape,
    change,
    edited,
    files,
    module,
    role_of,
)
from tests.fakes.server import FakeLLM, Reply
from zen.agent.read_stubs import stubbed
from zen.agent.session import Session
from zen.settings.schema import Config
from zen.tools.base import Approval, ApprovalRequest
from zen.tools.workspace import Workspace

CHARS_PER_TOKEN = 4
OUTPUT_PRICE = 4.0
MODES = ("single", "delegated", "autonomous", "controlled")


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
        tally = self.roles[role_of(body)]
        tally.cached += common // CHARS_PER_TOKEN
        tally.uncached += (len(sent) - common) // CHARS_PER_TOKEN
        tally.requests += 1

    def reply(self, body: dict[str, Any], reply: Reply) -> None:
        size = len(getattr(reply, "content", None) or "")
        for c in getattr(reply, "calls", []):
            size += len(c.name) + len(c.arguments)
        self.roles[role_of(body)].output += size // CHARS_PER_TOKEN


def cost(roles: dict[str, Tally], cache: float, cheap: float) -> float:
    total = 0.0
    for role, t in roles.items():
        factor = cheap if role in ("coder", "scout") else 1.0
        total += factor * (t.uncached + cache * t.cached + OUTPUT_PRICE * t.output)
    return total


async def yes(_request: ApprovalRequest) -> Approval:
    return Approval("yes")


@dataclass(frozen=True)
class Variant:
    """A dual configuration: collaboration mode, scouts or the Orchestrator reading, and the
    triage (`large`: the scripted path every task took before triage; `auto`: zen's rule)."""

    mode: str
    scouts: bool
    triage: str = "large"
    one: bool = False
    """Every role on one model (what makes the direct path); else each its own, as priced by
    the cheap column."""

    @property
    def label(self) -> str:
        if self.mode == "single":
            return "single"
        if self.triage == "auto":
            return self.mode + ("+triage, 1 model" if self.one else "+triage")
        return self.mode + "+scouts" * self.scouts

    @property
    def default(self) -> bool:
        """zen's default dual configuration: delegated, scouts, triage auto."""
        return (self.mode, self.scouts, self.triage) == ("delegated", True, "auto")


@dataclass
class Measured:
    roles: dict[str, Tally]
    triage: str | None
    """The path zen's triage chose (None in single mode)."""
    escalated: bool = False


async def run(
    shape: Shape, mode: str, scouts: bool, stub: bool = False, triage: str = "large"
) -> dict[str, Tally]:
    return (await measure(shape, Variant(mode, scouts, triage), stub)).roles


async def measure(shape: Shape, variant: Variant, stub: bool = False) -> Measured:
    counter = Counter(stub=stub)
    mode, scouts = variant.mode, variant.scouts
    script = Script(shape, mode, scouts)

    def counted(body: dict[str, Any]) -> Reply:
        counter.request(body)
        reply = replace(script(body), usage="estimate")  # the server counts what it was sent
        counter.reply(body, reply)
        return reply

    with tempfile.TemporaryDirectory() as tmp, FakeLLM(counted) as fake:
        root = Path(tmp)
        for path in files(shape):
            (root / path).write_text(module(int(re.sub(r"\D", "", path))))
        dual = mode != "single"
        one = variant.one or not dual
        config = Config(
            model=ONE_MODEL if one else MODELS["orchestrator"],
            base_url=fake.base_url,
            api_key="bench",
            agent_mode="dual" if dual else "single",
            collaboration=mode if dual else "delegated",
            triage=variant.triage,  # type: ignore[arg-type]
            dual_agent={}
            if one
            else {
                "coder": {"model": MODELS["coder"]},
                **({"scout": {"model": MODELS["scout"]}} if scouts else {}),
            },
        )
        session = Session(config, Workspace(root))
        await session.run(shape.task, lambda e: None, yes)
        await session.aclose()
        for path in edited(shape):
            for c in range(shape.changes):
                assert change(path, c)[1] in (root / path).read_text(), f"{mode}: {path} unchanged"
    decided = session.triage
    return Measured(
        dict(counter.roles),
        decided.path if decided else None,
        bool(decided and decided.escalated),
    )


def variants(shape: Shape, scouts: list[bool]) -> list[Variant]:
    """The scripted variants (edit shapes only: they change files), then zen's triage."""
    scripted = [Variant(m, s) for m in MODES[1:] for s in scouts] if shape.edit else []
    triaged = [Variant(m, True, "auto", one) for m in MODES[1:] for one in (True, False)]
    return [Variant("single", False), *scripted, *triaged]


def parse() -> argparse.Namespace:
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
    parser.add_argument(
        "--stub", action="store_true", help="count raw reads as stubs once their note exists"
    )
    args = parser.parse_args()
    args.scouts = [x == "on" for x in args.scouts.split(",")]
    return args


async def main() -> None:
    args = parse()
    pricings = [("one model", 1.0), (f"cheap x{args.cheap:g}", args.cheap)]
    if not args.json:
        print(
            f"{'shape':<12} {'mode':<26} {'triage':<13}{'prompt':>8} {'cached':>8} {'output':>7} "
            + " ".join(f"{name:>14}" for name, _ in pricings)
        )
    for key in args.shapes.split(","):
        shape = SHAPES[key]
        single = (await measure(shape, Variant("single", False), args.stub)).roles
        for variant in variants(shape, args.scouts):
            got = await measure(shape, variant, args.stub)
            roles = got.roles
            ratios: list[float | None] = [
                cost(roles, args.cache, f) / cost(single, args.cache, 1.0) for _, f in pricings
            ]
            if variant.one and variant.mode != "single":
                ratios[1] = None  # one model: there is no cheaper one to price
            path = (got.triage or "-") + (" → large" if got.escalated else "")
            if not args.json:
                prompt = sum(t.prompt for t in roles.values())
                cached = sum(t.cached for t in roles.values())
                output = sum(t.output for t in roles.values())
                print(
                    f"{shape.name:<12} {variant.label:<26} {path:<13}{prompt:>8,} "
                    f"{cached:>8,} {output:>7,} "
                    + " ".join(f"{r:>13.2f}x" if r is not None else f"{'-':>14}" for r in ratios)
                )
                continue
            for (name, factor), ratio in zip(pricings, ratios, strict=True):
                if ratio is None:
                    continue
                row = {
                    "shape": shape.name,
                    "mode": variant.label,
                    "triage": got.triage,
                    "triage_escalated": got.escalated,
                    "one_model": variant.one,
                    "default": variant.default,
                    "prices": name,
                    "tokens": {r: vars(t) for r, t in roles.items()},
                    "cost": cost(roles, args.cache, factor),
                    "ratio_to_single": round(ratio, 3),
                }
                print(json.dumps(row))


if __name__ == "__main__":
    asyncio.run(main())

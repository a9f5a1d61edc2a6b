"""CPU to read a hostile text-protocol answer for edit blocks, per shape (issue 35).

    python dev/bench/edit_blocks.py [BYTES ...]

Each shape is one the parser used to rescan the answer for (unclosed fences, `<file path>`
echoes never closed, fences wrapping markers) or a pattern used to backtrack on (a long fence
line, blank lines, spaces). Measures what the protocol runs on an answer: `parse`, then
`lone_fence`, then the check for code (`tried`). Default sizes: 250,000 and 1,000,000 bytes
(the protocol's cap, `MAX_ANSWER`); the time should grow with the size, not its square.
Before issue 35, 79 KB of unclosed fences took 40 s and 1 MB hours. The first line times a
fixed loop, to tell a loaded machine (an idle core takes about 15 ms).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.test_text_hostile import SHAPES as BROKEN  # noqa: E402
from zen.agent.protocols.block_parser import lone_fence, parse  # noqa: E402
from zen.agent.protocols.edit_blocks import MAX_ANSWER, tried  # noqa: E402

SHAPES = {**BROKEN, "bare fences": lambda n: "```\n" * (n // 4)}
"""The shapes that were quadratic, and the new parser's slowest per byte (many tiny blocks)."""


def cpu(answer: str) -> float:
    best = 1e9
    for _ in range(3):
        start = time.process_time()
        parse(answer, frozenset({"a.py"}))
        lone_fence(answer)
        tried(answer)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    sizes = [int(a) for a in sys.argv[1:]] or [250_000, MAX_ANSWER]
    start = time.process_time()
    sum(range(10**6))
    print(f"this machine: sum(range(10**6)) in {(time.process_time() - start) * 1000:.0f} ms")
    print("| shape | " + " | ".join(f"{n:,} bytes" for n in sizes) + " |")
    print("|---|" + "---:|" * len(sizes))
    for name, make in SHAPES.items():
        times = [cpu(make(n)) for n in sizes]
        print(f"| {name} | " + " | ".join(f"{t:.2f} s" for t in times) + " |")


if __name__ == "__main__":
    main()

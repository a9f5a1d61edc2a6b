"""CPU to read one long streamed answer: 20,000 words in 4-character SSE chunks.

    python dev/bench/stream_parse.py [CHECKOUT]

Measures ChatClient.stream (and the fake server, which runs in this process) against the
checkout given (default: this one), so two versions can be compared on one machine.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
root = sys.argv[1] if len(sys.argv) > 1 else str(HERE)
sys.path.insert(0, root)
sys.path.insert(1, str(HERE))  # the fake server

from tests.fakes.server import FakeLLM, long_markdown, text  # noqa: E402
from zen.base.events import ignore  # noqa: E402
from zen.llm.client import ChatClient  # noqa: E402
from zen.settings.schema import ModelSettings  # noqa: E402

answer = long_markdown(20_000)


async def main() -> None:
    with FakeLLM([text(answer, chunk=4)] * 3) as fake:
        c = ChatClient(ModelSettings(model="m", base_url=fake.base_url))
        best = 1e9
        for _ in range(3):
            t0 = time.process_time()
            turn = await c.stream([{"role": "user", "content": "x"}], [], ignore, "main")
            best = min(best, time.process_time() - t0)
            assert turn.content == answer
        print(f"{root}: {len(answer) // 4} chunks, best CPU {best:.2f} s")


asyncio.run(main())

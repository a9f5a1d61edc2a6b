"""CPU cost of rendering a streamed markdown answer in the shell's log view.

The answer (tests/fakes/server.py `long_markdown`) is cut into 4-character deltas, as the fake
server streams it, and fed as TextDelta events to zen.ui.render.LogRenderer writing to a
terminal-like sink (a StringIO rich Console with force_terminal, 120 columns, truecolor).
Baselines on the same deltas and sink:

- floor: `sink.write(delta)` + flush per delta (bytes out, nothing else);
- raw via rich: `console.print(delta, end="")` per delta (printing the stream raw through rich);
- plain log: LogRenderer without styles (what NO_COLOR / TERM=dumb get): live line + lines;
- one render: rich Markdown of the *finished* answer, once (the least any rich-rendered
  markdown can cost; it shows nothing while the answer streams).

`--end-to-end` adds the whole path a user pays for: the fake server streams the answer over
loopback HTTP in 4-character SSE chunks, zen's ChatClient (openai SDK) parses it, and the
events go either to a raw printer (each TextDelta written as is) or to the markdown log. CPU
is the main thread's (`time.thread_time()`), so the server thread is not counted.

Run: `python dev/bench/render.py [--repeat N] [--end-to-end]` from the repository root. CPU time
is `time.process_time()`, best of N.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fakes.server import FakeLLM, long_markdown, text  # noqa: E402
from zen.base import events as ev  # noqa: E402
from zen.ui.render import LogRenderer  # noqa: E402
from zen.ui.term import Caps, make_console  # noqa: E402

WIDTH = 120
CHUNK = 4
STYLED = Caps(styled=True, live=True, vt=True)
PLAIN = Caps(styled=False, live=True, vt=True)


def deltas(words: int) -> tuple[str, list[str]]:
    text = long_markdown(words)
    return text, [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def floor(chunks: list[str]) -> int:
    sink = io.StringIO()
    for chunk in chunks:
        sink.write(chunk)
        sink.flush()
    return len(sink.getvalue())


def raw_rich(chunks: list[str]) -> int:
    sink = io.StringIO()
    console = make_console(STYLED, file=sink, width=WIDTH)
    for chunk in chunks:
        console.print(chunk, end="")
    return len(sink.getvalue())


def log(caps: Caps) -> Callable[[list[str]], int]:
    def run(chunks: list[str]) -> int:
        sink = io.StringIO()
        renderer = LogRenderer(make_console(caps, file=sink, width=WIDTH), caps)
        renderer(ev.TurnStarted(agent="main", turn=1))
        for chunk in chunks:
            renderer(ev.TextDelta(agent="main", text=chunk))
        renderer(ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0))
        renderer.end_run()
        return len(sink.getvalue())

    return run


def one_render(text: str) -> Callable[[list[str]], int]:
    def run(_chunks: list[str]) -> int:
        from rich.markdown import Markdown

        sink = io.StringIO()
        make_console(STYLED, file=sink, width=WIDTH).print(Markdown(text))
        return len(sink.getvalue())

    return run


def best(fn: Callable[[list[str]], int], chunks: list[str], repeat: int) -> tuple[float, int]:
    times = []
    size = 0
    for _ in range(repeat):
        start = time.process_time()
        size = fn(chunks)
        times.append(time.process_time() - start)
    return min(times), size


class RawPrinter:
    """The stream printed raw: each text delta written to the sink as it arrives."""

    def __init__(self, sink: io.StringIO) -> None:
        self.sink = sink

    def __call__(self, event: ev.Event) -> None:
        if isinstance(event, ev.TextDelta):
            self.sink.write(event.text)
            self.sink.flush()


def end_to_end(words: int, repeat: int) -> dict[str, float]:
    """Main-thread CPU of streaming the answer from the fake server through ChatClient."""
    from zen.llm.client import ChatClient
    from zen.settings.schema import ModelSettings

    answer = long_markdown(words)

    async def once(emit: ev.Emit, base_url: str) -> float:
        client = ChatClient(ModelSettings(model="fake", base_url=base_url, api_key="k"), retries=0)
        try:
            start = time.thread_time()
            turn = await client.stream([{"role": "user", "content": "go"}], [], emit, "main")
            spent = time.thread_time() - start
        finally:
            await client.aclose()
        assert turn.content == answer
        return spent

    def sinks() -> dict[str, Callable[[], ev.Emit]]:
        def markdown() -> ev.Emit:
            renderer = LogRenderer(make_console(STYLED, file=io.StringIO(), width=WIDTH), STYLED)
            renderer(ev.TurnStarted(agent="main", turn=1))
            return renderer

        return {"raw print": lambda: RawPrinter(io.StringIO()), "markdown log": markdown}

    best_of: dict[str, float] = {}
    with FakeLLM(lambda body: text(answer, chunk=CHUNK)) as fake:
        for name, make in sinks().items():
            best_of[name] = min(asyncio.run(once(make(), fake.base_url)) for _ in range(repeat))
    return best_of


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--words", type=int, nargs="*", default=[10_000, 20_000])
    parser.add_argument(
        "--end-to-end",
        action="store_true",
        help="also stream from the fake server through the real client",
    )
    args = parser.parse_args()

    # warm up: imports (rich.markdown, pygments lexers) are not part of the per-answer cost
    text, chunks = deltas(500)
    for fn in (raw_rich, log(STYLED), log(PLAIN), one_render(text)):
        fn(chunks)

    rows = []
    for words in args.words:
        text, chunks = deltas(words)
        cases = {
            "floor": floor,
            "raw via rich": raw_rich,
            "plain log": log(PLAIN),
            "markdown log": log(STYLED),
            "one render": one_render(text),
        }
        results = {name: best(fn, chunks, args.repeat) for name, fn in cases.items()}
        rows.append((words, len(text), len(chunks), results))

    names = list(rows[0][3])
    print(f"{'words':>7} {'chars':>8} {'deltas':>7} " + " ".join(f"{n:>13}" for n in names))
    for words, chars, n, results in rows:
        cells = " ".join(f"{results[name][0] * 1000:>10.1f} ms" for name in names)
        print(f"{words:>7} {chars:>8} {n:>7} {cells}")
    print()
    for words, _chars, _n, results in rows:
        md = results["markdown log"][0]
        print(
            f"{words:>6} words: markdown log = {md / results['raw via rich'][0]:.2f}x raw via "
            f"rich, {md / results['one render'][0]:.2f}x one render, "
            f"{md / results['plain log'][0]:.1f}x plain log, {md / results['floor'][0]:.0f}x floor"
        )
    if len(rows) >= 2:
        (w1, *_, r1), (w2, *_, r2) = rows[0], rows[-1]
        growth = r2["markdown log"][0] / r1["markdown log"][0]
        print(f"linearity: {w2 / w1:.1f}x the words -> {growth:.2f}x the markdown log time")
    if args.end_to_end:
        print()
        print("end to end (fake server -> ChatClient -> sink), main-thread CPU:")
        for words in args.words:
            e2e = end_to_end(words, args.repeat)
            raw, md = e2e["raw print"], e2e["markdown log"]
            print(
                f"{words:>7} words: raw print {raw * 1000:.0f} ms, markdown log "
                f"{md * 1000:.0f} ms = {md / raw:.2f}x raw"
            )


if __name__ == "__main__":
    main()

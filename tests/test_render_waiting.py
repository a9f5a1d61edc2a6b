"""Long waits on the shell's live line: said while they last, gone when the answer comes."""

from __future__ import annotations

from tests.test_render import STYLED, feed, renderer, screen
from zen.base import events as ev
from zen.ui.format import status_line, tokens


def test_waiting_shows_on_the_live_line_and_leaves_no_trace() -> None:
    r, sink = renderer(STYLED, width=100, interval=0)
    feed(
        r,
        [
            ev.TurnStarted(agent="main", turn=1),
            ev.Waiting(agent="main", what="the model's first token", elapsed=2.0, limit=300),
            ev.Waiting(agent="main", what="the model's first token", elapsed=12.4, limit=300),
        ],
    )
    lines, _ = screen(sink.getvalue(), cols=100)
    assert lines == ["main › waiting for the model's first token: 12s (gives up at 300s)"]
    feed(r, [ev.Waiting(agent="main", what="retry", elapsed=3.0, limit=8.0)])
    assert screen(sink.getvalue(), cols=100)[0] == ["main › retrying in 5s"]
    feed(
        r,
        [
            ev.TextDelta(agent="main", text="Here it is.\n\n"),
            ev.TurnEnded(agent="main", turn=1, text="", tool_calls=0),
        ],
    )
    r.end_run()
    assert screen(sink.getvalue(), cols=100, rows=20)[0] == ["Here it is."]


def test_estimated_tokens_are_marked() -> None:
    assert (tokens(1234, estimated=True), tokens(950, True), tokens(950)) == (
        "~1.2k",
        "~950",
        "950",
    )
    line = status_line({"main": (1234, 56, 0), "coder": (2000, 10, 0)}, 1.0, {"main"})
    assert line == "main ~1.2k in / ~56 out · coder 2.0k in / 10 out · 1.0s"

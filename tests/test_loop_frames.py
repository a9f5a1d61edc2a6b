"""From `zen -p` to the first request, a task's path is short enough to read: a profiler sees
the frames on the stack when the model client is first called.

Counted from the one-shot front end (`run_oneshot`) to `ChatClient.stream`: the CLI's frames
above it (argv, config, signals) are the same for every front end. mini-swe-agent's path is
run -> step -> query; zen's is run_oneshot -> Session.run -> Agent.run -> _step -> _query ->
ChatClient.stream.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

import zen
from tests.fakes.server import FakeLLM, text
from zen.cli.entry import main

ZEN = str(Path(zen.__file__).resolve().parent)
LIMIT = 6


def frames_to_first_request(argv: list[str]) -> list[str]:
    """The zen frames on the stack when `ChatClient.stream` is first entered, outermost first."""
    seen: list[list[str]] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event != "call" or seen or code.co_name != "stream":
            return
        if not code.co_filename.endswith(("llm/client.py", "llm\\client.py")):
            return
        names = []
        at: FrameType | None = frame
        while at is not None:
            if at.f_code.co_filename.startswith(ZEN):
                names.append(
                    at.f_code.co_qualname if sys.version_info >= (3, 11) else at.f_code.co_name
                )
            at = at.f_back
        seen.append(names[::-1])

    sys.setprofile(profile)
    try:
        assert main(argv) == 0
    finally:
        sys.setprofile(None)
    assert seen, "no request was made"
    return seen[0]


@pytest.mark.parametrize("mode", ["--single", "--dual"])
def test_at_most_six_frames_from_zen_p_to_the_first_request(
    mode: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    with FakeLLM([text("ok")]) as fake:
        stack = frames_to_first_request(
            [
                "-p",
                "hi",
                "-C",
                str(tmp_path),
                "--base-url",
                fake.base_url,
                "--api-key",
                "k",
                "--model",
                "m",
                mode,
                "--output-format",
                "json",
            ]
        )
    path = stack[stack.index("run_oneshot") :]
    assert path[-1].endswith("stream")
    assert len(path) <= LIMIT, " -> ".join(path)

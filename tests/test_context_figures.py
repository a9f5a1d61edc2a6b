"""The shell's three context figures (the status line, `/usage`, `/context`) are one count,
through a pty: after one exchange they agree, and `/context` neither counts tool schemas the
server dropped nor shows the conversation as 0."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import text

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(out: str) -> str:
    return ESCAPES.sub("", out)


def figure(pattern: str, out: str) -> str:
    found = re.search(pattern, plain(out))
    assert found, plain(out)
    return found.group(1)


@pytest.mark.parametrize(
    ("usage", "tools_counted"),
    [
        ((312, 14), False),  # fewer prompt tokens than the schemas alone: the server dropped them
        ((900, 14), True),  # the schemas arrived; zen's estimates (bytes / 4) erred high
    ],
)
def test_three_figures_agree_after_one_exchange(
    fake_llm: Any, project: Path, home: Path, usage: tuple[int, int], tools_counted: bool
) -> None:
    from tests.test_shell_pty import Zen

    used = str(sum(usage))
    fake = fake_llm([text("hello there", usage=usage)], context_window=32_000)
    zen = Zen(fake, project, home)
    try:
        status = figure(r"· context ([\d.k]+)/32\.0k", zen.task("hi"))
        in_usage = figure(r"context: ([\d.k]+) of 32\.0k \(", zen.task("/usage"))
        shown = plain(zen.task("/context"))
        in_context = figure(r"context: ~?([\d.k]+) of 32\.0k tokens", shown)
        assert (status, in_usage, in_context) == (used, used, used)
        tools = int(figure(r"tool schemas\s+(\d+)", shown))
        conversation = int(figure(r"conversation\s+(\d+)", shown))
        assert (tools > 0) == tools_counted, shown
        assert conversation > 0, shown
        assert zen.exit() == 0
    finally:
        zen.close()

"""dev/bench/ceiling.py counts what any stored run solved, task by task (issue 38's figures)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dev.bench import ceiling


def rows(path: Path, solved: dict[str, list[bool]]) -> Path:
    listed = [{"task": t, "solved": s} for t, runs in solved.items() for s in runs]
    path.write_text(json.dumps({"system": {}, "rows": listed}), encoding="utf-8")
    return path


def test_the_union_the_never_solved_and_the_expected_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    zen = rows(tmp_path / "zen.json", {"a": [True, False, False], "b": [False] * 3, "c": [True]})
    aider = rows(tmp_path / "aider.json", {"a": [False], "b": [False], "c": [True], "d": [False]})
    ceiling.main([zen, aider, rows(tmp_path / "empty.json", {})])
    out = capsys.readouterr().out
    assert "empty.json" not in out
    assert "a                            solved in   1 of   4 runs" in out
    assert "solved by any run: 2 of 4 tasks" in out
    assert "solved by none: b, d" in out
    assert "solved in at most 15% of their runs: 2 tasks" in out  # b and d; a is 25 %
    assert "summed): 1.2" in out  # a 1/4 + c 2/2


def test_a_task_name_cannot_draw_on_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ceiling.main([rows(tmp_path / "x.json", {"a\x1b]0;owned\x07": [True]})])
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "solved by any run: 1 of 1" in out

"""Where a bench keeps what it measured: every save replaces the files whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zen.bench.results import Results


def test_each_save_replaces_the_output_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A save that rewrote --output in place would leave half a document (or none) when it
    # fails midway, a full disk or a kill, losing the rows a long bench already kept.
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    output = tmp_path / "result.json"
    results = Results({"model": "m"}, str(output))
    results.add({"task": "one"})
    with output.open(encoding="utf-8") as before:  # a reader holding the first document
        results.add({"task": "two"})
        assert [r["task"] for r in json.loads(before.read())["rows"]] == ["one"]
    assert [r["task"] for r in json.loads(output.read_text())["rows"]] == ["one", "two"]
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []

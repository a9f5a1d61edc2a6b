"""docs/benchmarks.md's prompt-size table says what `dev/bench/prompt_size.py` measures (issue 29):
a prompt change that forgets the table fails here, with the rows the script prints."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def script_rows() -> list[tuple[str, ...]]:
    spec = importlib.util.spec_from_file_location("prompt_size", ROOT / "dev/bench/prompt_size.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = []
    for role, mode, system, tools, facts, task, tokens in module.rows():
        total = system + tools + facts + task
        found.append(
            (
                "single agent" if role == "single" else role,
                "–" if mode == "-" else mode,
                *(f"{n:,}" for n in (system, tools, facts, task, total, tokens)),
            )
        )
    return found


def doc_rows() -> list[tuple[str, ...]]:
    text = (ROOT / "docs/benchmarks.md").read_text(encoding="utf-8")
    section = text.split("## Prompt size", 1)[1].split("\n## ", 1)[0]
    table = re.search(r"\| role \| mode \|.*?\n\|[-|: ]+\|\n((?:\|.*\|\n)+)", section)
    assert table, "no prompt-size table under ## Prompt size"
    return [
        tuple(cell.strip() for cell in line.strip().strip("|").split("|"))
        for line in table.group(1).splitlines()
    ]


def test_the_prompt_size_table_matches_the_script() -> None:
    expected = script_rows()
    shown = [row[:3] + (("2",) if row[3] == "–" else row[3:4]) + row[4:] for row in doc_rows()]
    assert shown == expected, "docs/benchmarks.md: run python dev/bench/prompt_size.py and update"

"""An answer that is only the new file in a bare fence, end to end through `zen -p`.

Qwen2.5-Coder-1.5B answers most small edits this way (no path line): the block is applied
when it can only be the one shown file, and stays an answer when it is a quoted snippet.
"""

from __future__ import annotations

import json

from tests.fakes.server import text
from tests.test_text_protocol import CALC, args_for, users
from zen.settings.prompts import load_prompt

CONFIG = '"""Settings."""\n\nTIMEOUT = 30\nRETRIES = 3\nAGENT = "f/1.0"\n'


def test_the_whole_new_file_in_a_bare_fence_is_applied(fake_llm, run_zen, project) -> None:
    (project / "config.py").write_text(CONFIG)
    new = CONFIG.replace("RETRIES = 3", "RETRIES = 5")
    fake = fake_llm([text(f"```python\n{new}```"), text("Retries are now 5.")])
    done = run_zen("-p", "In config.py, set RETRIES to 5.", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "config.py").read_text() == new
    assert users(fake.requests[1])[-1].startswith("[zen] results of your blocks:\n1. config.py:")
    assert done.out.strip() == "Retries are now 5."


def test_a_quoted_snippet_in_a_bare_fence_stays_the_answer(fake_llm, run_zen, project) -> None:
    (project / "calc.py").write_text(CALC)
    (project / "config.py").write_text(CONFIG)
    answers = [
        "mul is:\n```python\ndef mul(a, b):\n    return a * b\n```",  # loses add
        "It reads:\n```\nRETRIES = 3\n```",  # a line, not the file
    ]
    for answer in answers:
        fake = fake_llm([text(answer)])
        done = run_zen("-p", "What do calc.py and config.py hold?", *args_for(fake))
        assert done.code == 0, done.err
        assert len(fake.requests) == 1 and done.out.strip() == answer
    assert (project / "calc.py").read_text() == CALC
    assert (project / "config.py").read_text() == CONFIG


def test_a_bare_fence_two_shown_files_could_be_is_not_guessed(fake_llm, run_zen, project) -> None:
    (project / "a.py").write_text(CONFIG)
    (project / "b.py").write_text(CONFIG)
    new = CONFIG.replace("30", "60")
    fake = fake_llm([text(f"```\n{new}```"), text("Set it in a.py.")])
    done = run_zen("-p", "Set TIMEOUT to 60 in a.py (b.py is its copy).", *args_for(fake))
    assert done.code == 0, done.err
    assert len(fake.requests) == 2  # the fence stood as the answer; then the nudge's turn
    assert users(fake.requests[1])[-1] == load_prompt("nothing-changed")
    assert (project / "a.py").read_text() == CONFIG == (project / "b.py").read_text()


def test_applied_blocks_count_as_calls_from_text(fake_llm, run_zen, project) -> None:
    (project / "config.py").write_text(CONFIG)
    new = CONFIG.replace("RETRIES = 3", "RETRIES = 5")
    fake = fake_llm([text(f"```\n{new}```"), text("Done.")])
    done = run_zen(
        "-p", "In config.py, set RETRIES to 5.", "--yes", "--output-format", "json", *args_for(fake)
    )
    assert done.code == 0, done.err
    assert json.loads(done.out)["tool_calls"] == {"native": 0, "recovered": 1, "malformed": 0}

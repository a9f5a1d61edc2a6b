"""The syntax check after a reply's edits: each kind of file on both sides of the line, the
bound on reports, and the error fed back and fixed, in both protocols, through `zen -p`."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_text_protocol import CALC, args_for, users
from zen.agent.edits.syntax_check import MARK, problem, report


@pytest.mark.parametrize(
    ("name", "good", "bad", "said"),
    [
        ("a.py", "def f():\n    return 1\n", "def f(:\n    return 1\n", "line 1: "),
        ("a.py", "x = 1\n", "x = 1\nreturn x\n", "line 2: 'return' outside function"),
        (
            "a.py",
            "from tax import RATE\n\n\ndef f(n):\n    return n * RATE\n",
            "def f(n):\n    return n * RATE\n",
            "line 2: undefined name 'RATE': `return n * RATE`",
        ),
        (
            "a.py",
            "n = 0\n\n\ndef f():\n    global n\n    n += 1\n",
            "n = 0\n\n\ndef f():\n    n += 1\n    n = 2\n",
            "line 5: local variable 'n'",
        ),
        ("a.json", '{"a": [1, 2]}', '{"a": [1, 2],}', "line 1: "),
        ("a.toml", "[a]\nb = 1\n", "[a]\nb = \n", "line 2"),
        ("a.yaml", "a: [1, 2]\nb: !Ref x\n", "a: [1, 2\nb: 3\n", "line 2: "),
        ("a.yml", "- a\n- b\n", "- a\nb: c\n", "line 2: "),
    ],
)
def test_each_kind_is_checked(name: str, good: str, bad: str, said: str) -> None:
    assert problem(name, good) is None
    found = problem(name, bad)
    assert found is not None and said in found, found


def test_what_is_not_plain_data_is_not_judged() -> None:
    assert problem("tsconfig.json", '{\n  // comments are allowed\n  "a": 1\n}') is None
    assert problem(".vscode/settings.json", "{// x\n}") is None
    assert problem("chart/templates/a.yaml", "a: {{ .Values.x }}\n") is None
    assert problem("notes.md", "def f(:") is None
    assert problem("a.py", "from os import *\n\nprint(sep, __file__, len)\n") is None
    assert problem("a.py", "try:\n    import x\nexcept ImportError:\n    x = None\n") is None
    problem("a.py", "(" * 200_000)  # too deep: an answer or None, never an exception


def test_report_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("x = (\n")
    (tmp_path / "b.json").write_text("{}")
    said = report(tmp_path, ["a.py", "b.json", "gone.py"])
    assert said is not None and said.startswith(MARK) and "- a.py, line 1: " in said
    assert "b.json" not in said and "the last" not in said
    assert "the last" in (report(tmp_path, ["a.py"], last=True) or "")
    (tmp_path / "a.py").write_text("x = ()\n")
    assert report(tmp_path, ["a.py"]) is None


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_an_undefined_name_another_changed_file_defines_comes_with_its_import(
    tmp_path: Path,
) -> None:
    """Qwen2.5-Coder-1.5B moved VAT_RATE to tax.py, forgot the imports, and told only that the
    name was undefined, sent the same files again."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "tax.py").write_text("VAT_RATE: float = 0.2\n")
    (tmp_path / "invoice.py").write_text("def total(n):\n    return n * (1 + VAT_RATE)\n")
    (tmp_path / "quote.py").write_text("def line(n):\n    return n * RATE\n")
    got = report(tmp_path, ["shop/tax.py", "invoice.py", "quote.py"]) or ""
    assert "(shop/tax.py defines it: `from shop.tax import VAT_RATE`)" in got
    assert "undefined name 'RATE'" in got and got.count("defines it") == 1  # none defines RATE
    (tmp_path / "other.py").write_text("VAT_RATE = 0.1\n")  # two define it: no guess
    assert "defines it" not in (report(tmp_path, ["shop/tax.py", "other.py", "invoice.py"]) or "")


def test_a_fifo_in_place_of_a_changed_file_is_not_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "a.py")
    assert report(tmp_path, ["a.py"]) is None


BROKEN = "def add(a, b):\n    return (a - b\n\n\ndef mul(a, b):\n    return a * b\n"
FIXED = CALC.replace("a + b", "a - b")


def test_a_syntax_error_is_fed_back_and_fixed_next_turn_in_edit_blocks(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    first = "calc.py\n<<<<<<< SEARCH\n    return a + b\n=======\n    return (a - b\n>>>>>>> REPLACE"
    second = (
        "calc.py\n<<<<<<< SEARCH\n    return (a - b\n=======\n    return a - b\n>>>>>>> REPLACE"
    )
    fake = fake_llm([text(first), text(second), text("Done.")])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == FIXED
    told = users(fake.requests[1])[-1]
    assert f"{MARK} fix these errors first:\n- calc.py, line 2: " in told
    assert "Fix what failed" in told
    assert MARK not in users(fake.requests[2])[-1]  # fixed: nothing more said


def test_a_syntax_error_is_fed_back_and_fixed_next_turn_with_tools(
    fake_llm, run_zen, project
) -> None:
    (project / "calc.py").write_text(CALC)
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "calc.py"})]),
            tool_calls(
                [call("write-file", {"path": "calc.py", "content": BROKEN, "overwrite": True})]
            ),
            tool_calls(
                [
                    call(
                        "edit-file",
                        {"path": "calc.py", "old_string": "(a - b", "new_string": "a - b"},
                    )
                ]
            ),
            text("Done."),
        ]
    )
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake, "native"))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == FIXED
    told = fake.requests[2]["messages"][-1]
    assert told["role"] == "tool" and f"{MARK} fix these errors first" in told["content"]
    assert "- calc.py, line 2: " in told["content"]
    assert MARK not in fake.requests[3]["messages"][-1]["content"]


def test_a_forgotten_import_is_fed_back_and_fixed_next_turn(fake_llm, run_zen, project) -> None:
    (project / "price.py").write_text("def gross(n):\n    return n * 1.2\n")
    first = (
        "tax.py\n```python\nRATE = 0.2\n```\n\n"
        "price.py\n```python\ndef gross(n):\n    return n * (1 + RATE)\n```"
    )
    fixed = "from tax import RATE\n\n\ndef gross(n):\n    return n * (1 + RATE)\n"
    second = f"price.py\n```python\n{fixed}```"
    fake = fake_llm([text(first), text(second), text("Done.")])
    done = run_zen("-p", "move the rate of price.py to tax.py", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "price.py").read_text() == fixed
    told = users(fake.requests[1])[-1]
    assert "- price.py, line 2: undefined name 'RATE'" in told
    assert MARK not in users(fake.requests[2])[-1]

"""Edits that land when the model meant them, end to end through `zen -p --tool-protocol text`
and the fake server: the answer shapes a small model writes (issue 38), on both sides of each
line."""

from __future__ import annotations

from tests.fakes.server import text
from tests.test_text_protocol import CALC, args_for, users

SHAPES = """class Shape:
    def __init__(self, w, h):
        self.w, self.h = w, h

    @property
    def area(self):
        return 0


def main():
    print(Shape(2, 3).area)


if __name__ == "__main__":
    main()
"""


def test_a_path_inside_the_fence_after_a_stray_divider_is_applied(fake_llm, run_zen, project):
    """The shape Qwen2.5-Coder-1.5B wrote: not applied before."""
    (project / "calc.py").write_text(CALC)
    new = CALC.replace("a + b", "a - b")
    fake = fake_llm([text(f"```python\n=======\ncalc.py\n{new}```"), text("Done.")])
    done = run_zen("-p", "make add in calc.py subtract", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "calc.py").read_text() == new  # no divider, no path line
    assert users(fake.requests[1])[-1].startswith("[zen] results of your blocks:\n1. calc.py: ")


def test_a_divider_the_file_has_is_kept(fake_llm, run_zen, project):
    (project / "index.rst").write_text("=====\nTitle\n=====\n\nOld.\n")
    new = "=====\nTitle\n=====\n\nNew.\n"
    fake = fake_llm([text(f"index.rst\n```rst\n{new}```"), text("Done.")])
    done = run_zen("-p", "In index.rst, say New.", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "index.rst").read_text() == new


def test_a_method_alone_in_a_bare_fence_is_merged_into_its_class(fake_llm, run_zen, project):
    (project / "shapes.py").write_text(SHAPES)
    method = "```python\n@property\ndef area(self):\n    return self.w * self.h\n```"
    fake = fake_llm([text(method), text("area() now multiplies.")])
    done = run_zen("-p", "Fix Shape.area in shapes.py.", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    want = SHAPES.replace("        return 0\n", "        return self.w * self.h\n")
    assert (project / "shapes.py").read_text() == want  # indented, decorator once, rest kept
    assert done.out.strip() == "area() now multiplies."


def test_a_snippet_that_cannot_be_merged_is_refused_and_nothing_written(fake_llm, run_zen, project):
    (project / "shapes.py").write_text(SHAPES + "\n\ndef main():\n    pass\n")
    snippet = "shapes.py\n```python\ndef main():\n    return 1\n```"
    fake = fake_llm([text(snippet), text("I could not."), text("Still not.")])  # then the nudge
    done = run_zen("-p", "Change main in shapes.py.", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "shapes.py").read_text() == SHAPES + "\n\ndef main():\n    pass\n"
    said = users(fake.requests[1])[-1]
    assert "1. Error: the block for shapes.py holds only part of the file and cannot be" in said
    assert "defines main 2 times" in said


def test_a_lazy_placeholder_is_refused_and_dots_are_code(fake_llm, run_zen, project):
    (project / "calc.py").write_text(CALC)
    lazy = "calc.py\n```python\ndef add(a, b):\n    return a - b\n\n# ... rest of code\n```"
    stub = CALC + "\n\nclass Calc:\n    ...\n\n\ndef div(a, b):\n    pass\n"
    fake = fake_llm([text(lazy), text(f"calc.py\n```python\n{stub}```"), text("Done.")])
    done = run_zen("-p", "In calc.py add stubs for Calc and div.", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    refused = users(fake.requests[1])[-1]
    assert (
        "1. Error: the block for calc.py stands for code it leaves out ('# ... rest of" in refused
    )
    assert (project / "calc.py").read_text() == stub


TOML = '[project]\nname = "w"\ndependencies = [\n    "httpx>=0.27",\n]\n\n[tool.x]\ny = 1\n'


def test_a_search_block_without_a_divider_holding_the_new_file_is_applied(
    fake_llm, run_zen, project
):
    """The shape Qwen2.5-Coder-1.5B wrote for pyproject.toml: lost as malformed before."""
    (project / "pyproject.toml").write_text(TOML)
    new = TOML.replace('"httpx>=0.27",\n', '"httpx>=0.27",\n    "rich>=13",\n')
    answer = f"pyproject.toml\n<<<<<<< SEARCH\n{new}>>>>>>> REPLACE\n"
    fake = fake_llm([text(answer), text("Added rich.")])
    done = run_zen("-p", "Add rich to pyproject.toml", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "pyproject.toml").read_text() == new
    assert users(fake.requests[1])[-1].startswith("[zen] results of your blocks:\n1. pyproject")


def test_a_search_block_without_a_divider_that_is_not_the_file_is_refused(
    fake_llm, run_zen, project
):
    (project / "pyproject.toml").write_text(TOML)
    copied = '[project]\nname = "w"\n'  # lines copied from the file, the rest never written
    other = "[tool.x]\ny = 2\n"  # a part of the file only: applied as whole, it would cut
    fake = fake_llm(
        [
            text(f"pyproject.toml\n<<<<<<< SEARCH\n{copied}>>>>>>> REPLACE\n"),
            text(f"pyproject.toml\n<<<<<<< SEARCH\n{other}>>>>>>> REPLACE\n"),
            text("I give up."),
            text("I still give up."),  # after the nudge: nothing changed
        ]
    )
    done = run_zen("-p", "Change pyproject.toml", "--yes", *args_for(fake))
    assert done.code == 0, done.err
    assert (project / "pyproject.toml").read_text() == TOML
    for request in fake.requests[1:3]:
        said = users(request)[-1]
        assert "block for pyproject.toml has no ======= line" in said

"""Snippet merge for Python, lazy placeholders and the stray divider: each shape a small model
answers with, on both sides of each line."""

from __future__ import annotations

import pytest

from zen.agent.edits.fence_top import without_stray_divider
from zen.agent.edits.lazy import placeholders
from zen.agent.edits.snippet import Refused, is_snippet, merge
from zen.agent.protocols.block_checks import lost_definitions

FILE = '''"""Stats."""

import math


def mean(xs):
    return sum(xs) / len(xs)


# The middle value.
@cache
def median(xs):
    return 0


class Stats:
    def __init__(self, xs):
        self.xs = xs

    def mean(self):
        return mean(self.xs)


if __name__ == "__main__":
    print(mean([1, 2]))
'''


def test_a_function_is_replaced_by_name_and_the_rest_kept() -> None:
    snippet = "def mean(xs):\n    return math.fsum(xs) / len(xs)\n"
    assert is_snippet(FILE, snippet)
    done = merge(FILE, snippet)
    assert done.text == FILE.replace("return sum(xs)", "return math.fsum(xs)")
    assert done.replaced == ["mean"] and done.added == []


def test_the_old_decorator_and_comment_are_kept_when_the_snippet_brings_none() -> None:
    done = merge(FILE, "def median(xs):\n    return sorted(xs)[len(xs) // 2]\n")
    assert "# The middle value.\n@cache\ndef median(xs):\n    return sorted(xs)" in done.text
    assert done.text.count("@cache") == 1


def test_the_snippets_decorator_and_comment_replace_the_old_ones() -> None:
    new = "# Middle.\n@lru_cache(8)\ndef median(xs):\n    return 1\n"
    done = merge(FILE, new)
    assert "\n\n\n# Middle.\n@lru_cache(8)\ndef median(xs):\n    return 1\n\n\nclass" in done.text
    assert "@cache" not in done.text and "The middle value" not in done.text


def test_a_new_function_goes_before_the_main_guard_and_an_import_after_the_imports() -> None:
    done = merge(FILE, "import statistics\n\n\ndef mode(xs):\n    return statistics.mode(xs)\n")
    assert done.added == ["import statistics", "mode"]
    assert "import math\nimport statistics\n" in done.text
    head, guard = done.text.split('if __name__ == "__main__":')
    assert head.endswith("def mode(xs):\n    return statistics.mode(xs)\n\n\n")
    assert "print(mean" in guard


def test_a_method_is_merged_into_its_class_and_a_new_one_goes_at_its_end() -> None:
    snippet = (
        "class Stats:\n    def mean(self):\n        return 2\n\n"
        "    def total(self):\n        return sum(self.xs)\n"
    )
    done = merge(FILE, snippet)
    assert done.replaced == ["Stats.mean"] and done.added == ["Stats.total"]
    assert "    def __init__(self, xs):\n        self.xs = xs\n" in done.text  # kept
    assert "    def mean(self):\n        return 2\n\n    def total(self):\n" in done.text


def test_a_method_written_at_column_0_finds_its_class() -> None:
    done = merge(FILE, "def __init__(self, xs):\n    self.xs = list(xs)\n")
    assert "class Stats:\n    def __init__(self, xs):\n        self.xs = list(xs)\n" in done.text
    assert done.replaced == ["Stats.__init__"]


def test_an_indented_method_alone_is_dedented_and_merged() -> None:
    done = merge(FILE, "    def __init__(self, xs):\n        self.xs = xs or []\n")
    assert "        self.xs = xs or []\n" in done.text


@pytest.mark.parametrize(
    ("file", "snippet", "why"),
    [
        (FILE, "def f():\n    pass\n\n\ndef f():\n    pass\n", "defines f twice"),
        (
            "def f():\n    pass\n\n\ndef f():\n    pass\n\nx = 1\n",
            "def f():\n    return 1\n",
            "2 times",
        ),
        (
            "try:\n    from a import f\nexcept ImportError:\n    def f():\n        pass\nx = 1\n",
            "def f():\n    return 1\n",
            "under a condition",
        ),
        (
            "class A:\n    def run(self):\n        pass\n\n\n"
            "class B:\n    def run(self):\n        pass\n",
            "def run(self):\n    return 1\n",
            "a method of A, B",
        ),
        (
            "class P:\n    @property\n    def x(self):\n        return 1\n\n    @x.setter\n"
            "    def x(self, v):\n        pass\n\n    def y(self):\n        pass\n",
            "class P:\n    def x(self):\n        return 2\n",
            "P.x 2 times",
        ),
        (FILE, "def mean(xs):\n    return (\n", "does not parse"),
    ],
)
def test_what_could_be_two_things_is_refused(file: str, snippet: str, why: str) -> None:
    with pytest.raises(Refused, match=why):
        merge(file, snippet)


def test_what_is_not_a_snippet() -> None:
    assert not is_snippet(FILE, FILE)  # the whole file
    assert not is_snippet(FILE, "x = 1\n")  # top-level code, no definition
    assert not is_snippet(FILE, "def mean(:\n")  # does not parse
    assert not is_snippet("def f(:\n", "def f():\n    pass\n")  # the file does not parse
    assert is_snippet("import os\n\n\ndef f():\n    pass\n", "def f():\n    return 1\n")


def test_lazy_placeholders_are_caught_and_dots_and_pass_are_code() -> None:
    old = "def f():\n    ...\n"
    assert placeholders(old, "def f():\n    # ... rest of code\n") == ["# ... rest of code"]
    assert placeholders(old, "def g():\n    # existing code here\n    pass\n") == [
        "# existing code here"
    ]
    assert placeholders(old, "// ...\n") == ["// ..."]
    assert placeholders(old, "def f():\n    ...\n\n\ndef g():\n    pass\n") == []
    assert placeholders("# ... rest of code\n", "# ... rest of code\nx = 1\n") == []  # its own
    assert placeholders(old, "# handle other cases here\n# existing users are migrated\n") == []


def test_a_stray_divider_is_dropped_unless_the_file_has_such_lines() -> None:
    assert without_stray_divider("=======\nx = 1\n", "x = 0\n") == "x = 1\n"
    assert without_stray_divider("=======\nx = 1\n", None) == "x = 1\n"
    rst = "=======\nTitle\n=======\n\nText.\n"
    assert without_stray_divider(rst, None) == rst  # overline and underline: the file's own
    assert without_stray_divider("=======\nText.\n", "Title\n=======\n") == "=======\nText.\n"
    assert without_stray_divider("x = 1\n", "x\n") == "x = 1\n"


def test_a_hostile_snippet_is_refused_or_ignored_never_raised() -> None:
    deep = "def f():\n    return " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    assert not is_snippet(FILE, deep)  # too deep to parse: not a snippet
    with pytest.raises(Refused):
        merge(FILE, deep)
    many = "".join(f"def f{i}():\n    pass\n\n\n" for i in range(2000))
    assert merge(FILE, many).added[-1] == "f1999"


def test_the_modules_docstring_copied_above_the_function_is_kept_not_refused() -> None:
    """The 1.5B model's answer on fix-failing-test: the docstring, then the one function."""
    snippet = '"""Stats."""\n\n\ndef mean(xs):\n    return sum(xs) / max(len(xs), 1)\n'
    assert is_snippet(FILE, snippet)
    got = merge(FILE, snippet)
    assert got.text == FILE.replace("sum(xs) / len(xs)", "sum(xs) / max(len(xs), 1)")
    assert got.replaced == ["mean"]


def test_top_level_code_the_file_does_not_have_is_no_snippet() -> None:
    changed = '"""Statistics."""\n\n\ndef mean(xs):\n    return 0\n'  # a new docstring
    assert not is_snippet(FILE, changed)
    assert not is_snippet(FILE, "LIMIT = 3\n\n\ndef mean(xs):\n    return 0\n")
    with pytest.raises(Refused, match="top-level code"):
        merge(FILE, "LIMIT = 3\n\n\ndef mean(xs):\n    return 0\n")


def test_a_definition_the_snippet_now_imports_is_removed_not_kept_to_shadow_it() -> None:
    """The 1.5B model's answer on move-duplicate: the import of the moved function and the
    one function left; kept, the old `normalize` would shadow the import."""
    users = (
        "def normalize(name):\n    return name.lower()\n\n\n"
        "def user_key(name, domain):\n    return normalize(name) + domain\n"
    )
    snippet = (
        "from names import normalize\n\n"
        "def user_key(name, domain):\n    return normalize(name) + '@' + domain\n"
    )
    got = merge(users, snippet)
    assert got.text == (
        "from names import normalize\n\n"
        "def user_key(name, domain):\n    return normalize(name) + '@' + domain\n"
    )
    assert got.removed == ["normalize"]
    assert "removed normalize (imported now)" in got.said()
    kept = merge(users, "import os\n\ndef user_key(name, domain):\n    return os.sep\n")
    assert "def normalize(name):" in kept.text and kept.removed == []


RENAME = '"""Prices."""\n\n\ndef calc_total(xs, tax):\n    return sum(xs) * (1 + tax)\n'


def test_a_whole_file_that_renames_a_function_is_the_whole_file() -> None:
    """Qwen2.5-Coder-1.5B on rename-across-files: merged as a snippet, the old function was
    kept beside the renamed one; as a whole file, it was refused as deleting it."""
    new = RENAME.replace("calc_total", "compute_total")
    assert not is_snippet(RENAME, new)
    assert lost_definitions(RENAME, new) == []
    assert lost_definitions(RENAME, '"""Prices."""\n\n\ndef compute_total(xs):\n    return 0\n')


def test_a_snippet_that_renames_a_function_replaces_it_where_it_was() -> None:
    old = RENAME + "\n\ndef other():\n    return 1\n"
    got = merge(old, RENAME.replace("calc_total", "compute_total"))
    assert got.text == old.replace("calc_total", "compute_total")
    assert got.replaced == ["calc_total as compute_total"]

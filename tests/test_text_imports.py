"""The files a shown file imports come with it (text protocol): followed, bounded, confined."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.test_text_context import make, names
from zen.agent.protocols import block_imports as text_imports


def test_a_failing_tests_module_comes_with_the_test(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "test_stats.py": "import unittest\n\nfrom stats import mean, spread\n",
            "stats.py": "import math\nimport os, helpers as h\n",
            "helpers.py": "x = 1\n",
            "unrelated.py": "y = 2\n",
        },
    )
    assert names(ws, "The test in `test_stats.py` fails.") == (
        ["test_stats.py", "stats.py", "helpers.py"],
        [],
    )


def test_a_module_imported_from_its_package_comes_too(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "shop/client.py": "from shop import settings\nfrom . import (retry as r, names\n)\n",
            "shop/__init__.py": "",
            "shop/settings.py": "WAIT = 10\n",
            "shop/retry.py": "TRIES = 3\n",
            "shop/names.py": "A = 1\n",
            "settings.py": "OTHER = 1\n",
        },
    )
    shown, _ = names(ws, "what does shop/client.py wait for?")
    assert shown == [
        "shop/client.py",
        "shop/__init__.py",
        "shop/settings.py",
        "shop/retry.py",
        "shop/names.py",
    ]


def test_a_chain_is_followed_breadth_first_up_to_the_bound(tmp_path: Path) -> None:
    files = {f"m{i}.py": f"from m{i + 1} import f\n" for i in range(10)}
    files["app.py"] = "from pkg.core import run\nfrom m0 import f\n"
    files["pkg/__init__.py"] = ""
    files["pkg/core.py"] = "from . import util\nfrom .util import g\nfrom ..m9 import f\n"
    files["pkg/util.py"] = "g = 1\n"
    ws = make(tmp_path, files)
    shown, _ = names(ws, "run app.py")
    assert shown[:3] == ["app.py", "pkg/core.py", "m0.py"]
    assert "pkg/__init__.py" in shown and "pkg/util.py" in shown
    assert len(shown) == 1 + text_imports.FOLLOWED


def test_javascript_relative_imports_are_followed(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {
            "src/app.ts": "import { a } from './lib/a';\nconst b = require('../b.js');\n"
            "import x from 'react';\n",
            "src/lib/a.ts": "export const a = 1;\n",
            "b.js": "module.exports = 2;\n",
        },
    )
    assert names(ws, "fix src/app.ts")[0] == ["src/app.ts", "src/lib/a.ts", "b.js"]


def test_imports_never_reach_outside_or_ignored_files(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (tmp_path / "secret.py").write_text("KEY = 1\n")
    (tmp_path / "outside.js").write_text("x\n")
    ws = make(
        root,
        {
            "main.py": "from .. import secret\nfrom ....... import x\nimport local_settings\n"
            "from ..secret import KEY\nimport linked\n",
            "web.js": "require('../outside.js'); import y from '../../../../etc/passwd';\n",
            "local_settings.py": "PASSWORD = 'hunter2'\n",
            ".gitignore": "local_settings.py\n",
        },
    )
    if sys.platform != "win32":
        os.symlink(tmp_path / "secret.py", root / "linked.py")
    assert names(ws, "fix main.py and web.js") == (["main.py", "web.js"], [])


@pytest.mark.parametrize(
    "body", ["import\n", "from  import x\n", "import , ,\n", "from . import\n"]
)
def test_broken_import_lines_find_nothing_and_raise_nothing(tmp_path: Path, body: str) -> None:
    ws = make(tmp_path, {"a.py": body})
    assert names(ws, "fix a.py") == (["a.py"], [])

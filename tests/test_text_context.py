"""Which files a text-protocol model is shown with its task, and that each is marked read."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from zen.agent.protocols import block_files as tc
from zen.agent.protocols.block_search import SEARCHED
from zen.tools.base import ToolContext
from zen.tools.workspace import Workspace


def make(root: Path, files: dict[str, str]) -> Workspace:
    for name, body in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body)
    return Workspace(root)


def names(ws: Workspace, task: str, skip: set[Path] | None = None) -> tuple[list[str], list[str]]:
    paths, too_big = tc.relevant(task, ws, skip or set())
    return [ws.show(p) for p in paths], too_big


def test_files_the_task_names_by_path_or_by_name(tmp_path: Path) -> None:
    ws = make(
        tmp_path,
        {"src/stats.py": "def mean(): ...\n", "test_stats.py": "x\n", "README.md": "hi\n"},
    )
    assert names(ws, "fix mean in src/stats.py, see test_stats.py.") == (
        ["src/stats.py", "test_stats.py"],
        [],
    )
    assert names(ws, "fix `stats.py` (@test_stats.py)") == (["src/stats.py", "test_stats.py"], [])


def test_without_a_name_a_search_ranks_rare_words_first(tmp_path: Path) -> None:
    files = {f"m{i}.py": "def helper():\n    return 1\n" for i in range(6)}
    files["geo.py"] = "def haversine(a, b):\n    return helper()\n"
    ws = make(tmp_path, files)
    shown, _ = names(ws, "make haversine return kilometres, not helper units")
    assert shown[0] == "geo.py" and len(shown) <= SEARCHED
    assert names(ws, "tidy up") == ([], [])


def test_outside_large_and_attached_files_are_not_shown(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (tmp_path / "secret.txt").write_text("key\n")
    ws = make(root, {"big.py": "x" * (tc.FILE_LIMIT + 1), "a.py": "a\n"})
    assert names(ws, "look at ../secret.txt and /etc/passwd") == ([], [])
    assert names(ws, "edit big.py and a.py", {root / "a.py"}) == ([], ["big.py"])
    attached = 'fix it\n\n<file path="a.py">\na\n</file>'
    assert tc.attached_paths(attached, ws) == {(root / "a.py").resolve()}


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_named_by_the_task_never_blocks(tmp_path: Path, ctx: ToolContext) -> None:
    root = ctx.workspace.root
    os.mkfifo(root / "pipe.py")
    (root / "ok.py").write_text("pipe = 1\n")
    paths, _ = tc.relevant("read pipe.py and ok.py", ctx.workspace, set())
    seen = [tc.read_seen(ctx, p) for p in paths]
    assert [s.shown for s in seen if s is not None] == ["ok.py"]


def test_a_file_shown_is_marked_read_with_its_stamp_before_the_read(ctx: ToolContext) -> None:
    path = ctx.workspace.root / "a.py"
    path.write_text("a = 1\n")
    seen = tc.read_seen(ctx, path)
    assert seen is not None and seen.text == "a = 1\n"
    ctx.read_tracker.mark_read(seen.path, seen.stamp)
    assert ctx.read_tracker.check_edit(seen.path, "a.py") is None
    path.write_text("a = 22\n")  # changed after the model saw it
    assert "changed on disk" in (ctx.read_tracker.check_edit(seen.path, "a.py") or "")


def test_render_keeps_within_the_budget(ctx: ToolContext) -> None:
    seen = [
        tc.Seen(Path(f"/x/{i}"), f"f{i}.py", "y" * (tc.FILES_BUDGET // 2), None) for i in range(3)
    ]
    out = tc.render(seen, [])
    assert out.count("<file path=") == 2 and "(not shown, too large: f2.py)" in out


def test_the_search_goes_through_a_name_assigned_from_the_tasks_words(tmp_path: Path) -> None:
    """`audit.log` is said once, as AUDIT_FILE: the file writing through the name is shown."""
    ws = make(
        tmp_path,
        {
            "app/paths.py": 'AUDIT_FILE = DATA / "audit.log"\nNOTES = DATA / "notes.txt"\n',
            "app/history.py": "from app.paths import AUDIT_FILE\n\ndef remember(): AUDIT_FILE\n",
            "app/notes.py": "from app.paths import NOTES\n",
        },
    )
    shown, _ = names(ws, "Which function appends lines to audit.log?")
    assert shown[:2] == ["app/paths.py", "app/history.py"]
    assert "app/notes.py" not in shown  # NOTES is assigned from no word of the task


def test_a_python_module_named_in_a_code_span_is_its_file(tmp_path: Path) -> None:
    """`python -m unittest test_paging`: the test the task says fails is shown with the code."""
    ws = make(
        tmp_path,
        {"paging.py": "x\n", "tests/test_paging.py": "y\n", "app/db.py": "z\n", "unittest.txt": ""},
    )
    task = "`python -m unittest test_paging` fails. Fix `paging.py`, see `app.db`."
    assert names(ws, task)[0] == ["paging.py", "tests/test_paging.py", "app/db.py"]
    assert names(ws, "test_paging fails, fix paging.py")[0] == ["paging.py"]  # not in a span


def test_a_file_of_thousands_of_matching_names_is_followed_only_so_far(tmp_path: Path) -> None:
    """A hostile repository: 700 lines assign from the task's word; at most NAMES names are
    followed and SEARCHED more files shown."""
    from zen.agent.protocols import block_search

    many = "".join(f'NAME{i} = "audit"\n' for i in range(700))
    users = {f"u{i}.py": f"NAME{i}\n" for i in range(20)}
    ws = make(tmp_path, {"many.py": many, **users})
    shown, _ = names(ws, "where is audit written?")
    assert shown[0] == "many.py"
    followed = [int(s[1:-3]) for s in shown if s.startswith("u")]
    assert len(followed) == block_search.SEARCHED
    assert all(i < block_search.NAMES for i in followed)  # the first names, no others


def test_a_task_of_thousands_of_words_searches_only_its_first_ones(tmp_path: Path) -> None:
    """A pasted log of 3,000 distinct words: one expression of 3,000 branches took minutes
    over the walk; the first WORDS words are searched, the rest not."""
    from zen.agent.protocols import block_search

    words = [f"word{i:04d}x" for i in range(3_000)]
    ws = make(tmp_path, {"first.py": f"{words[0]} = 1\n", "last.py": f"{words[-1]} = 1\n"})
    shown, _ = names(ws, " ".join(words))
    assert shown == ["first.py"]
    assert names(ws, " ".join(words[-block_search.WORDS :])) == (["last.py"], [])

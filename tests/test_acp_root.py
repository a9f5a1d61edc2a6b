"""`zen acp` with a session whose cwd is `/`: no snapshots, said once, the session works."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("acp")

from tests.test_acp import Editor, ask, start, text, zen_acp  # noqa: E402


@pytest.mark.e2e
async def test_a_session_in_the_root_folder_takes_no_snapshots_and_says_so_once(
    fake_llm, home: Path, project: Path
) -> None:
    fake = fake_llm([text("ok"), text("again")])
    editor = Editor()
    async with zen_acp(editor, fake, home, project) as conn:
        sid = await start(conn, Path("/"))
        await ask(conn, sid, "hi")
        await ask(conn, sid, "more")
    said = editor.text()
    assert said.count("checkpoints are off: zen does not snapshot the whole file system") == 1
    assert said.endswith("again")
    assert not (home / ".zen" / "snapshots").exists()

"""Where the sandbox program comes from, how the probe answers, and what of home is shown."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest

from zen.settings.loading import load_config
from zen.settings.sandbox_options import SandboxOptions
from zen.tools.sandbox import home, runner
from zen.tools.sandbox.probe import untrusted
from zen.tools.sandbox.runner import Sandbox

BWRAP = shutil.which("bwrap", path="/usr/bin:/bin")
needs_bwrap = pytest.mark.skipif(BWRAP is None, reason="no bwrap in /usr/bin")


@needs_bwrap
def test_only_a_program_nobody_but_root_can_change_is_taken(tmp_path: Path) -> None:
    assert BWRAP is not None
    assert untrusted(BWRAP) == ""
    assert "lies in /usr" in untrusted(BWRAP, [Path("/usr")])  # the workspace, a home
    link = tmp_path / "bwrap"
    link.symlink_to(BWRAP)
    assert untrusted(str(link)) == ""  # where the link leads is what counts
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)  # anyone may swap what lies here
    fake = open_dir / "bwrap"
    shutil.copy(BWRAP, fake)
    assert "which others than root can change" in untrusted(str(fake))
    fake.chmod(0o757)
    assert "may be a fake" in untrusted(str(fake))
    assert "not an absolute path" in untrusted("bwrap")
    if os.getuid() == 0:
        mine = tmp_path / "mine"
        shutil.copy(BWRAP, mine)
        os.chown(mine, 65534, 65534)
        assert "not owned by root" in untrusted(str(mine))


@needs_bwrap
async def test_a_slow_probe_is_no_answer_and_never_blocks_the_loop() -> None:
    """One probe slower than its deadline kept the whole process unsandboxed, and the probe
    ran in the event loop's thread."""
    runner._known.clear()
    box = Sandbox("auto", SandboxOptions())
    assert await box.settle(0.0001) is None  # no answer in time: nothing is kept
    assert box.found() is None and box.problem() == "" and not box.active()
    assert "not checked yet" in box.status()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.001)
            ticks += 1

    ticker = asyncio.ensure_future(tick())
    runner._known.clear()
    found = await Sandbox("auto", SandboxOptions()).settle(60)
    ticker.cancel()
    assert found is not None and found.program == BWRAP, found
    assert ticks > 0  # the loop ran while the probe did
    assert box.active()  # the answer is the process's


def test_a_project_cannot_pick_the_program_or_widen_what_is_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".zen").mkdir()
    (tmp_path / ".zen" / "config.yaml").write_text(
        "sandbox_options: {program: /tmp/x/bwrap, env: [GITHUB_TOKEN], readable: ['/opt'],"
        " hidden: ['/srv/secret']}\n"
    )
    options = load_config(tmp_path, env={"HOME": str(tmp_path / "h")}, trusted=True)
    chosen = options.sandbox_options
    assert chosen.program is None and chosen.env == [] and chosen.readable == []
    assert chosen.hidden == ["/srv/secret"]  # tightening is the project's to do


def test_what_of_home_is_shown_and_which_secrets_are_hidden(tmp_path: Path) -> None:
    me = tmp_path / "home"
    (me / ".pyenv" / "versions").mkdir(parents=True)
    (me / "venvs" / "x" / "bin").mkdir(parents=True)
    (me / "venvs" / "x" / "pyvenv.cfg").write_text("home = /usr\n")
    (me / ".config" / "gh").mkdir(parents=True)
    (me / ".ssh").mkdir()
    (me / ".gitconfig").write_text("[user]\n")
    (me / "work").mkdir()
    environ = {"PATH": f"{me / 'venvs' / 'x' / 'bin'}:/usr/bin", "HOME": str(me)}
    secrets = home.secret_paths([me], [])
    shown = home.shown([me], environ, [str(me / ".config")], [me / "work"], secrets)
    dests = {dest for _, dest in shown}
    assert {me / ".pyenv", me / "venvs" / "x", me / "venvs" / "x" / "bin"} <= dests
    assert {me / ".gitconfig", me / ".config"} <= dests
    assert me / "work" not in dests and me not in dests
    hidden = home.hidden(secrets, [me], [me / "work", *dests])
    assert me / ".config" / "gh" in hidden  # inside a shown folder: hidden again
    assert me / ".ssh" not in hidden  # in the fresh home: nothing to hide
    ws = home.hidden(secrets, [me], [me])  # home as the workspace
    assert {me / ".ssh", me / ".config" / "gh"} <= set(ws)

"""The sandbox's fifth attack round (docs/security.md, "The fifth round"), through `zen -p` and
a real bwrap: git configuration that names a work-tree script in ways the guard's reader
missed, and the new ways a model's command reaches bash (a ```bash block, `test_cmd`).
Skipped where bubblewrap cannot create a sandbox.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import test_sandbox_guard_e2e as guard_e2e
from tests.fakes.server import call, text, tool_calls
from tests.test_sandbox_e2e import bash, env, needs_bwrap
from tests.test_text_protocol import args_for, users

git = guard_e2e.git
repo = guard_e2e.repo  # the fixture: a repository with one commit

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    needs_bwrap,
]

SCRIPT = "scripts/t.sh"
"""The work-tree script each configuration below runs, by a form the reader must see through."""
CONFIGS = {
    "quotes joined": ("alias.t", "!sh scri''pts/t.sh"),
    "backslash dropped": ("alias.t", "!sh scr\\ipts/t.sh"),
    "glob": ("alias.t", "!sh scripts/t*.sh"),
    "braces": ("alias.t", "!sh scripts/{t,u}.sh"),
    "toplevel": ("alias.t", '!sh "$(git rev-parse --show-toplevel)/scripts/t.sh"'),
    "$PWD": ("alias.t", "!sh $PWD/scripts/t.sh"),
    "pager": ("pager.log", "sh scripts/t.sh"),
    "submodule update": ("submodule.x.update", "!sh scripts/t.sh"),
    "ssh signing key": ("gpg.ssh.defaultKeyCommand", "sh scripts/t.sh"),
    "add -p filter": ("interactive.diffFilter", "sh scripts/t.sh"),
    "alternate refs": ("core.alternateRefsCommand", "sh scripts/t.sh"),
}


def rewrite(repo: Path, path: str, marker: Path) -> str:
    """The model's command: `path` rewritten to touch `marker`; a file of its own kept."""
    return f"printf 'touch {marker}\\n' > {path}; echo ok > src.txt"


@pytest.mark.parametrize("key, value", CONFIGS.values(), ids=list(CONFIGS))
def test_a_script_the_configuration_names_in_any_shell_form_is_guarded(
    fake_llm, run_zen, repo: Path, tmp_path: Path, key: str, value: str
) -> None:
    """Each form named the script to git's shell but not to the guard's reader (split at
    blanks, operators and quotes): rewriting it ran code at the user's next `git t`,
    `git log` (pager), `git submodule update`, `git commit -S`, `git add -p`."""
    marker = tmp_path / "PWNED"
    (repo / "scripts").mkdir()
    (repo / SCRIPT).write_text("true\n")
    git(repo, "config", key, value)
    _, told = bash(fake_llm, run_zen, rewrite(repo, SCRIPT, marker), "--yes", env=env())
    assert (repo / "src.txt").read_text() == "ok\n"  # the rest of the work tree is the model's
    assert (repo / SCRIPT).read_text() == "true\n", told
    if key == "alias.t":
        subprocess.run(["git", "-C", str(repo), "t"], capture_output=True)
        assert not marker.exists()


def test_a_file_a_glob_would_match_first_is_undone(
    fake_llm, run_zen, repo: Path, tmp_path: Path
) -> None:
    """`!sh scripts/t*.sh`: a new `scripts/t0.sh` sorts first, so `sh` runs it."""
    marker = tmp_path / "PWNED"
    (repo / "scripts").mkdir()
    (repo / SCRIPT).write_text("true\n")
    git(repo, "config", "alias.t", "!sh scripts/t*.sh")
    bash(fake_llm, run_zen, rewrite(repo, "scripts/t0.sh", marker), "--yes", env=env())
    subprocess.run(["git", "-C", str(repo), "t"], capture_output=True)
    assert not marker.exists() and not (repo / "scripts" / "t0.sh").exists()


@pytest.mark.parametrize("target", ["tools/clean.py", "tools/__init__.py"])
def test_a_python_module_the_configuration_runs_is_guarded(
    fake_llm, run_zen, repo: Path, tmp_path: Path, target: str
) -> None:
    """`alias.fmt = !python3 -m tools.clean`: no slash, no file named `tools.clean`; Python runs
    `tools/__init__.py` and `tools/clean.py` from the work tree."""
    marker = tmp_path / "PWNED"
    (repo / "tools").mkdir()
    (repo / "tools" / "clean.py").write_text("pass\n")
    (repo / "tools" / "__init__.py").write_text("")
    git(repo, "config", "alias.fmt", "!python3 -m tools.clean")
    body = f"import pathlib; pathlib.Path('{marker}').touch()"
    cmd = f'echo "{body}" > {target}; echo ok > src.txt'
    bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert (repo / "src.txt").read_text() == "ok\n"
    subprocess.run(["git", "-C", str(repo), "fmt"], capture_output=True)
    assert not marker.exists()


def test_a_template_folder_in_the_work_tree_is_guarded(
    fake_llm, run_zen, repo: Path, home: Path, tmp_path: Path
) -> None:
    """`init.templateDir = tpl` (in the user's config): `git clone` and `git init` copy its
    `hooks/` into every new repository, so a planted `post-checkout` ran at the next clone."""
    marker = tmp_path / "PWNED"
    (repo / "tpl" / "hooks").mkdir(parents=True)
    with (home / ".gitconfig").open("a") as out:
        out.write(f"[init]\n\ttemplateDir = {repo / 'tpl'}\n")
    hook = "tpl/hooks/post-checkout"
    cmd = f"printf '#!/bin/sh\\ntouch {marker}\\n' > {hook}; chmod +x {hook}; echo ok > src.txt"
    bash(fake_llm, run_zen, cmd, "--yes", env=env())
    assert (repo / "src.txt").read_text() == "ok\n"
    user = {**os.environ, "HOME": str(home)}  # the user's config: its templateDir
    subprocess.run(["git", "clone", "-q", str(repo), str(tmp_path / "copy")], env=user, check=True)
    assert not marker.exists() and not (repo / hook).exists()


@pytest.mark.parametrize(
    "body",
    [
        "\ufeff[alias]\n\tt = !sh scripts/t.sh\n",  # a byte order mark, as Windows editors save
        "[alias]\n\tt = !sh \\\n\t\tscripts/t.sh\n",  # a value continued on the next line
    ],
    ids=["byte order mark", "continued line"],
)
def test_configuration_git_reads_but_the_guard_misread_is_guarded(
    fake_llm, run_zen, repo: Path, tmp_path: Path, body: str
) -> None:
    """git skips a leading UTF-8 BOM and joins a value's backslash-newline; the guard's reader
    lost the section (BOM) or the second line (continuation), so `scripts/t.sh` was not
    guarded."""
    marker = tmp_path / "PWNED"
    (repo / "scripts").mkdir()
    (repo / SCRIPT).write_text("true\n")
    cfg = repo / ".git" / "config"
    text_ = cfg.read_text()
    cfg.write_text(body + text_ if body.startswith("\ufeff") else text_ + body)
    assert git(repo, "config", "alias.t").split() == ["!sh", SCRIPT]  # as git reads it
    bash(fake_llm, run_zen, rewrite(repo, SCRIPT, marker), "--yes", env=env())
    subprocess.run(["git", "-C", str(repo), "t"], capture_output=True)
    assert not marker.exists()


ESCAPE = (
    "echo out > {outside}; echo evil > .git/hooks/pre-commit; cat ~/.ssh/id_rsa; env; "
    "echo in > {made}"
)
"""What each route into bash tries: a write outside, a hook, a secret file, the environment."""


def escape_failed(repo: Path, home: Path, outside: Path, made: str, told: str) -> None:
    assert (repo / made).read_text() == "in\n"  # it ran
    assert not outside.exists() and not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert "PRIVATE KEY" not in told and "sk-zen-secret-key" not in told


@pytest.fixture
def secret(home: Path) -> None:
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_rsa").write_text("PRIVATE KEY\n")


def test_a_bash_block_of_the_text_protocol_runs_in_the_sandbox(
    fake_llm, run_zen, repo: Path, home: Path, tmp_path: Path, secret: None
) -> None:
    """A small model's ```bash block becomes the bash tool's call (`block_apply`): the same
    sandbox, approval and undo as a native call, under `--yes` too."""
    outside = tmp_path / "outside.txt"
    cmd = ESCAPE.format(outside=outside, made="made.txt")
    fake = fake_llm([text(f"```bash\n{cmd}\n```"), text("Done.")])
    done = run_zen("-p", "go", "--yes", *args_for(fake, "text"), env=env())
    assert "Traceback" not in done.err, done.err
    told = users(fake.requests[1])[-1]
    assert "$ echo out" in told  # the block ran, as a command
    escape_failed(repo, home, outside, "made.txt", told)


def test_the_projects_test_command_runs_in_the_sandbox(
    fake_llm, run_zen, repo: Path, home: Path, tmp_path: Path, secret: None
) -> None:
    """`test_cmd` from a trusted project runs after each edit as a bash call: sandboxed like
    the model's own, so a trusted line cannot reach past the work tree either."""
    outside = tmp_path / "outside.txt"
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (repo / ".zen").mkdir()
    test_cmd = ESCAPE.format(outside=outside, made="ran.txt") + "; false"
    (repo / ".zen" / "config.yaml").write_text(f"test_cmd: {json.dumps(test_cmd)}\n")
    edit = {"path": "calc.py", "old_string": "a + b", "new_string": "a - b"}
    fake = fake_llm(
        [
            tool_calls([call("read-file", {"path": "calc.py"})]),
            tool_calls([call("edit-file", edit)]),
            text("Done."),
        ]
    )
    done = run_zen("-p", "go", "--yes", "--trust", *args_for(fake, "native"), env=env())
    assert "Traceback" not in done.err, done.err
    told = str([m for m in fake.requests[2]["messages"] if m["role"] == "tool"][-1]["content"])
    assert "test command:" in told  # it ran, and failed
    escape_failed(repo, home, outside, "ran.txt", told)

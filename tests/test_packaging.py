"""zen must work from a plain (non-editable) install: prompts and config ship inside the wheel."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (built,) = out.glob("zen_code-*.whl")
    return built


def test_wheel_ships_prompts_and_config(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "zen/_data/prompts/core.md" in names
    assert "zen/_data/prompts/tools/read-file.md" in names
    assert "zen/_data/config/default.yaml" in names
    assert "zen/_data/bench-tasks/one-line-edit/tests/check.py" in names  # zen bench's suite
    assert any(n.endswith("entry_points.txt") for n in names)


def test_installed_copy_runs_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    env = {
        **os.environ,
        "PYTHONPATH": str(target),
        "HOME": str(tmp_path),
        "USERPROFILE": str(tmp_path),
    }
    code = (
        "import zen.settings.prompts as p, zen.settings.loading as c, pathlib;"
        "print(p.data_dir('prompts'));"
        "print(c.load_config(pathlib.Path('.'), env={}).model)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    prompts_dir, model = done.stdout.split()
    assert Path(prompts_dir).is_relative_to(target)
    assert model


def test_version_is_the_changelogs_latest_release() -> None:
    """`zen --version` names the newest released section of CHANGELOG.md (kept together)."""
    done = subprocess.run(
        [sys.executable, "-m", "zen", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = [line[3:].strip() for line in changelog.splitlines() if line.startswith("## ")]
    assert headings[0] == "Unreleased"
    assert done.stdout.strip() == f"zen {headings[1]}"

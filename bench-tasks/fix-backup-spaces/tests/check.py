"""Check for the `fix-backup-spaces` task: exit 0 when solved.

Usage: python check.py WORKSPACE ANSWER_FILE (zen bench runs it after the agent ended).
"""

import sys
from pathlib import Path

ws = Path(sys.argv[1])
answer = Path(sys.argv[2]).read_text(encoding="utf-8", errors="replace")


def fail(why: str) -> None:
    print(why)
    sys.exit(1)


def broken(kind: type, error: BaseException, _tb: object) -> None:
    """The workspace's code raised (it may not even import): not solved, not a broken check."""
    fail(f"the workspace's code raised {kind.__name__}: {str(error)[:300]}")


sys.excepthook = broken


def shown(text: str, size: int) -> str:
    """The end of a child's output, its traceback header renamed (zen bench reads that header
    in a check's own output as the check crashing)."""
    return text.strip()[size:].replace("Traceback (most recent call last)", "traceback")


import shutil  # noqa: E402
import subprocess  # noqa: E402
import tarfile  # noqa: E402
import tempfile  # noqa: E402

if shutil.which("bash") is None or shutil.which("tar") is None:
    print("this check needs bash and tar")
    sys.exit(2)


def archive_of(folder: str, tmp: Path) -> list[str]:
    """Run the script on `folder` (made inside tmp) and list the archive it wrote."""
    (tmp / folder / "sub").mkdir(parents=True)
    (tmp / folder / "notes.txt").write_text("hello\n", encoding="utf-8")
    (tmp / folder / "sub" / "a b.txt").write_text("x\n", encoding="utf-8")
    done = subprocess.run(
        ["bash", str(ws / "backup.sh"), folder],
        cwd=tmp, capture_output=True, text=True, timeout=60,
    )
    if done.returncode != 0:
        fail(f"./backup.sh {folder!r} exits {done.returncode}: {shown(done.stderr, -200)}")
    name = Path(folder).name
    found = sorted((tmp / "backups").glob(f"{name}-*.tar.gz")) if (tmp / "backups").is_dir() else []
    if len(found) != 1:
        fail(f"./backup.sh {folder!r} wrote no backups/{name}-DATE.tar.gz")
    with tarfile.open(found[0]) as tar:
        return sorted(tar.getnames())


for folder in ("client files", "plain", "work/2024 q1  reports"):
    with tempfile.TemporaryDirectory() as tmp:
        name = Path(folder).name
        got = archive_of(folder, Path(tmp))
        want = sorted([name, f"{name}/notes.txt", f"{name}/sub", f"{name}/sub/a b.txt"])
        if got != want:
            fail(f"the archive of {folder!r} holds {got}, not {want}")

"""The sandbox against a command that wants out (issue 35), through `zen -p` and a real bwrap:
a fake bwrap, planted secrets and sockets, the real home behind a temporary HOME, everyday
commands, and the limits. Skipped, with the reason, where bubblewrap cannot create a sandbox.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fakes.server import call, text, tool_calls
from tests.test_sandbox_e2e import bash, config, env, needs_bwrap
from zen.settings.sandbox_options import SECRET_PATHS
from zen.tools.sandbox import limits

pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="bwrap is Linux's"),
    needs_bwrap,
]
PY = sys.executable


def test_a_fake_bwrap_is_never_used(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path, var_tmp: Path
) -> None:
    """Break 3: a command wrote a fake `bwrap` into `.venv/bin`; with that folder first on the
    user's PATH every later "sandboxed" command ran outside."""
    marker = tmp_path / "fake-bwrap-ran"
    fake = project / ".venv" / "bin" / "bwrap"
    fake.parent.mkdir(parents=True)
    fake.write_text(
        f'#!/bin/sh\ntouch {marker}\nwhile [ "$1" != -- ]; do shift; done\nshift\nexec "$@"\n'
    )
    fake.chmod(0o755)
    path = f"{fake.parent}:{os.environ['PATH']}"
    var = var_tmp
    cmd = f"echo x > {var}; echo ran"
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env(PATH=path))
    assert "ran" in told and "Read-only file system" in told
    assert not marker.exists() and not var.exists()
    # the user's own config may name it, held to the same rule: it is refused as a fake
    config(home, f"sandbox_options: {{program: {fake}}}\n")
    done, told = bash(fake_llm, run_zen, "echo ran", "--yes", "--sandbox", "on", env=env())
    assert not marker.exists()
    assert "it may be a fake" in told and "ran\n" not in told
    # a project's config cannot name one at all
    config(home, "")
    (project / ".zen").mkdir()
    (project / ".zen" / "config.yaml").write_text(f"sandbox_options: {{program: {fake}}}\n")
    _, told = bash(fake_llm, run_zen, cmd, "--yes", "--trust", env=env())
    assert not marker.exists() and not var.exists() and "Read-only file system" in told


SECRET_FILES = (
    ".pgpass", ".my.cnf", ".cargo/credentials.toml", ".cargo/credentials", ".gem/credentials",
    ".azure/accessTokens.json", ".terraform.d/credentials.tfrc.json", ".vault-token",
    ".config/hub", ".config/rclone/rclone.conf", ".cache/huggingface/token",
    ".claude/.credentials.json", ".password-store/bank.gpg", ".local/share/keyrings/login.keyring",
    ".bash_history", ".zsh_history", ".python_history", ".psql_history", ".ssh/id_rsa",
    ".aws/credentials", ".netrc", ".git-credentials", ".config/gh/hosts.yml", ".npmrc",
    ".pypirc", ".docker/config.json", ".kube/config", ".gnupg/private-keys-v1.d/k.key",
    ".config/gcloud/credentials.db", ".m2/settings.xml",
)  # fmt: skip
SECRET_VARS = {
    name: f"{value}-v4lue-{name.lower()}"
    for name, value in {
        "PGPASSWORD": "pg", "DATABASE_URL": "postgres://u:pw@h/db", "MYSQL_PWD": "my",
        "GITHUB_PAT": "pat", "SENTRY_DSN": "https://k@sentry.io/1", "OPENAI_APIKEY": "oa",
        "PASSWORD": "pw", "APIKEY": "ak", "GITHUB_TOKEN": "gh", "AWS_SECRET_ACCESS_KEY": "aws",
        "ANTHROPIC_API_KEY": "an", "HF_TOKEN": "hf", "NPM_TOKEN": "npm",
        "RSYNC_PROXY": "user:proxypw@proxy:873", "STRIPE_SECRET": "st",
    }.items()
}  # fmt: skip


@pytest.fixture
def sockets(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Unix socket servers that answer `hello`: one in /tmp, one in $XDG_RUNTIME_DIR."""
    run = tmp_path / "run"
    run.mkdir()
    found = {"tmp": tmp_path / "agent.sock", "runtime": run / "bus", "runtime_dir": run}
    servers = [_serve(found["tmp"]), _serve(found["runtime"])]
    yield found
    for server in servers:
        server.close()


def _serve(path: Path) -> socket.socket:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.listen()

    def answer() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"hello\n")
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    return server


def _plant(base: Path) -> None:
    for n, rel in enumerate(SECRET_FILES):
        path = base / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"SECRET-{n}-x\n")


def _probe_command(paths: list[Path], socks: list[Path]) -> str:
    reads = " ".join(f"'{p}'" for p in paths)
    connect = (
        "import socket,sys\n"
        "for p in sys.argv[1:]:\n"
        "    try:\n"
        "        s=socket.socket(socket.AF_UNIX); s.connect(p); print('REACHED', s.recv(9))\n"
        "    except OSError as e: print('refused', p, e.errno)\n"
    )
    return (
        f'for f in {reads}; do cat "$f" 2>&1; done; env; '
        f'{PY} -c "{connect}" {" ".join(str(s) for s in socks)}'
    )


@pytest.mark.parametrize("where", ["home-is-workspace", "workspace-under-home", "elsewhere"])
def test_planted_secrets_are_unreadable_and_sockets_unreachable(
    fake_llm, run_zen, home: Path, project: Path, sockets: dict[str, Path], where: str
) -> None:
    """Breaks 5, 6 and 7: 30 credential files, 15 secret variables, socket servers in /tmp,
    in $XDG_RUNTIME_DIR and in the workspace."""
    _plant(home)
    cwd = {"home-is-workspace": home, "workspace-under-home": home / "work", "elsewhere": project}
    workspace = cwd[where]
    workspace.mkdir(exist_ok=True)
    ws_sock = _serve(workspace / "ws.sock")  # visible: only the filter stands in the way
    try:
        socks = [sockets["tmp"], sockets["runtime"], workspace / "ws.sock"]
        cmd = _probe_command([home / rel for rel in SECRET_FILES], socks)
        extra = {**SECRET_VARS, "XDG_RUNTIME_DIR": str(sockets["runtime_dir"])}
        _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env(**extra), cwd=workspace)
    finally:
        ws_sock.close()
    assert "SECRET-" not in told, told
    for name, value in SECRET_VARS.items():
        assert f"{name}=" not in told and value not in told, name
    assert "REACHED" not in told and told.count("refused") == 3, told
    assert "HOME=" in told and "PATH=" in told
    assert "Permission denied" not in told
    if where == "home-is-workspace":  # a hidden file reads as an empty file, not EACCES
        for rel in SECRET_FILES:
            if f"~/{rel}" in SECRET_PATHS:  # a file on the list itself, not one in a folder
                assert f"{rel}:" not in told, told


def test_the_passwd_home_is_hidden_behind_a_temporary_home(
    fake_llm, run_zen, home: Path, tmp_path: Path
) -> None:
    """Break 8: `zen bench`'s child has a temporary HOME; its sandbox hid that home's secrets
    and showed the real one's. Home is $HOME and the passwd entry's home."""
    real = Path(pwd.getpwuid(os.getuid()).pw_dir)
    if real == home or not os.access(real, os.W_OK):
        pytest.skip(f"cannot place a uniquely named file in {real}")
    planted = real / f".zen-test-secret-{uuid.uuid4().hex}"
    planted.write_text("REAL-HOME-SECRET\n")
    try:
        _, told = bash(fake_llm, run_zen, f"cat {planted}; ls -a {real}", "--yes", env=env())
    finally:
        planted.unlink()
    assert "REAL-HOME-SECRET" not in told and "No such file" in told, told
    assert told.count(planted.name) == 1, told  # in cat's error, not in the listing


def test_unix_sockets_are_allowed_with_the_network_on(
    fake_llm, run_zen, home: Path, project: Path
) -> None:
    """The filter refuses AF_UNIX only with `network: off`; socketpair works either way."""
    config(home, "sandbox_options: {network: on}\n")
    code = "import socket; socket.socket(socket.AF_UNIX); socket.socketpair(); print('UNIX-OK')"
    _, told = bash(fake_llm, run_zen, f'{PY} -c "{code}"', "--yes", env=env())
    assert "UNIX-OK" in told
    config(home, "")
    _, told = bash(fake_llm, run_zen, f'{PY} -c "{code}"', "--yes", env=env())
    assert "UNIX-OK" not in told and "Operation not permitted" in told


@pytest.mark.skipif(os.uname().machine != "x86_64" or not shutil.which("gcc"), reason="x86-64+gcc")
def test_other_abis_are_denied(fake_llm, run_zen, project: Path, tmp_path: Path) -> None:
    """i386's `int 0x80` (its `socketcall` would pass a filter on `socket`) kills the process;
    x32 calls fail with EPERM."""
    source = tmp_path / "abi.c"
    source.write_text(
        "#include <stdio.h>\nint main(void){long r;\n"
        '__asm__ volatile("syscall":"=a"(r):"a"(0x40000000|39L):"rcx","r11","memory");\n'
        'printf("x32=%ld\\n", r); fflush(stdout);\n'
        '__asm__ volatile("int $0x80":"=a"(r):"a"(20L)); printf("i386=%ld\\n", r); return 0;}\n'
    )
    subprocess.run(["gcc", "-o", str(project / "abi"), str(source)], check=True)
    _, told = bash(fake_llm, run_zen, "./abi; echo status=$?", "--yes", env=env())
    assert "x32=-1\n" in told and "i386=" not in told and "status=159" in told, told


def test_limits(fake_llm, run_zen, project: Path) -> None:
    """/tmp, /dev/shm and home are size-limited tmpfs mounts; a file is capped by
    RLIMIT_FSIZE; the command runs in zen's cgroup with pids.max where one can be made."""
    cmd = (
        "df -B1 --output=size,target /tmp /dev/shm ~ | tail -n +2; "
        f"{PY} -c 'import resource; print(\"fsize\", resource.getrlimit(resource.RLIMIT_FSIZE))'; "
        'for g in /sys/fs/cgroup/pids/zen-*; do grep -qx "$$" $g/cgroup.procs 2>/dev/null '
        '&& echo "pids.max $(cat $g/pids.max)"; done; true'
    )
    _, told = bash(fake_llm, run_zen, cmd, "--yes", env=env())
    sizes = {line.split()[1]: int(line.split()[0]) for line in told.splitlines()[:3]}
    assert sizes["/tmp"] == 1 << 30 and sizes["/dev/shm"] == 256 << 20, told
    assert list(sizes.values())[2] == 1 << 30, told
    assert f"fsize ({4 << 30}, {4 << 30})" in told
    if limits.cgroup() is not None:
        assert "pids.max 4096" in told, told


def test_everyday_commands_work_inside(
    fake_llm, run_zen, home: Path, project: Path, tmp_path: Path
) -> None:
    """A sandbox people switch off helps no one: git commit, pytest with asyncio and
    multiprocessing, pip into a venv in the workspace, make and npm where present."""
    (home / ".gitconfig").write_text("[user]\n\tname = T\n\temail = t@example.com\n")
    (project / "test_x.py").write_text(
        "import asyncio, multiprocessing\n"
        "def sq(n): return n * n\n"
        "def test_async(): assert asyncio.run(asyncio.sleep(0, 7)) == 7\n"
        "def test_pool():\n"
        "    with multiprocessing.Pool(2) as pool: assert pool.map(sq, [1, 2]) == [1, 4]\n"
    )
    pkg = project / "localpkg"
    (pkg / "localpkg").mkdir(parents=True)
    (pkg / "localpkg" / "__init__.py").write_text("VALUE = 42\n")
    (pkg / "pyproject.toml").write_text(  # hatchling: what zen's own venv builds with
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[project]\nname = "localpkg"\nversion = "1.0"\n'
    )
    (project / "Makefile").write_text("all:\n\t@echo MAKE-OK\n")
    steps = [
        "git init -q && git add test_x.py && git commit -qm one && git log --oneline | wc -l",
        f"{PY} -m pytest -q -p no:cacheprovider test_x.py 2>&1 | tail -1",
        f"{PY} -m pip wheel -q --no-deps --no-index --no-build-isolation -w dist ./localpkg && "
        f"{PY} -m venv .venv && .venv/bin/pip install -q --no-index dist/localpkg-1.0-*.whl && "
        ".venv/bin/python -c 'import localpkg; print(\"PIP\", localpkg.VALUE)'",
        "make" if shutil.which("make") else "echo MAKE-OK",
        "npm --version >/dev/null && echo NPM-OK" if shutil.which("npm") else "echo NPM-OK",
    ]
    script = [tool_calls([call("bash", {"command": c, "timeout": 300})]) for c in steps]
    fake = fake_llm([*script, text("done")])
    done = run_zen(
        "-p", "go", "--yes", "--base-url", fake.base_url, "--model", "fake-model",
        env=env(), timeout=600,
    )  # fmt: skip
    told = [m["content"] for m in fake.requests[-1]["messages"] if m["role"] == "tool"]
    assert len(told) == 5, done.err
    assert told[0].startswith("1\n"), told[0]
    assert "2 passed" in told[1], told[1]
    assert "PIP 42" in told[2], told[2]
    assert "MAKE-OK" in told[3] and "NPM-OK" in told[4], told

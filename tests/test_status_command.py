"""/status in the shell, through a pty: `zen doctor`'s lines for the session, with no request
to the endpoint unless asked (`/status --check`)."""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.platform == "win32", reason="pexpect needs a POSIX pty"),
]
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def lookups(fake: Any) -> int:
    return sum(p.rstrip("/").endswith("/models") for p in fake.paths)


def test_status_shows_doctors_lines_and_asks_only_when_told(
    fake_llm: Any, project: Path, home: Path
) -> None:
    from tests.test_shell_pty import Zen

    fake = fake_llm([], context_window=32_000)
    zen = Zen(fake, project, home)
    try:
        time.sleep(1.0)  # anything the shell asks by itself at start has been asked
        before = lookups(fake)
        out = ESCAPES.sub("", zen.task("/status"))
        for item in ("config", "endpoint", "key", "model", "context window", "mcp", "sandbox",
                     "acp", "trust"):  # fmt: skip
            assert re.search(rf"^(ok|warn|FAIL|note)\s+{item}: ", out, re.M), (item, out)
        assert f"note endpoint: {fake.base_url} (not checked: /status --check asks it)" in out
        assert "ok   key: found (--api-key)" in out
        assert "test-key" not in out
        assert lookups(fake) == before  # nothing asked
        checked = ESCAPES.sub("", zen.task("/status --check"))
        assert f"ok   endpoint: {fake.base_url} reachable" in checked, checked
        assert "ok   model: fake-model (the server serves it)" in checked
        assert lookups(fake) > before
        assert zen.exit() == 0
    finally:
        zen.close()

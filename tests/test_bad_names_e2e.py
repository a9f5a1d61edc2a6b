"""A workspace file whose name is not UTF-8 (`caf\\xe9.txt`), end to end through `zen -p`.

On 0.1.0 `glob *` raised UnicodeEncodeError while the request was serialised, the run printed
a traceback (no JSON at all with --output-format json) and, in the shell, every later request
failed the same way. Now the name is shown with U+FFFD and still works as a path.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.server import call, text, tool_calls

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file names are bytes")
SHOWN = "caf\ufffd.txt"


def has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    if isinstance(value, dict):
        return any(has_surrogate(k) or has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(has_surrogate(v) for v in value)
    return False


def script(body: dict[str, Any]) -> Any:
    """glob, then grep, then read the file by the name glob showed, then answer."""
    results = [m["content"] for m in body["messages"] if m["role"] == "tool"]
    if not results:
        return tool_calls([call("glob", {"pattern": "*"})])
    if len(results) == 1:
        return tool_calls([call("grep", {"pattern": "latte"})])
    if len(results) == 2:
        name = next(line for line in results[0].splitlines() if line.startswith("caf"))
        return tool_calls([call("read-file", {"path": name})])
    return text("done: " + results[2].splitlines()[0])


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_non_utf8_name_is_shown_and_usable(
    fake_llm, run_zen, project: Path, output_format: str
) -> None:
    (project / os.fsdecode(b"caf\xe9.txt")).write_text("one latte please\n")
    fake = fake_llm(script)
    done = run_zen(
        "-p",
        "find the cafe file",
        "--output-format",
        output_format,
        "--base-url",
        fake.base_url,
        "--api-key",
        "k",
        "--model",
        "m",
    )
    assert done.code == 0, done.err
    assert "Traceback" not in done.err
    assert len(fake.requests) == 4
    assert not any(has_surrogate(r) for r in fake.requests)
    glob_result, grep_result, read_result = (
        m["content"] for m in fake.requests[3]["messages"] if m["role"] == "tool"
    )
    assert SHOWN in glob_result
    assert f"{SHOWN}:1:one latte please" in grep_result
    assert read_result == "1\tone latte please"
    if output_format == "json":
        result = json.loads(done.out)
        assert result["is_error"] is False and result["result"] == "done: 1\tone latte please"
    else:
        assert done.out.strip() == "done: 1\tone latte please"

"""The figures issue 36 ("one turn, one path") reports, before and after.

    python dev/bench/loop_shape.py

- frames from `zen -p` to the first request: the zen frames on the stack when the model client
  is first called, counted from the one-shot front end (`run_oneshot`) to `ChatClient.stream`
  (single and dual mode; `tests/test_loop_frames.py` holds the limit);
- the modules and packages of the text protocol (edit blocks and calls written as text);
- then `dev/bench/shape.py`'s counts: files over 300 lines, functions over 50, the largest class.

Counts only; nothing is timed. It runs `zen -p` in-process against the loopback fake server.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from dev.bench import shape  # noqa: E402
from tests.fakes.server import FakeLLM, text  # noqa: E402

TEXT_PROTOCOL = (
    "agent/text_*.py",
    "agent/protocols/written_calls.py",
    "agent/protocols/edit_blocks.py",
    "agent/protocols/block_*.py",
    "llm/text_calls.py",
    "tools/files/edit_blocks.py",
    "tools/files/block_paths.py",
    "tools/files/whole_file.py",
    "tools/files/lines_ahead.py",
)
"""Where the text protocol's code lives, before (issue 36's list of 9) and after."""


def frames(mode: str) -> list[str]:
    """zen's frames from `run_oneshot` to the first `ChatClient.stream`, outermost first."""
    from zen.cli.entry import main

    zen_dir = str(ROOT / "zen")
    seen: list[list[str]] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        code = frame.f_code
        if event != "call" or seen or code.co_name != "stream":
            return
        if not code.co_filename.endswith("client.py"):
            return
        names, at = [], frame
        while at is not None:
            if at.f_code.co_filename.startswith(zen_dir):
                names.append(getattr(at.f_code, "co_qualname", at.f_code.co_name))
            at = at.f_back  # type: ignore[assignment]
        seen.append(names[::-1])

    with tempfile.TemporaryDirectory() as tmp, FakeLLM([text("ok")]) as fake:
        os.environ["HOME"] = tmp
        argv = ["-p", "hi", "-C", tmp, "--base-url", fake.base_url, "--api-key", "k"]
        argv += ["--model", "m", mode, "--output-format", "json"]
        sys.stdout.flush()
        saved = os.dup(1), os.dup(2)
        quiet = os.open(os.devnull, os.O_WRONLY)
        os.dup2(quiet, 1)  # zen's answer and notes are not the figures
        os.dup2(quiet, 2)
        sys.setprofile(profile)
        try:
            main(argv)
        finally:
            sys.setprofile(None)
            sys.stdout.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (*saved, quiet):
                os.close(fd)
    stack = seen[0]
    return stack[stack.index("run_oneshot") :]


def text_protocol() -> tuple[list[str], set[str]]:
    """The text protocol's modules (relative to zen/) and the packages that hold them."""
    zen = ROOT / "zen"
    found = sorted(
        {
            p.relative_to(zen).as_posix()
            for pattern in TEXT_PROTOCOL
            for p in zen.glob(pattern)
            if p.name != "__init__.py"
        }
    )
    return found, {"zen/" + m.rsplit("/", 1)[0] for m in found}


def main() -> None:
    for mode in ("--single", "--dual"):
        path = frames(mode)
        print(f"frames to the first request ({mode[2:]}): {len(path)}")
        print("  " + " -> ".join(path))
    modules, packages = text_protocol()
    print(f"text protocol: {len(modules)} modules in {len(packages)} package(s)")
    for module in modules:
        print(f"  {module}")
    shape.main()


if __name__ == "__main__":
    main()

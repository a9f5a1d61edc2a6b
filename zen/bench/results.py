"""Where a bench keeps what it measured, as it measures it.

A full bench on a local model takes hours, so every finished row is written at once: the whole
JSON document (header, `partial`, rows) replaces the file each time (never half a file), in
`~/.zen/bench/` by default and in `--output` when given. A run that is stopped (Ctrl-C,
SIGTERM) keeps what finished, marked `partial` with what stopped it.
"""

from __future__ import annotations

import re
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from zen.base.paths import expand_user, write_private, zen_home
from zen.bench.report import document


def default_path(model: str) -> Path:
    """`~/.zen/bench/20250102-131415-qwen2.5-coder-1.5b.json`: when and what, in a name."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", model.rsplit("/", 1)[-1]).strip("-.")[:60]
    return zen_home() / "bench" / f"{stamp}-{slug or 'model'}.json"


class Results:
    """The rows so far and the files they go to."""

    def __init__(self, header: dict[str, Any], output: str | None) -> None:
        self.header = header
        self.rows: list[dict[str, Any]] = []
        self.stopped: str | None = None
        """What stopped the bench before it finished (None: it finished, or still runs)."""
        self.finished = False
        self.path = default_path(str(header.get("model") or "model"))
        self.output = expand_user(output) if output else None
        self._warned = False

    def check_output(self) -> str:
        """Why `--output` cannot be written ("" when it can): said before any task runs."""
        if self.output is None:
            return ""
        try:
            write_private(self.output, self.text())
        except OSError as e:
            return f"cannot write {self.output}: {e.strerror or e}"
        return ""

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append(row)
        self.save()

    def stop(self, why: str) -> None:
        self.stopped = why
        self.save()

    def finish(self) -> None:
        self.finished = True
        self.save()

    @property
    def partial(self) -> bool:
        return not self.finished or self.stopped is not None

    def text(self) -> str:
        header = {**self.header, "partial": self.partial, "stopped": self.stopped}
        return document(header, self.rows)

    def save(self) -> None:
        """Both files, now, each replaced whole (a failed save leaves the last one); the
        default one only once there is a row to keep."""
        text = self.text()
        for path in (self.path if self.rows else None, self.output):
            if path is None:
                continue
            try:
                write_private(path, text)
            except OSError as e:
                self._warn(f"cannot write {path}: {e.strerror or e}")

    def where(self) -> str:
        """The last line: where the results are."""
        files = [str(p) for p in (self.path if self.rows else None, self.output) if p]
        if not files:
            return "zen bench: no run finished, nothing was kept"
        kept = "partial results" if self.partial else "results"
        return f"zen bench: {kept} in {' and '.join(files)}"

    def _warn(self, line: str) -> None:
        if not self._warned:
            self._warned = True
            print(f"zen bench: {line}", file=sys.stderr, flush=True)

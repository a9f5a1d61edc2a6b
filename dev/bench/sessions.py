"""Session store figures (issue 10): size, resume time, and what the project notes save.

  (a) store size after a 200-turn session (each turn: a task, a read-file of one of 10 files
      of 3-6 KB, an answer of ~600 characters), against the JSON of the same messages
  (b) resume time of that session: the store alone (find + load), `Session.resume`, and
      `zen -p ... --continue` end to end against a fresh `zen -p`
  (c) prompt tokens over a scripted 2-session task, with and without the project notes: the
      scripted model reads the files it has no notes for (so the saving is by construction of
      the script; what is measured is what the notes cost and what the reads they replace cost)

Run: python dev/bench/sessions.py
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.fakes.server import FakeLLM, call, text, tool_calls  # noqa: E402

TURNS = 200
FILES = 10


def make_workspace(root: Path) -> None:
    for n in range(FILES):
        body = "".join(
            f"def f{n}_{i}(x):\n    return x * {i}  # helper {i}\n" for i in range(60 + 10 * n)
        )
        (root / f"mod{n}.py").write_text(body)


def session_script(body: dict[str, Any]) -> Any:
    last = body["messages"][-1]
    if last["role"] == "user":
        n = sum(1 for m in body["messages"] if m["role"] == "user") % FILES
        return tool_calls([call("read-file", {"path": f"mod{n}.py"})], usage="estimate")
    return text("The function does what it says. " * 18, usage="estimate")


async def build_session(home: Path, root: Path, base_url: str) -> Any:
    from zen.agent.session import Session
    from zen.settings.schema import Config
    from zen.stores.sessions import SessionStore
    from zen.tools.workspace import Workspace

    config = Config(model="fake-model", base_url=base_url, api_key="k")
    store = SessionStore(home / ".zen" / "sessions.db")
    return Session(config, Workspace(root), store=store)


def size_and_resume() -> None:
    from zen.base import events as ev
    from zen.stores.sessions import SessionStore

    with tempfile.TemporaryDirectory() as tmp, FakeLLM(session_script) as fake:
        home, root = Path(tmp, "home"), Path(tmp, "ws")
        home.mkdir()
        root.mkdir()
        make_workspace(root)
        os.environ["HOME"] = str(home)

        async def run() -> Any:
            session = await build_session(home, root, fake.base_url)
            for n in range(TURNS):
                await session.run(f"explain mod{(n + 1) % FILES}.py, part {n}", ev.ignore)
            session.record.close()
            await session.aclose()
            session.record.store.close()
            return session

        appends: list[float] = []
        plain_append = SessionStore.append

        def timed_append(self: Any, *args: Any, **kw: Any) -> int:
            t = time.perf_counter()
            try:
                return plain_append(self, *args, **kw)
            finally:
                appends.append(time.perf_counter() - t)

        SessionStore.append = timed_append  # type: ignore[method-assign]
        try:
            asyncio.run(run())
        finally:
            SessionStore.append = plain_append  # type: ignore[method-assign]
        db = home / ".zen" / "sessions.db"
        store = SessionStore(db)
        sid = store.latest(str(root)).id
        store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        messages = store.messages(sid)
        raw = len(json.dumps(messages, ensure_ascii=False).encode())
        size = db.stat().st_size
        print(
            f"(a) a {TURNS}-turn session: {len(messages)} messages; saving one message "
            f"takes {statistics.median(appends) * 1000:.2f} ms (median, with the state)"
        )
        rows = store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        reasons = [b["reason"] for b in store.branches(sid)]
        print(
            f"    store on disk {size / 1024:,.0f} KiB; the active conversation as JSON "
            f"{raw / 1024:,.0f} KiB; {len(reasons) - 1} compactions kept their old "
            f"branches ({rows} message rows in all)"
        )
        store.close()

        loads = []
        for _ in range(20):
            t = time.perf_counter()
            s = SessionStore(db)
            info = s.latest(str(root))
            s.messages(info.id)
            s.memo(info.id)
            s.close()
            loads.append(time.perf_counter() - t)
        print(
            f"(b) resume a {TURNS}-turn session: open + find + load "
            f"{statistics.median(loads) * 1000:.1f} ms (median of 20)"
        )

        env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
        args = ["--base-url", fake.base_url, "--api-key", "k", "--model", "fake-model"]

        def wall(extra: list[str]) -> float:
            times = []
            for _ in range(5):
                t = time.perf_counter()
                done = subprocess.run(
                    [sys.executable, "-m", "zen", "-p", "one more", *args, *extra],
                    cwd=root,
                    env=env,
                    capture_output=True,
                )
                times.append(time.perf_counter() - t)
                assert done.returncode == 0, done.stderr
            return statistics.median(times)

        fresh = wall([])
        resumed = wall(["--resume", sid])
        print(
            f"    zen -p fresh {fresh:.2f} s, zen -p --resume (200+ turns) {resumed:.2f} s "
            f"(median of 5, wall)"
        )


# -- (c) the project notes -------------------------------------------------------------------


def notes_script(body: dict[str, Any]) -> Any:
    """Session task: learn what mod0..mod3 do. With notes on a file, it reads the note with
    `memo read` (cheap); without, it reads the file. Then it writes notes and answers."""
    messages = body["messages"]
    first = next(m["content"] for m in messages if m["role"] == "user")
    done_calls = sum(1 for m in messages if m["role"] == "tool")
    wanted = [f"mod{n}.py" for n in range(4)]
    if done_calls == 0:
        calls = []
        for name in wanted:
            if f"file:{name} (" in first:
                calls.append(call("memo", {"action": "read", "key": f"file:{name}"}))
            else:
                calls.append(call("read-file", {"path": name}))
        return tool_calls(calls, usage="estimate")
    if done_calls == 4:
        return tool_calls(
            [
                call(
                    "memo",
                    {
                        "action": "write",
                        "key": f"file:{name}",
                        "content": f"{name}: helpers f*_i(x) returning x*i; nothing else",
                        "summary": f"{name}: multiply helpers",
                    },
                )
                for name in wanted
            ],
            usage="estimate",
        )
    return text("Done: the four modules hold multiply helpers.", usage="estimate")


def notes_tokens(persist: bool) -> tuple[int, int]:
    from zen.base import events as ev
    from zen.settings.schema import MemoSettings

    with tempfile.TemporaryDirectory() as tmp, FakeLLM(notes_script) as fake:
        home, root = Path(tmp, "home"), Path(tmp, "ws")
        home.mkdir()
        root.mkdir()
        make_workspace(root)
        os.environ["HOME"] = str(home)
        per_session = []
        for task in ("what do mod0-mod3 do?", "add a helper to mod2.py like the others"):

            async def run(task: str = task) -> int:
                session = await build_session(home, root, fake.base_url)
                session.models.config = session.config.model_copy(
                    update={"memo": MemoSettings(persist="on" if persist else "off")}
                )
                session.config._project_trusted = True  # as `zen trust` would record
                session.memo_keeper.offer()
                await session.run(task, ev.ignore)
                session.record.close()
                await session.aclose()
                return sum(u.prompt_tokens for u in session.models.usage.values())

            per_session.append(asyncio.run(run()))
        return per_session[0], per_session[1]


def notes() -> None:
    off = notes_tokens(False)
    on = notes_tokens(True)
    print("(c) prompt tokens (estimated, bytes/4) over a scripted 2-session task")
    print(
        f"    without project notes: session 1 {off[0]:,}, session 2 {off[1]:,}, total {sum(off):,}"
    )
    print(
        f"    with project notes:    session 1 {on[0]:,}, session 2 {on[1]:,}, "
        f"total {sum(on):,} ({(sum(off) - sum(on)) / sum(off):.0%} fewer)"
    )


if __name__ == "__main__":
    size_and_resume()
    notes()

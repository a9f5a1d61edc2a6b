"""The session database: its schema, the migrations that bring an older file up to it, and
opening it (WAL, a busy timeout, private file modes), and the one wrapper every query goes
through, so a damaged, locked or unwritable file is one line naming it and what to do.

Kept apart from the store's queries so the schema's history reads in one place: each entry of
`MIGRATIONS` is applied once, in order, and `PRAGMA user_version` records how many were. A file
written by a newer zen (a higher version) is refused rather than misread.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from zen.base.paths import private_dir, private_file

BUSY_TIMEOUT = 10.0
"""Seconds to wait for another process's write to finish before giving up."""

MIGRATIONS: list[str] = [
    # 1: sessions, their messages on branches, blobs, memo, and the workspace's project notes
    """
    CREATE TABLE sessions(
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE,
        parent_call TEXT,
        agent TEXT NOT NULL,
        workspace TEXT NOT NULL,
        title TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL,
        agent_mode TEXT NOT NULL DEFAULT '',
        collaboration TEXT NOT NULL DEFAULT '',
        models TEXT NOT NULL DEFAULT '{}',
        branch INTEGER NOT NULL DEFAULT 0,
        state TEXT NOT NULL DEFAULT '{}',
        owner TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX sessions_by_workspace ON sessions(workspace, updated);
    CREATE INDEX sessions_by_parent ON sessions(parent_id);
    CREATE TABLE blobs(hash TEXT PRIMARY KEY, text TEXT NOT NULL);
    CREATE TABLE messages(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        branch INTEGER NOT NULL,
        seq INTEGER NOT NULL,
        role TEXT NOT NULL,
        body TEXT NOT NULL,
        blob TEXT REFERENCES blobs(hash),
        time REAL NOT NULL,
        PRIMARY KEY(session_id, branch, seq)
    ) WITHOUT ROWID;
    CREATE TABLE branches(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        branch INTEGER NOT NULL,
        parent INTEGER,
        upto INTEGER,
        reason TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY(session_id, branch)
    );
    CREATE TABLE memo(
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        summary TEXT NOT NULL,
        author TEXT NOT NULL,
        time REAL NOT NULL,
        PRIMARY KEY(session_id, key)
    );
    CREATE TABLE notes(
        workspace TEXT NOT NULL,
        key TEXT NOT NULL,
        content TEXT NOT NULL,
        summary TEXT NOT NULL,
        author TEXT NOT NULL,
        time REAL NOT NULL,
        stamp TEXT NOT NULL,
        session_id TEXT NOT NULL,
        PRIMARY KEY(workspace, key)
    );
    """,
    # 2: memo entries record the run that wrote them (older ones: '')
    """
    ALTER TABLE memo ADD COLUMN run TEXT NOT NULL DEFAULT ''
    """,
]


class SessionError(Exception):
    """One line for the user: no such session, an ambiguous id, a database that cannot open."""


def store_problem(path: Path, error: Exception) -> SessionError:
    """What went wrong with the store at `path`, and what to do, in one line."""
    said = " ".join(str(error).split())[:200]
    low = said.lower()
    if "malformed" in low or "not a database" in low or "corrupt" in low:
        todo = f"is damaged ({said}): move it aside (mv {path} {path}.damaged) for a fresh one"
    elif "locked" in low or "busy" in low:
        todo = f"is locked by another process ({said}): try again once it is done"
    elif "readonly" in low or "read-only" in low or "unable to open" in low:
        todo = f"cannot be written ({said}): check the modes of {path} and its -wal and -shm files"
    else:
        todo = f"failed ({said})"
    return SessionError(f"the session store {path} {todo}")


class Rows(list[tuple[Any, ...]]):
    """A query's rows, all read (a damaged page fails inside `execute`, not later)."""

    def fetchone(self) -> Any:  # a row or None, as sqlite3 types it
        return self[0] if self else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self)


class Database:
    """The connection, with every SQLite error turned into one `SessionError` line that
    names the store and what to do: a damaged or locked file must not become a traceback."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Rows:
        try:
            return Rows(self.connection.execute(sql, params).fetchall())
        except sqlite3.Error as e:
            raise store_problem(self.path, e) from None

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        try:
            self.connection.executemany(sql, rows)
        except sqlite3.Error as e:
            raise store_problem(self.path, e) from None

    def close(self) -> None:
        with suppress(sqlite3.Error):
            self.connection.close()


def open_database(path: Path) -> Database:
    """A connection to the database at `path`, created or migrated as needed, private to us."""
    db: Database | None = None
    try:
        private_dir(path.parent)
        private_file(path)
        _writable_sides(path)
        connection = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        db = Database(connection, path)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL: survives a killed process
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db, path)
    except (sqlite3.Error, OSError) as e:
        if db is not None:
            db.close()
        raise store_problem(path, e) from None
    except SessionError:
        if db is not None:
            db.close()
        raise
    for suffix in ("-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            private_file(side)
    return db


def _writable_sides(path: Path) -> None:
    """A -wal or -shm file of ours left read-only (a killed zen, a copy, a umask) makes SQLite
    open the store read-only, and every later run unsaved: give it back its owner's write bit."""
    for suffix in ("-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        with suppress(OSError):
            st = side.lstat()
            if stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o200:
                os.chmod(side, 0o600)


@contextmanager
def transaction(db: Database) -> Iterator[Database]:
    """One write, taken with the write lock up front (BEGIN IMMEDIATE), rolled back on error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        with suppress(SessionError):  # the first error is the one to report
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def migrate(db: Database, path: Path) -> None:
    """Apply the migrations the database at `path` has not had yet."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    if version > len(MIGRATIONS):
        raise SessionError(f"{path} was written by a newer zen (schema {version}); upgrade zen")
    if version == len(MIGRATIONS):
        return
    with transaction(db):
        version = db.execute("PRAGMA user_version").fetchone()[0]  # another process won?
        for n in range(version, len(MIGRATIONS)):
            for statement in MIGRATIONS[n].split(";"):  # executescript would commit
                if statement.strip():
                    db.execute(statement)
        db.execute(f"PRAGMA user_version={len(MIGRATIONS)}")

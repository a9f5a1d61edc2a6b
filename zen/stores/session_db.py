"""The session database: its schema, the migrations that bring an older file up to it, and
opening it (WAL, a busy timeout, private file modes).

Kept apart from the store's queries so the schema's history reads in one place: each entry of
`MIGRATIONS` is applied once, in order, and `PRAGMA user_version` records how many were. A file
written by a newer zen (a higher version) is refused rather than misread.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

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


def open_database(path: Path) -> sqlite3.Connection:
    """A connection to the database at `path`, created or migrated as needed, private to us."""
    try:
        private_dir(path.parent)
        private_file(path)
        db = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT, isolation_level=None, check_same_thread=False
        )
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL: survives a killed process
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db, path)
    except (sqlite3.Error, OSError) as e:
        raise SessionError(f"cannot open the session store {path}: {e}") from None
    for suffix in ("-wal", "-shm"):
        side = Path(f"{path}{suffix}")
        if side.exists():
            private_file(side)
    return db


@contextmanager
def transaction(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """One write, taken with the write lock up front (BEGIN IMMEDIATE), rolled back on error."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def migrate(db: sqlite3.Connection, path: Path) -> None:
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

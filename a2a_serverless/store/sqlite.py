"""A Store in one SQLite file: the kit's embedded default, stdlib `sqlite3` only.

Safe for several threads (one connection, one lock) and for several OS processes on the same
file (WAL journal, a busy timeout, and `BEGIN IMMEDIATE` for every write, so a writer takes the
file's write lock before it reads what it is about to check). A task write, its events and its
idempotency key commit in one transaction.

Calls run synchronously inside the async methods: each is a few short statements on a local
file, cheaper than a hop to a worker thread. A write may wait up to the busy timeout while
another process holds the write lock; that wait blocks the event loop.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .base import (
    IdempotencyKeyTaken,
    KeyHeld,
    StoredPushConfig,
    StoredReply,
    StoreOpenError,
    StoreUnavailable,
    TaskAlreadyExists,
    TaskEvent,
    TaskPage,
    TaskQuery,
    TaskRecord,
    VersionConflict,
    check_event_sequence,
    event_from_json,
    event_to_json,
    push_config_from_json,
    push_config_to_json,
    record_from_json,
    record_to_json,
    reply_from_json,
    reply_to_json,
)
from .bookkeeping import DEAD_LETTERS_KEY

BUSY_TIMEOUT_MS = 5000

# MIGRATIONS[n] takes a file from schema version n to n + 1 (kept in `PRAGMA user_version`).
# Append to this tuple to change the schema; never edit a step that has shipped.
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        """
        CREATE TABLE tasks (
            task_id TEXT PRIMARY KEY,
            owner TEXT NOT NULL,
            context_id TEXT NOT NULL,
            state TEXT NOT NULL,
            version INTEGER NOT NULL,
            last_seq INTEGER NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            expires_at INTEGER,
            body TEXT NOT NULL
        )
        """,
        "CREATE INDEX tasks_by_owner ON tasks (owner, updated_at DESC, task_id DESC)",
        """
        CREATE INDEX tasks_by_owner_context
            ON tasks (owner, context_id, updated_at DESC, task_id DESC)
        """,
        """
        CREATE TABLE events (
            task_id TEXT NOT NULL,
            seq INTEGER NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (task_id, seq)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE push_configs (
            task_id TEXT NOT NULL,
            config_id TEXT NOT NULL,
            owner TEXT NOT NULL,
            body TEXT NOT NULL,
            PRIMARY KEY (task_id, config_id)
        ) WITHOUT ROWID
        """,
        """
        CREATE TABLE idempotency_keys (
            key TEXT PRIMARY KEY,
            task_id TEXT NOT NULL,
            created_at INTEGER NOT NULL
        ) WITHOUT ROWID
        """,
    ),
    (
        # Direct replies (a Message, no task) under their idempotency key: the same key space
        # as idempotency_keys, which every claim of a key checks too.
        """
        CREATE TABLE replies (
            key TEXT PRIMARY KEY,
            created_at INTEGER NOT NULL,
            expires_at INTEGER,
            body TEXT NOT NULL
        ) WITHOUT ROWID
        """,
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)

_VISIBLE = "(expires_at IS NULL OR expires_at > ?)"


def _wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


class SqliteStore:
    """The Store protocol on one SQLite file. `clock` (milliseconds) decides expiry."""

    # Its name in spans (db.system.name, tracing.py).
    db_system = "sqlite"

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        clock: Callable[[], int] = _wall_clock_ms,
        create: bool = True,
    ) -> None:
        """Open the store in the file `path`; with `create` (the default) a missing file and
        its directories are made. Without it (commands that only look, e.g. the operator CLI)
        only an existing store file is opened, so a mistyped path is an error, not an empty
        new database. StoreOpenError when the file cannot be a store (a directory, a file
        that is no SQLite database, no permission)."""
        self.path = Path(path)
        self._clock = clock
        self._lock = threading.Lock()
        memory = str(path) == ":memory:"
        if not memory:
            if self.path.is_dir():
                raise StoreOpenError(f"the SQLite store {self.path} is a directory, not a file")
            if not create and not self.path.is_file():
                raise StoreOpenError(f"no SQLite store at {self.path} (no such file)")
            if create:
                try:
                    self.path.parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StoreOpenError(
                        f"cannot create the SQLite store's directory {self.path.parent}: "
                        f"{exc.strerror or exc}"
                    ) from None
        try:
            # isolation_level=None: the module opens no transactions of its own; ours are
            # explicit. Without `create`, mode=rw never makes the file (a URI path).
            self._conn = sqlite3.connect(
                self.path if create or memory else f"{self.path.resolve().as_uri()}?mode=rw",
                timeout=BUSY_TIMEOUT_MS / 1000,
                isolation_level=None,
                check_same_thread=False,
                uri=not (create or memory),
            )
        except sqlite3.Error as exc:
            raise StoreOpenError(f"cannot open the SQLite store {self.path}: {exc}") from None
        try:
            self._conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            self._conn.execute("PRAGMA journal_mode = WAL")
            # With WAL, NORMAL survives process crashes; only an OS crash may lose the last commits.
            self._conn.execute("PRAGMA synchronous = NORMAL")
            if not create and not memory:
                self._check_schema()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            raise StoreOpenError(
                f"cannot open the SQLite store {self.path}: {exc} (is it an a2a-serverless "
                "store file?)"
            ) from None
        except BaseException:
            self._conn.close()
            raise

    @property
    def local_file(self) -> str | None:
        """The store's file (`LocalFileStore`); None in memory."""
        path = str(self.path)
        return None if path == ":memory:" else path

    def _check_schema(self) -> None:
        """Refuse a database without a store's schema (empty, or another program's) rather
        than write one into it."""
        version: int = self._conn.execute("PRAGMA user_version").fetchone()[0]
        if version == 0:
            raise StoreOpenError(f"{self.path} is an SQLite database but no a2a-serverless store")

    def _migrate(self) -> None:
        with self._write() as conn:
            version: int = conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"{self.path} has store schema version {version}; this version of "
                    f"a2a-serverless knows up to {SCHEMA_VERSION}, upgrade it"
                )
            for step in MIGRATIONS[version:]:
                for statement in step:
                    conn.execute(statement)
            if version < SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """The connection's lock, with SQLite's own failures turned into `StoreUnavailable`.

        A full disk, an I/O error, a lock held past the busy timeout, a damaged file: nothing
        was written (the transaction rolled back) and the request may succeed later, as with
        an unreachable cloud store. Constraint errors are ours to handle and pass through.
        """
        with self._lock:
            try:
                yield
            except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
                raise
            except sqlite3.DatabaseError as exc:
                raise StoreUnavailable(f"the SQLite store {self.path} failed: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, holding the file's write lock from its first statement."""
        with self._locked():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
                self._conn.execute("COMMIT")
            except BaseException:
                # SQLite rolls back by itself after some errors (a second ROLLBACK would fail),
                # and not after a failed COMMIT (a full disk), which would leave it open.
                if self._conn.in_transaction:
                    with contextlib.suppress(sqlite3.Error):
                        self._conn.execute("ROLLBACK")
                raise

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        """One read transaction, so several statements see the same snapshot."""
        with self._locked():
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                if self._conn.in_transaction:
                    self._conn.execute("COMMIT")

    async def create_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> None:
        body = record_to_json(record)
        event_rows = [(record.task_id, event.seq, event_to_json(event)) for event in events]
        with self._write() as conn:
            self._check_key(conn, idempotency_key)
            if free_key is not None and self._held(conn, free_key):
                raise KeyHeld(free_key)
            exists = conn.execute(
                "SELECT 1 FROM tasks WHERE task_id = ?", (record.task_id,)
            ).fetchone()
            if exists is not None:
                raise TaskAlreadyExists(record.task_id)
            check_event_sequence(record, 0, events)
            conn.execute(
                """
                INSERT INTO tasks (task_id, owner, context_id, state, version, last_seq,
                                   created_at, updated_at, expires_at, body)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                (
                    record.task_id,
                    record.owner,
                    record.context_id,
                    record.state,
                    record.version,
                    record.last_seq,
                    record.created_at_ms,
                    record.updated_at_ms,
                    record.expires_at_ms,
                    body,
                ),
            )
            self._write_events_and_key(conn, record, event_rows, idempotency_key)

    async def update_task(
        self,
        record: TaskRecord,
        events: Sequence[TaskEvent] = (),
        *,
        idempotency_key: str | None = None,
    ) -> None:
        body = record_to_json(record)
        event_rows = [(record.task_id, event.seq, event_to_json(event)) for event in events]
        with self._write() as conn:
            self._check_key(conn, idempotency_key)
            stored = conn.execute(
                "SELECT version, last_seq FROM tasks WHERE task_id = ?", (record.task_id,)
            ).fetchone()
            if stored is None or stored[0] != record.version - 1:
                raise VersionConflict(record.task_id, record.version - 1)
            check_event_sequence(record, stored[1], events)
            conn.execute(
                """
                UPDATE tasks SET owner = ?, context_id = ?, state = ?, version = ?, last_seq = ?,
                                 created_at = ?, updated_at = ?, expires_at = ?, body = ?
                WHERE task_id = ?
                """,
                (
                    record.owner,
                    record.context_id,
                    record.state,
                    record.version,
                    record.last_seq,
                    record.created_at_ms,
                    record.updated_at_ms,
                    record.expires_at_ms,
                    body,
                    record.task_id,
                ),
            )
            self._write_events_and_key(conn, record, event_rows, idempotency_key)

    def _held(self, conn: sqlite3.Connection, key: str) -> bool:
        row = conn.execute(
            f"""
            SELECT 1 FROM idempotency_keys WHERE key = ?
            UNION ALL SELECT 1 FROM replies WHERE key = ? AND {_VISIBLE}
            """,
            (key, key, self._clock()),
        ).fetchone()
        return row is not None

    def _check_key(self, conn: sqlite3.Connection, key: str | None) -> None:
        if key is None:
            return
        row = conn.execute("SELECT task_id FROM idempotency_keys WHERE key = ?", (key,)).fetchone()
        if row is not None:
            raise IdempotencyKeyTaken(key, row[0])
        row = conn.execute(
            f"SELECT 1 FROM replies WHERE key = ? AND {_VISIBLE}", (key, self._clock())
        ).fetchone()
        if row is not None:
            raise IdempotencyKeyTaken(key, "")
        # An expired reply frees its key.
        conn.execute("DELETE FROM replies WHERE key = ?", (key,))

    def _write_events_and_key(
        self,
        conn: sqlite3.Connection,
        record: TaskRecord,
        event_rows: list[tuple[str, int, str]],
        key: str | None,
    ) -> None:
        conn.executemany("INSERT INTO events (task_id, seq, body) VALUES (?, ?, ?)", event_rows)
        if key is not None:
            conn.execute(
                "INSERT INTO idempotency_keys (key, task_id, created_at) VALUES (?, ?, ?)",
                (key, record.task_id, self._clock()),
            )

    async def get_task(self, task_id: str) -> TaskRecord | None:
        with self._locked():
            row = self._conn.execute(
                f"SELECT body FROM tasks WHERE task_id = ? AND {_VISIBLE}",
                (task_id, self._clock()),
            ).fetchone()
        return None if row is None else record_from_json(row[0])

    async def scan_dead_letters(self, after: str | None, limit: int) -> list[TaskRecord]:
        """`DeadLetterScan`: every owner's records holding dead letters, by task id (the
        filter runs in SQLite, on the stored JSON, so only those records are read)."""
        with self._read() as conn:
            rows = conn.execute(
                f"""
                SELECT body FROM tasks
                WHERE task_id > ? AND {_VISIBLE}
                AND json_array_length(body, '$.internal.{DEAD_LETTERS_KEY}') > 0
                ORDER BY task_id LIMIT ?
                """,
                (after or "", self._clock(), max(limit, 0)),
            ).fetchall()
        return [record_from_json(body) for (body,) in rows]

    async def list_tasks(self, query: TaskQuery) -> TaskPage:
        where = ["owner = ?", _VISIBLE]
        params: list[Any] = [query.owner, self._clock()]
        if query.context_id is not None:
            where.append("context_id = ?")
            params.append(query.context_id)
        if query.state is not None:
            where.append("state = ?")
            params.append(query.state)
        if query.updated_after_ms is not None:
            where.append("updated_at >= ?")
            params.append(query.updated_after_ms)
        page_where, page_params = list(where), list(params)
        if query.after is not None:
            page_where.append("(updated_at, task_id) < (?, ?)")
            page_params.extend(query.after)
        limit = max(query.limit, 0)
        with self._read() as conn:
            total: int = conn.execute(
                f"SELECT COUNT(*) FROM tasks WHERE {' AND '.join(where)}", params
            ).fetchone()[0]
            # One row past the page tells whether there is a next page.
            rows = conn.execute(
                f"""
                SELECT body FROM tasks WHERE {" AND ".join(page_where)}
                ORDER BY updated_at DESC, task_id DESC LIMIT ?
                """,
                [*page_params, limit + 1],
            ).fetchall()
        return TaskPage(
            records=[record_from_json(body) for (body,) in rows[:limit]],
            total_size=total,
            has_more=len(rows) > limit,
        )

    async def read_events(
        self, task_id: str, after_seq: int = 0, limit: int | None = None
    ) -> list[TaskEvent]:
        with self._locked():
            rows = self._conn.execute(
                "SELECT seq, body FROM events WHERE task_id = ? AND seq > ? ORDER BY seq LIMIT ?",
                # LIMIT -1 is SQLite for "no limit".
                (task_id, after_seq, -1 if limit is None else max(limit, 0)),
            ).fetchall()
        return [event_from_json(seq, body) for seq, body in rows]

    async def find_idempotency_key(self, key: str) -> str | None:
        with self._locked():
            row = self._conn.execute(
                "SELECT task_id FROM idempotency_keys WHERE key = ?", (key,)
            ).fetchone()
        return None if row is None else str(row[0])

    async def put_reply(self, reply: StoredReply) -> None:
        body = reply_to_json(reply)
        with self._write() as conn:
            self._check_key(conn, reply.key)
            conn.execute(
                "INSERT INTO replies (key, created_at, expires_at, body) VALUES (?, ?, ?, ?)",
                (reply.key, reply.created_at_ms, reply.expires_at_ms, body),
            )

    async def find_reply(self, key: str) -> StoredReply | None:
        with self._locked():
            row = self._conn.execute(
                f"SELECT body FROM replies WHERE key = ? AND {_VISIBLE}", (key, self._clock())
            ).fetchone()
        return None if row is None else reply_from_json(row[0])

    async def put_push_config(self, config: StoredPushConfig) -> None:
        if config.config.id is None:
            # The key would be ambiguous; the caller assigns ids (A2A's default is the task id).
            raise ValueError("a stored push notification config needs an id")
        row = (config.task_id, config.config.id, config.owner, push_config_to_json(config))
        with self._write() as conn:
            conn.execute(
                """
                INSERT INTO push_configs (task_id, config_id, owner, body) VALUES (?, ?, ?, ?)
                ON CONFLICT (task_id, config_id)
                DO UPDATE SET owner = excluded.owner, body = excluded.body
                """,
                row,
            )

    async def get_push_config(self, task_id: str, config_id: str) -> StoredPushConfig | None:
        with self._locked():
            row = self._conn.execute(
                "SELECT body FROM push_configs WHERE task_id = ? AND config_id = ?",
                (task_id, config_id),
            ).fetchone()
        return None if row is None else push_config_from_json(row[0])

    async def list_push_configs(self, task_id: str) -> list[StoredPushConfig]:
        with self._locked():
            rows = self._conn.execute(
                "SELECT body FROM push_configs WHERE task_id = ? ORDER BY config_id",
                (task_id,),
            ).fetchall()
        return [push_config_from_json(body) for (body,) in rows]

    async def delete_push_config(self, task_id: str, config_id: str) -> bool:
        with self._write() as conn:
            cursor = conn.execute(
                "DELETE FROM push_configs WHERE task_id = ? AND config_id = ?",
                (task_id, config_id),
            )
            return cursor.rowcount > 0

    async def close(self) -> None:
        with self._locked():
            self._conn.close()

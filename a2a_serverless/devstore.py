"""Whose tasks a dev store file holds, and what `a2a-serverless dev` says of it at start.

Every dev server in a folder opens the same default file (`sqlite:///a2a-tasks.db`). Two agents
sharing it would read and list each other's tasks, and one would take over the other's queued
turns. So a store file records the agents it is for (`a2a_dev_agents`, with the process that
last served each): a dev server whose agents do not include all of them is refused, naming the
file, its agents and what it holds, unless the file holds nothing and none of them is running.
(The queue keeps each job for its own agent too: queue/sqlite.py.)

A file from before this record, which holds tasks, is taken as the starting agents' (there is
no telling whose it was): the start-up line says so.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .exceptions import ConfigurationError
from .holders import holder_is_dead, local_holder_id
from .store.base import LocalFileStore

if TYPE_CHECKING:
    from .asgi import A2AApplication

_SCHEMA = """
CREATE TABLE IF NOT EXISTS a2a_dev_agents (
    name TEXT PRIMARY KEY,
    holder TEXT
)
"""


class StoreTakenError(ConfigurationError):
    """The store file belongs to other agents (the message says whose, and what to do)."""


@dataclass(frozen=True)
class Holdings:
    tasks: int
    active: int
    queued: int

    def describe(self) -> str:
        if not self.tasks and not self.queued:
            return "empty"
        parts = [_count(self.tasks, "task")]
        if self.active:
            parts.append(f"{self.active} not finished")
        if self.queued:
            parts.append(_count(self.queued, "queued job"))
        return ", ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _names(names: Sequence[str]) -> str:
    return ", ".join(repr(name) for name in sorted(names))


def _holdings(conn: sqlite3.Connection) -> Holdings:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    tasks = active = queued = 0
    if "tasks" in tables:
        tasks = conn.execute("SELECT COUNT(*) FROM tasks").fetchone()[0]
        active = conn.execute(
            "SELECT COUNT(*) FROM tasks WHERE state NOT IN "
            "('completed', 'canceled', 'failed', 'rejected')"
        ).fetchone()[0]
    if "a2a_jobs" in tables:
        queued = conn.execute("SELECT COUNT(*) FROM a2a_jobs").fetchone()[0]
    return Holdings(tasks, active, queued)


def claim(path: str | Path, agents: Sequence[str]) -> str:
    """Record the store file at `path` as `agents`' (the agents one dev server serves) and say
    what it holds, for the start-up line; StoreTakenError if it is other agents'."""
    ours = set(agents)
    holder = local_holder_id()
    conn = sqlite3.connect(str(path), timeout=5.0, isolation_level=None)
    try:
        conn.execute(_SCHEMA)
        conn.execute("BEGIN IMMEDIATE")
        try:
            recorded = dict(conn.execute("SELECT name, holder FROM a2a_dev_agents").fetchall())
            held = _holdings(conn)
            foreign = {name: h for name, h in recorded.items() if name not in ours}
            running = [name for name, h in foreign.items() if h and not holder_is_dead(h)]
            if foreign and (running or held.tasks or held.queued):
                why = (
                    f"a dev server of {_names(running)} is using it"
                    if running
                    else f"it holds their tasks ({held.describe()})"
                )
                raise StoreTakenError(
                    f"the store {path} is the store of {_names(list(foreign))}, not of "
                    f"{_names(list(ours))}: {why}. Give this agent a store of its own "
                    "(--store sqlite:///<name>-tasks.db), or serve it from another folder"
                )
            conn.execute("DELETE FROM a2a_dev_agents")
            conn.executemany(
                "INSERT INTO a2a_dev_agents (name, holder) VALUES (?, ?)",
                [(name, holder) for name in sorted(ours)],
            )
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()
    said = f"{held.describe()}; the tasks of {_names(list(ours))}"
    if not recorded and held.tasks:
        said += " (a file from before stores recorded their agents: taken as theirs)"
    return said


def claim_stores(apps: Sequence[A2AApplication]) -> str:
    """`claim` every SQLite store file the dev server's agents use (their agents grouped by
    file); what the store holds, said after its URL on the start-up line ("" when the store is
    no file, e.g. a cloud store; memory:// says it keeps nothing)."""
    from .store.memory import MemoryStore

    files: dict[Path, list[str]] = {}
    for app in apps:
        store = app.runtime.store
        path = _sqlite_file(store)
        if path is not None:
            files.setdefault(path, []).append(app.runtime.agent.name)
    said = [claim(path, names) for path, names in files.items()]
    if not files and all(isinstance(app.runtime.store, MemoryStore) for app in apps):
        return "in memory: nothing is kept when the server stops"
    return "; ".join(said)


def _sqlite_file(store: object) -> Path | None:
    # Asked through the protocol: a dev server on another store never loads sqlite's module.
    local_file = store.local_file if isinstance(store, LocalFileStore) else None
    return None if local_file is None else Path(local_file).resolve()

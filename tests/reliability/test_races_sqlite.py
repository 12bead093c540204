"""Races on SQLite: two SqliteStores (two connections) on one file, one per app instance.

The scenarios and their checks are in tests/reliability/races.py; docs/RELIABILITY.md ("Races")
has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete rounds (default 1000),
`A2A_RACE_TASKS` the tasks of the concurrent-messages scenario (default 50). `-s` prints a
summary line per scenario. The last test runs the checks against a store that loses updates,
to show that they find them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

from msgspec.structs import replace

from a2a_serverless.store import SqliteStore
from a2a_serverless.store.base import Store, TaskEvent, TaskRecord, VersionConflict
from tests.reliability.races import cancel_vs_complete, concurrent_messages, env_int, threads

ROUNDS = env_int("A2A_RACE_ROUNDS", 1000)
TASKS = env_int("A2A_RACE_TASKS", 50)


def sqlite_file(tmp_path: Path) -> Callable[[int], Store]:
    path = tmp_path / "races.db"
    return lambda _instance: SqliteStore(path)


async def test_cancel_racing_completion(tmp_path: Path) -> None:
    result = await cancel_vs_complete(threads(sqlite_file(tmp_path)), store="sqlite", rounds=ROUNDS)
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(tmp_path: Path) -> None:
    result = await concurrent_messages(threads(sqlite_file(tmp_path)), store="sqlite", tasks=TASKS)
    print(result.summary())
    assert result.problems == []


class Clobbering:
    """A store that loses updates: a write refused for a stale version is written anyway, over
    whatever the other writer stored (a blind last-writer-wins put)."""

    def __init__(self, inner: SqliteStore) -> None:
        self.inner = inner

    async def update_task(
        self, record: TaskRecord, events: Sequence[TaskEvent] = (), **options: Any
    ) -> None:
        try:
            await self.inner.update_task(record, events, **options)
        except VersionConflict:
            stored = await self.inner.get_task(record.task_id)
            assert stored is not None
            seqs = range(stored.last_seq + 1, stored.last_seq + 1 + len(events))
            renumbered = [
                TaskEvent(seq, event.payload) for seq, event in zip(seqs, events, strict=True)
            ]
            forced = replace(
                record, version=stored.version + 1, last_seq=stored.last_seq + len(events)
            )
            await self.inner.update_task(forced, renumbered, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def test_the_checks_catch_lost_updates(tmp_path: Path) -> None:
    # The checks are worth something only if they fail on a store that loses updates.
    path = tmp_path / "lossy.db"
    lossy = cast("Callable[[int], Store]", lambda _instance: Clobbering(SqliteStore(path)))
    result = await cancel_vs_complete(threads(lossy), store="sqlite-clobbering", rounds=100)
    print(result.summary())
    found = "\n".join(result.problems)
    assert "acknowledged versions" in found
    assert "the event log is not the acknowledged writes' events" in found

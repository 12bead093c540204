"""`DeadLetterScan` (store/base.py), which every shipped store offers: every owner's records
holding dead letters, in task id order, page by page, expired ones left out.

`DeadLetterScanContract` is the suite; it runs here on the memory and SQLite stores, and on
DynamoDB Local (tests/aws/test_dynamodb_dead_letter_scan.py) and the Firestore emulator
(tests/gcp/test_firestore_dead_letter_scan.py), each on a table or prefix of its own (the scan
sees every task there) and with the clock at `NOW_MS`."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from msgspec.structs import replace

from a2a_serverless.store import MemoryStore, SqliteStore, Store
from a2a_serverless.store.base import DeadLetterScan
from a2a_serverless.store.bookkeeping import DeadLetteredNotification, stored_updates
from a2a_serverless.testing.store_contract import make_record, status_event

NOW_MS = 2_000_000_000_000


def letter(seq: int) -> DeadLetteredNotification:
    return DeadLetteredNotification("n", "c", seq, "https://h.example/", "HTTP 400", 1, "t")


class DeadLetterScanContract:
    """Subclasses provide `store`: an empty store whose clock reads `NOW_MS`."""

    async def test_every_owners_records_with_dead_letters_by_task_id(self, store: Store) -> None:
        assert isinstance(store, DeadLetterScan)
        with_letters = stored_updates({}, dead_letters=[letter(1)])
        emptied = stored_updates({}, dead_letters=[])
        records = [
            make_record("t-3", owner="a", last_seq=1, internal=with_letters),
            make_record("t-1", owner="b", last_seq=1, internal=with_letters),
            make_record("t-2", owner="a", last_seq=1),
            make_record("t-4", owner="c", last_seq=1, internal=emptied),
            make_record("t-5", owner="c", last_seq=1, internal=with_letters),
            make_record(
                "t-6", owner="d", last_seq=1, internal=with_letters, expires_at_ms=NOW_MS - 1
            ),
        ]
        for record in records:
            await store.create_task(record, [status_event(record, 1)])
        found = await store.scan_dead_letters(None, 10)
        assert [(r.task_id, r.owner) for r in found] == [("t-1", "b"), ("t-3", "a"), ("t-5", "c")]
        assert found[0].dead_letters == [letter(1)]
        first = await store.scan_dead_letters(None, 2)
        assert [r.task_id for r in first] == ["t-1", "t-3"]
        assert [r.task_id for r in await store.scan_dead_letters("t-3", 2)] == ["t-5"]
        assert await store.scan_dead_letters("t-5", 2) == []
        assert await store.scan_dead_letters(None, 0) == []

    async def test_letters_come_and_go_with_updates(self, store: Store) -> None:
        """A dead letter recorded by an update is found; one whose letters are cleared is not."""
        assert isinstance(store, DeadLetterScan)
        record = make_record("u-1", owner="a", last_seq=1)
        await store.create_task(record, [status_event(record, 1)])
        assert await store.scan_dead_letters(None, 10) == []
        lettered = replace(
            record, version=2, internal=stored_updates({}, dead_letters=[letter(1), letter(2)])
        )
        await store.update_task(lettered)
        found = await store.scan_dead_letters(None, 10)
        assert [r.task_id for r in found] == ["u-1"]
        assert found[0].dead_letters == [letter(1), letter(2)]
        cleared = replace(record, version=3, internal=stored_updates({}, dead_letters=[]))
        await store.update_task(cleared)
        assert await store.scan_dead_letters(None, 10) == []


class TestLocalStores(DeadLetterScanContract):
    @pytest.fixture(params=["memory", "sqlite"])
    async def store(self, request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Store]:
        made: Store = (
            MemoryStore(clock=lambda: NOW_MS)
            if request.param == "memory"
            else SqliteStore(tmp_path / "s.db", clock=lambda: NOW_MS)
        )
        yield made
        await made.close()

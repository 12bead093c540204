"""`DeadLetterScan` on FirestoreStore, on the Firestore emulator: the contract suite on a
prefix of its own (the scan sees every task there), the `deadLetters` field task writes keep,
task documents written before it existed, and pages longer than one query batch."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from google.cloud.firestore import DELETE_FIELD
from msgspec.structs import replace

from a2a_serverless.store.base import Store
from a2a_serverless.store.bookkeeping import stored_updates
from a2a_serverless.testing.store_contract import make_record, status_event
from a2a_serverless_gcp.firestore import FirestoreStore
from a2a_serverless_gcp.firestore import store as store_module
from a2a_serverless_gcp.firestore.documents import document_id
from tests.contract.test_dead_letter_scan import NOW_MS, DeadLetterScanContract, letter
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix

pytestmark = pytest.mark.gcp


@pytest.fixture
async def own_prefix_store(firestore_emulator: str) -> AsyncIterator[FirestoreStore]:
    store = FirestoreStore(
        project=FIRESTORE_TEST_PROJECT, prefix=unique_prefix(), clock=lambda: NOW_MS
    )
    yield store
    await store.close()


class TestFirestoreDeadLetterScan(DeadLetterScanContract):
    @pytest.fixture
    async def store(self, own_prefix_store: FirestoreStore) -> AsyncIterator[Store]:
        yield own_prefix_store


def task_document(store: FirestoreStore, task_id: str) -> object:
    client = store._clients.current()
    return client.collection(store.collections.tasks).document(document_id(task_id))


async def dead_letters_field(store: FirestoreStore, task_id: str) -> object:
    snapshot = await task_document(store, task_id).get()  # type: ignore[attr-defined]
    return (snapshot.to_dict() or {}).get("deadLetters")


async def test_task_writes_keep_the_count_of_dead_letters(
    own_prefix_store: FirestoreStore,
) -> None:
    store = own_prefix_store
    record = make_record("c-1", owner="a", last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    assert await dead_letters_field(store, "c-1") == 0
    two = stored_updates({}, dead_letters=[letter(1), letter(2)])
    await store.update_task(replace(record, version=2, internal=two))
    assert await dead_letters_field(store, "c-1") == 2


async def test_task_documents_written_before_the_field_are_found(
    own_prefix_store: FirestoreStore,
) -> None:
    store = own_prefix_store
    with_letters = stored_updates({}, dead_letters=[letter(1)])
    for task_id, internal in [("o-1", with_letters), ("o-2", {}), ("o-3", with_letters)]:
        record = make_record(task_id, owner=task_id, last_seq=1, internal=internal)
        await store.create_task(record, [status_event(record, 1)])
        # The same document as a version without `deadLetters` wrote it.
        await task_document(store, task_id).update({"deadLetters": DELETE_FIELD})  # type: ignore[attr-defined]
        assert await dead_letters_field(store, task_id) is None
    fresh = make_record("o-4", owner="b", last_seq=1, internal=with_letters)
    await store.create_task(fresh, [status_event(fresh, 1)])
    found = await store.scan_dead_letters(None, 10)
    assert [(r.task_id, r.dead_letters) for r in found] == [
        ("o-1", [letter(1)]),
        ("o-3", [letter(1)]),
        ("o-4", [letter(1)]),
    ]
    assert [r.task_id for r in await store.scan_dead_letters("o-1", 1)] == ["o-3"]


async def test_a_page_goes_on_past_one_query_batch(
    own_prefix_store: FirestoreStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = own_prefix_store
    monkeypatch.setattr(store_module, "SCAN_BATCH", 4)
    with_letters = stored_updates({}, dead_letters=[letter(1)])
    for n in range(15):
        record = make_record(
            f"p-{n:02d}", owner="a", last_seq=1, internal=with_letters if n % 5 == 0 else {}
        )
        await store.create_task(record, [status_event(record, 1)])
    found = await store.scan_dead_letters(None, 10)
    assert [r.task_id for r in found] == ["p-00", "p-05", "p-10"]
    assert [r.task_id for r in await store.scan_dead_letters("p-00", 1)] == ["p-05"]

"""What FirestoreStore writes to Firestore (read back raw from the emulator), the TTL field,
ids Firestore refuses, ambiguous commits, the entry point, and use from several event loops."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from google.cloud.firestore import AsyncClient, AsyncWriteBatch
from google.cloud.firestore_v1.async_batch import AsyncWriteBatch as BatchClass

from a2a_serverless.models import TaskState
from a2a_serverless.store import TaskQuery, VersionConflict, open_store
from a2a_serverless.store.base import record_to_json
from a2a_serverless.testing.store_contract import (
    HOUR_MS,
    make_record,
    new_id,
    now_ms,
    push_config,
    status_event,
    step,
    with_state,
)
from a2a_serverless_gcp.firestore import FirestoreStore
from a2a_serverless_gcp.firestore.documents import (
    NEVER_EXPIRES,
    event_document_id,
    expire_at,
    key_document_id,
)
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix

pytestmark = pytest.mark.gcp


@pytest.fixture
async def raw(firestore_emulator: str) -> AsyncIterator[AsyncClient]:
    """A plain client on the emulator, to see documents as stored."""
    client = AsyncClient(project=FIRESTORE_TEST_PROJECT)
    yield client
    await client._firestore_api.transport.close()


async def task_doc(raw: AsyncClient, store: FirestoreStore, doc_id: str) -> dict[str, Any]:
    snapshot = await raw.collection(store.collections.tasks).document(doc_id).get()
    assert snapshot.exists, f"no task document {doc_id!r}"
    return snapshot.to_dict() or {}


async def sub_docs(
    raw: AsyncClient, store: FirestoreStore, task_doc_id: str, collection: str
) -> dict[str, dict[str, Any]]:
    parent = raw.collection(store.collections.tasks).document(task_doc_id)
    return {s.id: s.to_dict() or {} async for s in parent.collection(collection).stream()}


async def key_doc(raw: AsyncClient, store: FirestoreStore, key: str) -> dict[str, Any]:
    ref = raw.collection(store.collections.idempotency_keys).document(key_document_id(key))
    snapshot = await ref.get()
    assert snapshot.exists, f"no key document for {key!r}"
    return snapshot.to_dict() or {}


# --- the documents ---


async def test_task_event_and_key_documents(
    firestore_store: FirestoreStore, raw: AsyncClient
) -> None:
    store = firestore_store
    record = make_record(last_seq=2, state=TaskState.WORKING, updated_at_ms=1234)
    key = new_id("key")
    await store.create_task(
        record, [status_event(record, 1), status_event(record, 2)], idempotency_key=key
    )

    doc = await task_doc(raw, store, record.task_id)
    assert {k: v for k, v in doc.items() if k != "writeId"} == {
        "taskId": record.task_id,
        "owner": record.owner,
        "contextId": record.context_id,
        "state": "working",
        "version": 1,
        "lastSeq": 2,
        "createdAt": 1234,
        "updatedAt": 1234,
        "visibleUntil": NEVER_EXPIRES,
        # The record's dead letters, counted for scan_dead_letters.
        "deadLetters": 0,
        "body": record_to_json(record),
    }
    assert isinstance(doc["writeId"], str) and doc["writeId"]

    events = await sub_docs(raw, store, record.task_id, store.collections.events)
    assert sorted(events) == [event_document_id(1), event_document_id(2)]
    assert events[event_document_id(2)]["seq"] == 2
    assert "expireAt" not in events[event_document_id(1)]

    assert await key_doc(raw, store, key) == {
        "key": key,
        "taskId": record.task_id,
        "createdAt": pytest.approx(now_ms(), abs=60_000),
    }


async def test_expiring_task_carries_ttl_field_everywhere(
    firestore_store: FirestoreStore, raw: AsyncClient
) -> None:
    store = firestore_store
    expires = now_ms() + HOUR_MS
    record = make_record(last_seq=1, expires_at_ms=expires)
    key = new_id("key")
    await store.create_task(record, [status_event(record, 1)], idempotency_key=key)

    doc = await task_doc(raw, store, record.task_id)
    assert doc["expireAt"] == expire_at(expires)
    assert doc["visibleUntil"] == expires
    events = await sub_docs(raw, store, record.task_id, store.collections.events)
    assert events[event_document_id(1)]["expireAt"] == expire_at(expires)
    assert (await key_doc(raw, store, key))["expireAt"] == expire_at(expires)


async def test_finishing_update_stamps_earlier_documents(
    firestore_store: FirestoreStore, raw: AsyncClient
) -> None:
    """TTL deletes documents one by one: everything of the task must carry expireAt."""
    store = firestore_store
    record = make_record(last_seq=2)
    first_key, last_key = new_id("key"), new_id("key")
    await store.create_task(
        record, [status_event(record, 1), status_event(record, 2)], idempotency_key=first_key
    )
    await store.put_push_config(push_config(record.task_id, "cfg-early"))
    expires = now_ms() + HOUR_MS
    final, events = step(
        record, 1, task=with_state(record, TaskState.COMPLETED), expires_at_ms=expires
    )
    await store.update_task(final, events, idempotency_key=last_key)
    await store.put_push_config(push_config(record.task_id, "cfg-late"))

    stamp = expire_at(expires)
    assert (await task_doc(raw, store, record.task_id))["expireAt"] == stamp
    stored_events = await sub_docs(raw, store, record.task_id, store.collections.events)
    assert len(stored_events) == 3
    assert {doc_id: doc["expireAt"] for doc_id, doc in stored_events.items()} == {
        event_document_id(seq): stamp for seq in (1, 2, 3)
    }
    configs = await sub_docs(raw, store, record.task_id, store.collections.push_configs)
    assert {doc_id: doc["expireAt"] for doc_id, doc in configs.items()} == {
        "cfg-early": stamp,
        "cfg-late": stamp,
    }
    assert (await key_doc(raw, store, first_key))["expireAt"] == stamp
    assert (await key_doc(raw, store, last_key))["expireAt"] == stamp
    # The store still serves it until it expires.
    assert await store.get_task(record.task_id) == final


async def test_update_without_expiry_drops_ttl_field(
    firestore_store: FirestoreStore, raw: AsyncClient
) -> None:
    store = firestore_store
    record = make_record(expires_at_ms=now_ms() + HOUR_MS)
    await store.create_task(record)
    following, events = step(record, 1, expires_at_ms=None)
    await store.update_task(following, events)
    doc = await task_doc(raw, store, record.task_id)
    assert "expireAt" not in doc
    assert doc["visibleUntil"] == NEVER_EXPIRES


async def test_expired_task_hidden_before_ttl_deletes_it(
    firestore_store: FirestoreStore, raw: AsyncClient
) -> None:
    """The TTL policy deletes late (up to a day); reads hide an expired task at once."""
    clock = [now_ms()]
    store = FirestoreStore(
        project=FIRESTORE_TEST_PROJECT,
        prefix=firestore_store.location.prefix,
        clock=lambda: clock[0],
    )
    try:
        record = make_record(expires_at_ms=clock[0] + 1000)
        await store.create_task(record)
        assert await store.get_task(record.task_id) == record
        clock[0] += 1000
        assert await store.get_task(record.task_id) is None
        page = await store.list_tasks(TaskQuery(owner=record.owner))
        assert page.records == [] and page.total_size == 0
        assert (await task_doc(raw, store, record.task_id))["taskId"] == record.task_id
    finally:
        await store.close()


# --- ids Firestore does not accept as document ids ---


@pytest.mark.parametrize("task_id", ["a/b", "..", "__reserved__", "~tilde", "x" * 1600])
async def test_task_ids_firestore_refuses(
    firestore_store: FirestoreStore, raw: AsyncClient, task_id: str
) -> None:
    store = firestore_store
    record = make_record(task_id, last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    following, events = step(record, 1)
    await store.update_task(following, events)
    assert await store.get_task(task_id) == following
    assert [e.seq for e in await store.read_events(task_id)] == [1, 2]
    page = await store.list_tasks(TaskQuery(owner=record.owner))
    assert page.records == [following]

    config = push_config(task_id, "cfg/with/slashes")
    await store.put_push_config(config)
    assert await store.list_push_configs(task_id) == [config]
    assert await store.delete_push_config(task_id, "cfg/with/slashes") is True

    hashed = "~" + hashlib.sha256(task_id.encode()).hexdigest()
    assert (await task_doc(raw, store, hashed))["taskId"] == task_id


# --- a commit applied whose answer was lost ---


async def test_commit_applied_then_refused_on_retry_counts_as_done(
    firestore_store: FirestoreStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The library retries a commit on UNAVAILABLE, which can follow a commit that was applied:
    the retry is refused (the task moved on, the documents exist). The store recognises its
    own write by its writeId and reports success, not a conflict."""
    store = firestore_store
    original = BatchClass.commit
    retried: list[bool] = []

    async def commit_then_retry(self: AsyncWriteBatch, *args: Any, **kwargs: Any) -> Any:
        writes = list(self._write_pbs)
        await original(self, *args, **kwargs)
        self._write_pbs = writes
        retried.append(True)
        return await original(self, *args, **kwargs)

    record = make_record(last_seq=1)
    key = new_id("key")
    monkeypatch.setattr(BatchClass, "commit", commit_then_retry)
    await store.create_task(record, [status_event(record, 1)], idempotency_key=key)
    following, events = step(record, 2)
    await store.update_task(following, events, idempotency_key=new_id("key"))
    monkeypatch.undo()

    assert len(retried) == 2
    assert await store.get_task(record.task_id) == following
    assert [e.seq for e in await store.read_events(record.task_id)] == [1, 2, 3]
    assert await store.find_idempotency_key(key) == record.task_id
    # A real conflict is still one.
    with pytest.raises(VersionConflict):
        await store.update_task(*step(record, 1))


# --- construction from the URL and use from several event loops ---


async def test_open_store_round_trip(firestore_store_url: str) -> None:
    store = open_store(firestore_store_url)
    assert isinstance(store, FirestoreStore)
    try:
        record = make_record()
        await store.create_task(record)
        assert await store.get_task(record.task_id) == record
    finally:
        await store.close()


def test_one_store_on_many_event_loops(firestore_emulator: str) -> None:
    """Hosts may run `asyncio.run` per request or a loop per thread: each loop gets a client."""
    store = FirestoreStore(project=FIRESTORE_TEST_PROJECT, prefix=unique_prefix())
    record = make_record(last_seq=1)
    asyncio.run(store.create_task(record, [status_event(record, 1)]))
    # A second loop, after the first was closed.
    assert asyncio.run(store.get_task(record.task_id)) == record

    def in_thread(n: int) -> int:
        async def read() -> int:
            got = await store.get_task(record.task_id)
            assert got == record
            return len(await store.read_events(record.task_id)) + n

        return asyncio.run(read())

    with ThreadPoolExecutor(4) as pool:
        assert sorted(pool.map(in_thread, range(4))) == [1, 2, 3, 4]

    # A long-lived loop in another thread, still running when the store is closed elsewhere.
    loop = asyncio.new_event_loop()
    runner = threading.Thread(target=loop.run_forever, daemon=True)
    runner.start()
    try:
        future = asyncio.run_coroutine_threadsafe(store.get_task(record.task_id), loop)
        assert future.result(timeout=60) == record

        async def close_from_here() -> None:
            await store.close()

        asyncio.run(close_from_here())
        # That closed the other loop's client too (on its own loop); a later call there gets
        # a new one.
        future = asyncio.run_coroutine_threadsafe(store.get_task(record.task_id), loop)
        assert future.result(timeout=60) == record
        asyncio.run_coroutine_threadsafe(store.close(), loop).result(timeout=60)
    finally:
        loop.call_soon_threadsafe(loop.stop)
        runner.join(timeout=30)
        loop.close()

"""Large tasks on Firestore: compressed bodies, and a clear error (with nothing written) past
Firestore's limits of 1 MiB per document, 500 writes per commit and 10 MiB per request."""

from __future__ import annotations

import base64
import os
import zlib
from typing import Any

import pytest
from google.cloud.firestore import AsyncClient

from a2a_serverless.models import Artifact, Part, Task, TaskArtifactUpdateEvent
from a2a_serverless.store import TaskEvent, TaskQuery, TaskRecord
from a2a_serverless.store.base import record_to_json
from a2a_serverless.testing.store_contract import make_record, new_id, status_event, step
from a2a_serverless_gcp.firestore import FirestoreLimitExceeded, FirestoreStore
from a2a_serverless_gcp.firestore.documents import (
    COMPRESS_FROM_BYTES,
    MAX_DOCUMENT_BYTES,
    MAX_VALUE_BYTES,
    MAX_WRITES_PER_COMMIT,
)
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT

pytestmark = pytest.mark.gcp


def noise(n_bytes: int) -> str:
    """Text that zlib shrinks only back to about `n_bytes` (base64 of random bytes)."""
    return base64.b64encode(os.urandom(n_bytes)).decode()


def with_artifact(record: TaskRecord, text: str) -> Task:
    return record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="big", parts=[Part(text=text)])]},
        deep=True,
    )


def artifact_event(record: TaskRecord, seq: int, text: str) -> TaskEvent:
    return TaskEvent(
        seq=seq,
        payload=TaskArtifactUpdateEvent(
            task_id=record.task_id,
            context_id=record.context_id,
            artifact=Artifact(artifact_id="big", parts=[Part(text=text)]),
        ),
    )


async def raw_task(store: FirestoreStore, task_id: str) -> dict[str, Any]:
    client = AsyncClient(project=FIRESTORE_TEST_PROJECT)
    try:
        snapshot = await client.collection(store.collections.tasks).document(task_id).get()
        return snapshot.to_dict() or {}
    finally:
        await client._firestore_api.transport.close()


async def test_large_task_is_stored_compressed(firestore_store: FirestoreStore) -> None:
    store = firestore_store
    # 3 MB of JSON: three times a document's limit, a fraction of it compressed.
    base = make_record(last_seq=1)
    record = make_record(
        base.task_id,
        owner=base.owner,
        last_seq=1,
        task=with_artifact(base, "all work and no play " * 150_000),
    )
    event = artifact_event(record, 1, "chunk " * 200_000)
    await store.create_task(record, [event])

    assert await store.get_task(record.task_id) == record
    assert await store.read_events(record.task_id) == [event]
    assert (await store.list_tasks(TaskQuery(owner=record.owner))).records == [record]
    body = (await raw_task(store, record.task_id))["body"]
    assert isinstance(body, bytes) and len(body) < MAX_DOCUMENT_BYTES
    assert zlib.decompress(body).decode() == record_to_json(record)


async def test_small_task_body_stays_readable(firestore_store: FirestoreStore) -> None:
    record = make_record()
    await firestore_store.create_task(record)
    body = (await raw_task(firestore_store, record.task_id))["body"]
    assert isinstance(body, str) and len(body) < COMPRESS_FROM_BYTES


async def test_task_over_a_document_refused_and_nothing_written(
    firestore_store: FirestoreStore,
) -> None:
    store = firestore_store
    base = make_record(last_seq=1)
    huge = make_record(
        base.task_id, owner=base.owner, last_seq=1, task=with_artifact(base, noise(1_200_000))
    )
    key = new_id("key")
    with pytest.raises(FirestoreLimitExceeded) as raised:
        await store.create_task(huge, [status_event(huge, 1)], idempotency_key=key)
    error = raised.value
    # Its body alone is over what one field may hold (1 MiB less 89 bytes).
    assert error.task_id == base.task_id and error.what == "task document body"
    assert error.size > error.limit == MAX_VALUE_BYTES
    assert f"{MAX_VALUE_BYTES:,}" in str(error)
    assert await store.get_task(base.task_id) is None
    assert await store.read_events(base.task_id) == []
    assert await store.find_idempotency_key(key) is None

    # A body under a field's limit, with query fields that take the document past 1 MiB.
    wide = make_record(context_id=noise(500_000))
    with pytest.raises(FirestoreLimitExceeded) as raised:
        await store.create_task(wide)
    assert raised.value.what == "task document size"
    assert raised.value.size > raised.value.limit == MAX_DOCUMENT_BYTES
    assert await store.get_task(wide.task_id) is None

    # An update growing past the limit leaves the stored task as it was.
    await store.create_task(base, [status_event(base, 1)])
    grown, events = step(base, 1, task=with_artifact(base, noise(1_200_000)))
    with pytest.raises(FirestoreLimitExceeded):
        await store.update_task(grown, events)
    assert await store.get_task(base.task_id) == base
    assert len(await store.read_events(base.task_id)) == 1


async def test_event_over_a_document_refused(firestore_store: FirestoreStore) -> None:
    store = firestore_store
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    following = record.next(last_seq=2, updated_at_ms=record.updated_at_ms + 1)
    with pytest.raises(FirestoreLimitExceeded) as raised:
        await store.update_task(following, [artifact_event(following, 2, noise(1_200_000))])
    assert raised.value.what == "event document body"
    assert await store.get_task(record.task_id) == record
    assert len(await store.read_events(record.task_id)) == 1


async def test_writes_per_commit(firestore_store: FirestoreStore) -> None:
    store = firestore_store
    # The task and 499 events: 500 writes, the most one commit takes.
    most = MAX_WRITES_PER_COMMIT - 1
    record = make_record(last_seq=most)
    events = [status_event(record, seq) for seq in range(1, most + 1)]
    await store.create_task(record, events)
    read = await store.read_events(record.task_id)
    assert [e.seq for e in read] == list(range(1, most + 1))
    assert await store.read_events(record.task_id, after_seq=490, limit=3) == events[490:493]

    # One more event, or a key to claim as well, is one write too many.
    too_many = make_record(last_seq=most + 1)
    with pytest.raises(FirestoreLimitExceeded) as raised:
        await store.create_task(
            too_many, [status_event(too_many, seq) for seq in range(1, most + 2)]
        )
    assert (raised.value.what, raised.value.size) == ("writes per commit", 501)
    keyed = make_record(last_seq=most)
    with pytest.raises(FirestoreLimitExceeded):
        await store.create_task(
            keyed,
            [status_event(keyed, seq) for seq in range(1, most + 1)],
            idempotency_key=new_id("key"),
        )
    assert await store.get_task(too_many.task_id) is None
    assert await store.get_task(keyed.task_id) is None


async def test_commit_over_ten_mebibytes_refused(firestore_store: FirestoreStore) -> None:
    store = firestore_store
    record = make_record(last_seq=12)
    # Twelve events, each under a document's limit, 10.8 MB together.
    events = [artifact_event(record, seq, noise(900_000)) for seq in range(1, 13)]
    with pytest.raises(FirestoreLimitExceeded) as raised:
        await store.create_task(record, events)
    assert raised.value.what == "commit size"
    assert await store.get_task(record.task_id) is None
    assert await store.read_events(record.task_id) == []

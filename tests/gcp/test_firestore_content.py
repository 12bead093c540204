"""Large parts in Cloud Storage (gcp-storage-emulator) beside the Firestore emulator: what the
task document keeps, what the bucket holds, and that failed writes, finished tasks and old
records are handled (a2a_serverless.store.content, a2a_serverless_gcp.cloud_storage)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from msgspec.structs import replace

from a2a_serverless.models import Artifact, Part, TaskState, TaskStatus
from a2a_serverless.store.base import (
    StoreUnavailable,
    TaskEvent,
    TaskQuery,
    TaskRecord,
    VersionConflict,
)
from a2a_serverless.store.content import ContentCorrupt, ContentMissing, task_prefix
from a2a_serverless.testing.store_contract import (
    large_file,
    large_text,
    make_record,
    now_ms,
    step,
    with_state,
)
from a2a_serverless_gcp.cloud_storage import CloudStorageContentStore
from a2a_serverless_gcp.firestore import FirestoreStore, open_firestore_store
from tests.gcp.conftest import FIRESTORE_TEST_PROJECT, unique_prefix

pytestmark = pytest.mark.gcp


@pytest.fixture
def bucket(storage_bucket: str) -> Any:
    from google.cloud import storage  # type: ignore[attr-defined]

    return storage.Client(project=FIRESTORE_TEST_PROJECT).bucket(storage_bucket)


@pytest.fixture
def prefix(firestore_emulator: str) -> str:
    return unique_prefix()


def make_store(prefix: str, content: CloudStorageContentStore | None) -> FirestoreStore:
    return FirestoreStore(project=FIRESTORE_TEST_PROJECT, prefix=prefix, content=content)


def fresh_content(storage_bucket: str) -> CloudStorageContentStore:
    """A content store with nothing cached: what another instance would read through."""
    return CloudStorageContentStore(storage_bucket, project=FIRESTORE_TEST_PROJECT)


def names(bucket: Any, task_id: str) -> list[str]:
    return sorted(
        blob.name for blob in bucket.client.list_blobs(bucket, prefix=task_prefix(task_id))
    )


async def with_artifact(store: FirestoreStore, text: str) -> TaskRecord:
    record = make_record(state=TaskState.WORKING)
    await store.create_task(record)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[Part(text=text)])]}
    )
    following = record.next(task=task)
    await store.update_task(following)
    return following


async def body_size(store: FirestoreStore, task_id: str) -> int:
    client = store._clients.current()
    snapshot = await store._task_ref(client, task_id).get()
    return len(snapshot.get("body"))


async def test_a_1_mb_artifact_leaves_the_document(
    prefix: str, cloud_storage_content: CloudStorageContentStore, bucket: Any
) -> None:
    store = make_store(prefix, cloud_storage_content)
    record = await with_artifact(store, large_text(1_000_000))
    stored = names(bucket, record.task_id)
    assert len(stored) == 1
    sizes = [await body_size(store, record.task_id)]
    for state in [TaskState.WORKING] * 4 + [TaskState.COMPLETED]:
        current = await store.get_task(record.task_id)
        assert current is not None
        record, events = step(current, 1, task=with_state(current, state))
        await store.update_task(record, events)
        sizes.append(await body_size(store, record.task_id))
    assert names(bucket, record.task_id) == stored
    assert max(sizes) < 4096, sizes
    got = await make_store(prefix, fresh_content(bucket.name)).get_task(record.task_id)
    assert got == record


async def test_a_write_that_fails_removes_what_it_uploaded(
    prefix: str, cloud_storage_content: CloudStorageContentStore, bucket: Any
) -> None:
    store = make_store(prefix, cloud_storage_content)
    record = await with_artifact(store, large_text(100_000))
    before = names(bucket, record.task_id)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-2", parts=[large_file(200_000)])]}
    )
    with pytest.raises(VersionConflict):
        await store.update_task(replace(record, version=record.version - 1).next(task=task))
    assert names(bucket, record.task_id) == before


async def test_the_write_that_finishes_a_task_sets_its_contents_custom_time(
    prefix: str, cloud_storage_content: CloudStorageContentStore, bucket: Any
) -> None:
    store = make_store(prefix, cloud_storage_content)
    record = await with_artifact(store, large_text(50_000))
    expires_at_ms = now_ms() + 3_600_000
    finished, events = step(
        record, 1, task=with_state(record, TaskState.COMPLETED), expires_at_ms=expires_at_ms
    )
    final = [
        TaskEvent(
            seq=e.seq,
            payload=e.payload.model_copy(update={"status": TaskStatus(state=TaskState.COMPLETED)}),
        )
        for e in events
    ]
    await store.update_task(finished, final)
    (name,) = names(bucket, record.task_id)
    blob = bucket.get_blob(name)
    assert blob.custom_time == datetime.datetime.fromtimestamp(
        expires_at_ms / 1000, tz=datetime.UTC
    )
    got = await make_store(prefix, fresh_content(bucket.name)).get_task(record.task_id)
    assert got == finished


async def test_records_written_without_a_bucket_read_the_same_with_one(
    prefix: str, cloud_storage_content: CloudStorageContentStore
) -> None:
    record = await with_artifact(make_store(prefix, None), large_text(100_000))
    after = make_store(prefix, cloud_storage_content)
    assert await after.get_task(record.task_id) == record
    assert (await after.list_tasks(TaskQuery(owner=record.owner))).records == [record]


async def test_missing_or_altered_content_is_a_typed_error(
    prefix: str, cloud_storage_content: CloudStorageContentStore, bucket: Any
) -> None:
    record = await with_artifact(make_store(prefix, cloud_storage_content), large_text(40_000))
    (name,) = names(bucket, record.task_id)
    bucket.blob(name).upload_from_string(b'{"kind":"text","text":"other"}')
    with pytest.raises(ContentCorrupt):
        await make_store(prefix, fresh_content(bucket.name)).get_task(record.task_id)
    bucket.blob(name).delete()
    with pytest.raises(ContentMissing):
        await make_store(prefix, fresh_content(bucket.name)).get_task(record.task_id)


def test_the_store_url_names_the_bucket() -> None:
    store = open_firestore_store("firestore://p/(default)?prefix=x&content=gs://a2a-content/agents")
    assert store.offloader is not None
    content = store.offloader.content
    assert isinstance(content, CloudStorageContentStore)
    assert (content.bucket_name, content.prefix) == ("a2a-content", "agents/")
    with pytest.raises(ValueError, match="gs://"):
        open_firestore_store("firestore://p?content=s3://a2a-content")


async def test_content_that_cannot_be_uploaded_writes_no_task(prefix: str) -> None:
    nowhere = CloudStorageContentStore("a2a-no-such-bucket", project=FIRESTORE_TEST_PROJECT)
    record = make_record(state=TaskState.WORKING)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[large_file(100_000)])]}
    )
    record = replace(record, task=task)
    with pytest.raises(StoreUnavailable, match="a2a-no-such-bucket"):
        await make_store(prefix, nowhere).create_task(record)
    assert await make_store(prefix, None).get_task(record.task_id) is None

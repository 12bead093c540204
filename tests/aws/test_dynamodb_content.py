"""Large parts in S3 (moto server) beside DynamoDB Local: what the task item keeps, what the
bucket holds, and that failed writes, finished tasks and old records are handled
(a2a_serverless.store.content, a2a_serverless_aws.s3content)."""

from __future__ import annotations

import math
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
from a2a_serverless.store.content import (
    REFERENCE_KEY,
    ContentCorrupt,
    ContentMissing,
    task_prefix,
)
from a2a_serverless.testing.store_contract import (
    large_file,
    large_text,
    make_record,
    now_ms,
    step,
    with_state,
)
from a2a_serverless_aws.dynamodb import DynamoDBStore, codec, open_dynamodb_store
from a2a_serverless_aws.s3content import EXPIRING_TAG, S3ContentStore
from tests.aws.conftest import DYNAMODB_TEST_REGION

pytestmark = pytest.mark.aws


@pytest.fixture
def s3(moto_endpoint: str) -> Any:
    import boto3  # type: ignore[import-untyped]

    return boto3.client("s3", endpoint_url=moto_endpoint, region_name=DYNAMODB_TEST_REGION)


def make_store(endpoint: str, table: str, content: S3ContentStore | None) -> DynamoDBStore:
    return DynamoDBStore(table, region=DYNAMODB_TEST_REGION, endpoint_url=endpoint, content=content)


@pytest.fixture
def store(dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore) -> DynamoDBStore:
    return make_store(dynamodb_endpoint, dynamodb_table, s3_content)


def objects(s3: Any, bucket: str, task_id: str) -> list[str]:
    found = s3.list_objects_v2(Bucket=bucket, Prefix=task_prefix(task_id)).get("Contents", [])
    return sorted(item["Key"] for item in found)


def task_item_size(store: DynamoDBStore, task_id: str) -> int:
    item = store.item_class.get(codec.task_pk(task_id), codec.TASK_SK, consistent_read=True)
    return codec.item_size(item.serialize())


async def with_artifact(store: DynamoDBStore, text: str) -> TaskRecord:
    record = make_record(state=TaskState.WORKING)
    await store.create_task(record)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[Part(text=text)])]}
    )
    following = record.next(task=task)
    await store.update_task(following)
    return following


async def test_a_1_mb_artifact_leaves_the_item_and_status_changes_stay_flat(
    store: DynamoDBStore, s3: Any, s3_bucket: str
) -> None:
    record = await with_artifact(store, large_text(1_000_000))
    stored = objects(s3, s3_bucket, record.task_id)
    assert len(stored) == 1
    sizes = [task_item_size(store, record.task_id)]
    for state in [TaskState.WORKING] * 9 + [TaskState.COMPLETED]:
        current = await store.get_task(record.task_id)
        assert current is not None
        record, events = step(current, 1, task=with_state(current, state))
        await store.update_task(record, events)
        sizes.append(task_item_size(store, record.task_id))
    # One object, uploaded once; each status change writes a small item (a few write units).
    assert objects(s3, s3_bucket, record.task_id) == stored
    assert max(sizes) < 4096, sizes
    assert max(math.ceil(size / 1024) for size in sizes) <= 4
    got = await store.get_task(record.task_id)
    assert got is not None and codec_text(got) == codec_text(record)


def codec_text(record: TaskRecord) -> str:
    assert record.task.artifacts is not None
    part = record.task.artifacts[0].parts[0]
    assert part.text is not None
    return part.text


async def test_a_write_that_fails_removes_what_it_uploaded(
    store: DynamoDBStore, s3: Any, s3_bucket: str
) -> None:
    record = await with_artifact(store, large_text(100_000))
    before = objects(s3, s3_bucket, record.task_id)
    stale = replace(record, version=record.version - 1)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-2", parts=[large_file(200_000)])]}
    )
    with pytest.raises(VersionConflict):
        await store.update_task(stale.next(task=task))
    assert objects(s3, s3_bucket, record.task_id) == before


async def test_the_write_that_finishes_a_task_marks_its_content_to_expire(
    store: DynamoDBStore, s3: Any, s3_bucket: str
) -> None:
    record = await with_artifact(store, large_text(50_000))
    finished, events = step(
        record,
        1,
        task=with_state(record, TaskState.COMPLETED),
        expires_at_ms=now_ms() + 3_600_000,
    )
    finished_events = [
        TaskEvent(
            seq=e.seq,
            payload=e.payload.model_copy(update={"status": TaskStatus(state=TaskState.COMPLETED)}),
        )
        for e in events
    ]
    await store.update_task(finished, finished_events)
    (key,) = objects(s3, s3_bucket, record.task_id)
    tags = s3.get_object_tagging(Bucket=s3_bucket, Key=key)["TagSet"]
    assert {"Key": EXPIRING_TAG, "Value": "true"} in tags
    # Marking copies the object onto itself: its content is unchanged.
    got = await make_store(
        store.endpoint_url or "",
        store.table_name,
        S3ContentStore(s3_bucket, endpoint_url=s3.meta.endpoint_url),
    ).get_task(record.task_id)
    assert got is not None and codec_text(got) == codec_text(record)


async def test_records_written_without_a_bucket_read_the_same_with_one(
    dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore
) -> None:
    before = make_store(dynamodb_endpoint, dynamodb_table, None)
    record = await with_artifact(before, large_text(100_000))
    after = make_store(dynamodb_endpoint, dynamodb_table, s3_content)
    assert await after.get_task(record.task_id) == record
    page = await after.list_tasks(TaskQuery(owner=record.owner))
    assert page.records == [record]


async def test_a_client_part_shaped_like_a_reference_is_kept_as_it_was(
    store: DynamoDBStore,
) -> None:
    record = make_record(state=TaskState.WORKING)
    lookalike = Part(data={REFERENCE_KEY: {"key": "x", "sha256": "0" * 64, "size": 1}})
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[lookalike])]}
    )
    record = replace(record, task=task)
    await store.create_task(record)
    assert await store.get_task(record.task_id) == record


async def test_missing_or_altered_content_is_a_typed_error(
    dynamodb_endpoint: str, dynamodb_table: str, s3_content: S3ContentStore, s3: Any, s3_bucket: str
) -> None:
    writer = make_store(dynamodb_endpoint, dynamodb_table, s3_content)
    record = await with_artifact(writer, large_text(40_000))
    (key,) = objects(s3, s3_bucket, record.task_id)
    s3.put_object(Bucket=s3_bucket, Key=key, Body=b'{"kind":"text","text":"other"}')
    fresh = S3ContentStore(
        s3_bucket, region=DYNAMODB_TEST_REGION, endpoint_url=s3.meta.endpoint_url
    )
    with pytest.raises(ContentCorrupt):
        await make_store(dynamodb_endpoint, dynamodb_table, fresh).get_task(record.task_id)
    s3.delete_object(Bucket=s3_bucket, Key=key)
    fresh = S3ContentStore(
        s3_bucket, region=DYNAMODB_TEST_REGION, endpoint_url=s3.meta.endpoint_url
    )
    with pytest.raises(ContentMissing):
        await make_store(dynamodb_endpoint, dynamodb_table, fresh).get_task(record.task_id)


def test_the_store_url_names_the_bucket(
    dynamodb_store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = open_dynamodb_store(f"{dynamodb_store_url}&content=s3://a2a-content/agents")
    assert store.offloader is not None
    content = store.offloader.content
    assert isinstance(content, S3ContentStore)
    assert (content.bucket, content.prefix) == ("a2a-content", "agents/")
    with pytest.raises(ValueError, match="s3://"):
        open_dynamodb_store(f"{dynamodb_store_url}&content=gs://a2a-content")
    with pytest.raises(ValueError, match="bucket name"):
        open_dynamodb_store(f"{dynamodb_store_url}&content=s3://A_B")


async def test_content_that_cannot_be_uploaded_writes_no_task(
    dynamodb_endpoint: str, dynamodb_table: str, moto_endpoint: str, store: DynamoDBStore
) -> None:
    nowhere = S3ContentStore(
        "a2a-no-such-bucket", region=DYNAMODB_TEST_REGION, endpoint_url=moto_endpoint
    )
    failing = make_store(dynamodb_endpoint, dynamodb_table, nowhere)
    record = make_record(state=TaskState.WORKING)
    task = record.task.model_copy(
        update={"artifacts": [Artifact(artifact_id="a-1", parts=[large_file(100_000)])]}
    )
    record = replace(record, task=task)
    with pytest.raises(StoreUnavailable, match="a2a-no-such-bucket"):
        await failing.create_task(record)
    assert await store.get_task(record.task_id) is None

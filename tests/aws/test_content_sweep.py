"""The sweep of content nobody can reference, on DynamoDB Local and S3 (moto): the objects of a
task write that never committed (uploaded, then the process died before the task's first
write) are deleted once they are old enough; a task's own objects, referenced or left by a
write of unknown outcome, stay (they go with the task when it finishes). Through the store and
through `a2a-serverless content sweep`."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any
from urllib.parse import quote

import pytest

from a2a_serverless.cli import main
from a2a_serverless.models import Artifact, Part, TaskState
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.testing.store_contract import large_text, make_record
from a2a_serverless_aws.dynamodb import DynamoDBStore
from a2a_serverless_aws.s3content import S3ContentStore
from tests.aws.conftest import DYNAMODB_TEST_REGION

pytestmark = pytest.mark.aws


def with_text(record: TaskRecord, text: str, artifact_id: str = "a-1") -> TaskRecord:
    artifact = Artifact(artifact_id=artifact_id, parts=[Part(text=text)])
    return record.next(task=record.task.model_copy(update={"artifacts": [artifact]}))


def keys(s3: Any, bucket: str, prefix: str) -> list[str]:
    found = s3.list_objects_v2(Bucket=bucket, Prefix=prefix).get("Contents", [])
    return sorted(item["Key"][len(prefix) :] for item in found)


@pytest.fixture
def s3(moto_endpoint: str) -> Any:
    import boto3  # type: ignore[import-untyped]

    return boto3.client("s3", endpoint_url=moto_endpoint, region_name=DYNAMODB_TEST_REGION)


@pytest.fixture
def prefix() -> str:
    # A prefix of its own: the bucket is shared with the other tests.
    return f"sweep-{uuid.uuid4().hex[:8]}/"


@pytest.fixture
async def store(
    dynamodb_endpoint: str, dynamodb_table: str, moto_endpoint: str, s3_bucket: str, prefix: str
) -> Any:
    content = S3ContentStore(
        s3_bucket, prefix=prefix, region=DYNAMODB_TEST_REGION, endpoint_url=moto_endpoint
    )
    store = DynamoDBStore(
        dynamodb_table, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint, content=content
    )
    yield store
    await store.close()


async def three_kinds(store: DynamoDBStore) -> tuple[TaskRecord, list[str], list[str]]:
    """A task with a referenced large part; an unreferenced object of that task (a write whose
    outcome was unknown); the objects of a task that never came to be. Returns the task, the
    task's keys and the ghost's keys."""
    assert store.offloader is not None
    created = make_record(state=TaskState.WORKING)
    await store.create_task(created)
    kept = with_text(created, large_text(100_000))
    await store.update_task(kept)
    unknown = await store.offloader.offload(with_text(kept, large_text(90_000, seed=1), "a-2"), [])
    ghost = await store.offloader.offload(
        with_text(make_record(state=TaskState.WORKING), large_text(80_000, seed=2)), []
    )
    assert unknown.uploaded and ghost.uploaded
    task_keys = [key for key in (await store.offloader.content.listed("tasks/"))]
    ours = sorted(k for k, _ in task_keys if k.startswith(f"tasks/{quote(kept.task_id)}/"))
    return kept, ours, sorted(ghost.uploaded)


async def test_the_content_of_a_task_that_never_came_to_be_is_swept(
    store: DynamoDBStore, s3: Any, s3_bucket: str, prefix: str
) -> None:
    kept, task_keys, ghost_keys = await three_kinds(store)
    assert len(task_keys) == 2 and len(ghost_keys) == 1
    # Young content is left alone: its task's write may be under way.
    assert await store.sweep_content() == []
    assert keys(s3, s3_bucket, prefix) == sorted(task_keys + ghost_keys)

    assert sorted(await store.sweep_content(older_than_s=0)) == ghost_keys
    assert keys(s3, s3_bucket, prefix) == task_keys
    got = await store.get_task(kept.task_id)
    assert got is not None and got.task.artifacts == kept.task.artifacts
    assert await store.sweep_content(older_than_s=0) == []


async def test_the_operator_command_sweeps(
    store: DynamoDBStore,
    s3: Any,
    s3_bucket: str,
    prefix: str,
    dynamodb_store_url: str,
    moto_endpoint: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _kept, task_keys, ghost_keys = await three_kinds(store)
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", moto_endpoint)
    url = f"{dynamodb_store_url}&content=s3://{s3_bucket}/{prefix.rstrip('/')}"
    # In a thread: the command runs its own event loop.
    sweep = ["content", "sweep", "--store", url, "--older-than", "0", "--json"]
    assert await asyncio.to_thread(main, sweep) == 0
    assert sorted(json.loads(capsys.readouterr().out)["swept"]) == ghost_keys
    assert keys(s3, s3_bucket, prefix) == task_keys

    # A store without a bucket has nothing to sweep, and says so.
    bucketless = ["content", "sweep", "--store", dynamodb_store_url]
    assert await asyncio.to_thread(main, bucketless) == 1
    assert "keeps no content in a bucket" in capsys.readouterr().err

"""The sweep of content nobody can reference, on the Firestore emulator and gcp-storage-emulator:
the objects of a task write that never committed are deleted once old enough; a task's own
objects stay (tests/aws/test_content_sweep.py has the same on S3, and the command)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from urllib.parse import quote

import pytest

from a2a_serverless.models import Artifact, Part, TaskState
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.testing.store_contract import large_text, make_record
from a2a_serverless_gcp.firestore import FirestoreStore, open_firestore_store

pytestmark = pytest.mark.gcp


def with_text(record: TaskRecord, text: str, artifact_id: str = "a-1") -> TaskRecord:
    artifact = Artifact(artifact_id=artifact_id, parts=[Part(text=text)])
    return record.next(task=record.task.model_copy(update={"artifacts": [artifact]}))


@pytest.fixture
async def store(firestore_store_url: str, storage_bucket: str) -> AsyncIterator[FirestoreStore]:
    # A prefix of its own: the bucket is shared with the other tests.
    prefix = f"sweep-{uuid.uuid4().hex[:8]}"
    store = open_firestore_store(f"{firestore_store_url}&content=gs://{storage_bucket}/{prefix}")
    yield store
    await store.close()


async def test_the_content_of_a_task_that_never_came_to_be_is_swept(
    store: FirestoreStore,
) -> None:
    offloader = store.offloader
    assert offloader is not None
    created = make_record(state=TaskState.WORKING)
    await store.create_task(created)
    kept = with_text(created, large_text(100_000))
    await store.update_task(kept)
    unknown = await offloader.offload(with_text(kept, large_text(90_000, seed=1), "a-2"), [])
    ghost = await offloader.offload(
        with_text(make_record(state=TaskState.WORKING), large_text(80_000, seed=2)), []
    )
    assert unknown.uploaded and ghost.uploaded
    listed = sorted(key for key, _ in await offloader.content.listed("tasks/"))
    ours = [key for key in listed if key.startswith(f"tasks/{quote(kept.task_id)}/")]
    assert len(ours) == 2 and len(listed) == 3

    assert await store.sweep_content() == []  # young: its write may be under way
    assert await store.sweep_content(older_than_s=0) == ghost.uploaded
    assert sorted(key for key, _ in await offloader.content.listed("tasks/")) == ours
    got = await store.get_task(kept.task_id)
    assert got is not None and got.task.artifacts == kept.task.artifacts

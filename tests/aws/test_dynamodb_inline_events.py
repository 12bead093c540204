"""Inline events on DynamoDB Local: a task item holds the newest events of its log, event items
the older ones (writes.py, "Inline events"); records written before inline events existed (every
event an item of its own) read and write as before."""

from __future__ import annotations

import base64
import os
import zlib
from typing import Any

import pytest

from a2a_serverless.models import TaskState
from a2a_serverless.store.base import TaskEvent, TaskRecord, event_to_json, record_to_json
from a2a_serverless.testing.store_contract import (
    HOUR_MS,
    make_record,
    new_id,
    now_ms,
    status_event,
    step,
    with_state,
)
from a2a_serverless_aws.dynamodb import DynamoDBStore, codec, writes
from a2a_serverless_aws.dynamodb.models import TableItem

pytestmark = pytest.mark.aws


def task_item(store: DynamoDBStore, task_id: str) -> TableItem:
    return store.item_class.get(codec.task_pk(task_id), codec.TASK_SK, consistent_read=True)


def event_item_seqs(store: DynamoDBStore, task_id: str) -> list[int]:
    items = store.item_class
    found = items.query(
        codec.task_pk(task_id),
        range_key_condition=items.sk.startswith(codec.EVENT_PREFIX),
        consistent_read=True,
    )
    return [codec.seq_of(item.sk) for item in found]


def bulky(record: TaskRecord, seq: int, size: int) -> TaskEvent:
    """A status event carrying `size` bytes that zlib cannot shrink much."""
    payload = status_event(record, seq).payload
    noise = base64.b64encode(os.urandom(size * 3 // 4)).decode()
    return TaskEvent(seq=seq, payload=payload.model_copy(update={"metadata": {"noise": noise}}))


async def seqs(store: DynamoDBStore, task_id: str, after: int = 0) -> list[int]:
    return [event.seq for event in await store.read_events(task_id, after)]


# --- records of the earlier layout ---------------------------------------------------------------


def put_earlier_layout(store: DynamoDBStore, record: TaskRecord, events: list[TaskEvent]) -> None:
    """What the store wrote before inline events: a task item without `events`, and one event
    item per event. Written with the bare client, attribute by attribute."""
    client, table = store.client, store.table_name
    pk = codec.task_pk(record.task_id)
    client.put_item(
        TableName=table,
        Item={
            "PK": {"S": pk},
            "SK": {"S": codec.TASK_SK},
            "kind": {"S": "task"},
            "body": {"B": codec.pack(record_to_json(record))},
            "owner": {"S": record.owner},
            "owner_ctx": {"S": codec.owner_context(record.owner, record.context_id)},
            "order_key": {"S": codec.order_key(record.updated_at_ms, record.task_id)},
            "state": {"S": record.state},
            "version": {"N": str(record.version)},
            "last_seq": {"N": str(record.last_seq)},
        },
    )
    for event in events:
        client.put_item(
            TableName=table,
            Item={
                "PK": {"S": pk},
                "SK": {"S": codec.event_sk(event.seq)},
                "kind": {"S": "event"},
                "body": {"B": codec.pack(event_to_json(event))},
            },
        )


async def test_a_task_of_the_earlier_layout_reads_and_writes(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=2)
    earlier = [status_event(record, 1), status_event(record, 2)]
    put_earlier_layout(store, record, earlier)
    assert await store.get_task(record.task_id) == record
    assert await store.read_events(record.task_id) == earlier
    assert await seqs(store, record.task_id, 1) == [2]

    # Its next write with events starts the inline list after the event items.
    working, events = step(record, 2, task=with_state(record, TaskState.WORKING))
    await store.update_task(working, events, idempotency_key=new_id("k"))
    assert len(task_item(store, record.task_id).events or []) == 2
    assert event_item_seqs(store, record.task_id) == [1, 2]
    assert await store.read_events(record.task_id) == [*earlier, *events]
    assert await seqs(store, record.task_id, 1) == [2, 3, 4]
    assert await seqs(store, record.task_id, 3) == [4]
    assert [e.seq for e in await store.read_events(record.task_id, 0, limit=3)] == [1, 2, 3]

    # Finishing it stamps the earlier event items with the ttl, as before.
    expires = now_ms() + HOUR_MS
    done, last = step(
        working, 1, task=with_state(working, TaskState.COMPLETED), expires_at_ms=expires
    )
    await store.update_task(done, last)
    ttl = codec.ttl_seconds(expires)
    items = store.item_class
    pk = codec.task_pk(record.task_id)
    assert [items.get(pk, codec.event_sk(s)).ttl for s in (1, 2)] == [ttl, ttl]
    assert task_item(store, record.task_id).ttl == ttl
    assert await seqs(store, record.task_id) == [1, 2, 3, 4, 5]
    assert await store.get_task(record.task_id) == done


# --- how the task item stays small ---------------------------------------------------------------


async def test_events_move_out_when_the_task_item_would_grow_too_large(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=1)
    logged = [bulky(record, 1, 1500)]
    await store.create_task(record, logged)
    assert len(task_item(store, record.task_id).events or []) == 1
    current = record
    for _ in range(4):
        current, _ = step(current, 1)
        event = bulky(current, current.last_seq, 1500)
        await store.update_task(current, [event])
        logged.append(event)
        item = task_item(store, record.task_id)
        size = codec.item_size(item.serialize())
        assert size <= writes.INLINE_ITEM_BYTES, size
        # Event items hold the beginning of the log, the task item its end.
        spilled = current.last_seq - len(item.events or [])
        assert event_item_seqs(store, record.task_id) == list(range(1, spilled + 1))
    assert event_item_seqs(store, record.task_id), "some events were spilled"
    assert await store.read_events(record.task_id) == logged
    assert await store.read_events(record.task_id, 2, limit=2) == logged[2:4]


async def test_an_event_too_large_to_go_inline_is_an_item_after_the_inline_ones(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=2)
    small = [status_event(record, 1), status_event(record, 2)]
    await store.create_task(record, small)
    assert event_item_seqs(store, record.task_id) == []
    following, _ = step(record, 1)
    large = bulky(following, 3, 3 * writes.INLINE_ITEM_BYTES)
    await store.update_task(following, [large])
    item = task_item(store, record.task_id)
    assert item.events is None and item.events_bytes is None
    assert event_item_seqs(store, record.task_id) == [1, 2, 3]
    # And the next small one goes inline again.
    after, more = step(following, 1)
    await store.update_task(after, more)
    assert len(task_item(store, record.task_id).events or []) == 1
    assert await store.read_events(record.task_id) == [*small, large, *more]


async def test_a_refused_write_leaves_the_inline_events_as_they_were(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    following, events = step(record, 1)
    await store.update_task(following, events)
    before: dict[str, Any] = task_item(store, record.task_id).serialize()
    stale, more = step(record, 2)
    with pytest.raises(Exception, match="version"):
        await store.update_task(stale, more)
    assert task_item(store, record.task_id).serialize() == before
    assert await seqs(store, record.task_id) == [1, 2]


def test_inline_events_are_packed_with_the_tasks_dictionary() -> None:
    record = make_record(last_seq=1)
    text = event_to_json(status_event(record, 1))
    packed = codec.pack_event(text, record.task_id, record.context_id)
    assert codec.unpack_event(packed, record.task_id, record.context_id) == text
    # The dictionary makes a small event several times smaller than zlib alone.
    assert len(packed) * 2 < len(codec.pack(text))
    # Another task's dictionary is refused (zlib checks its checksum), never misread.
    with pytest.raises(zlib.error):
        codec.unpack_event(packed, new_id("task"), record.context_id)


def test_new_inline_events_are_packed_with_the_newest_dictionary() -> None:
    record = make_record(last_seq=1)
    text = event_to_json(status_event(record, 1))
    packed = codec.pack_event(text, record.task_id, record.context_id)
    # The header's DICTID names the dictionary the event was packed with.
    newest = codec._event_dictionary(
        codec._EVENT_DICTIONARIES[0], record.task_id, record.context_id
    )
    assert int.from_bytes(packed[2:6], "big") == zlib.adler32(newest)
    oldest = codec._event_dictionary(codec._EVENT_DICTIONARY_V1, record.task_id, record.context_id)
    packer = zlib.compressobj(codec.COMPRESS_LEVEL, zdict=oldest)
    with_oldest = packer.compress(text.encode()) + packer.flush()
    # Today's events are smaller with today's dictionary; the old one still reads.
    assert len(packed) < len(with_oldest)
    assert codec.unpack_event(with_oldest, record.task_id, record.context_id) == text


def test_inline_events_already_stored_stay_readable() -> None:
    # Bytes written by the first version of the inline layout: the preset dictionary is part of
    # the stored format, and a change to it would make every stored inline event unreadable.
    stored = bytes.fromhex(
        "78bbe980c41dc3692b218d2439cbc84cd7d050d7c834c4d0c0ca0084f40c0c0ca2d01d0b004b1d2b40"
    )
    assert codec.unpack_event(stored, "t-1", "c-1") == (
        '{"kind":"status-update","taskId":"t-1","contextId":"c-1","status":{"state":'
        '"completed","timestamp":"2026-11-25T10:00:00.000Z"},"final":true}'
    )

"""What the DynamoDB store puts in its table: the schema, TTLs, the sweep of finished tasks,
DynamoDB's size limits, expired idempotency keys, and listing while tasks change."""

from __future__ import annotations

import base64
import logging
import os
from typing import Any

import pytest
from msgspec.structs import replace
from pynamodb.exceptions import PynamoDBException

from a2a_serverless.models import Message, Part, TaskState
from a2a_serverless.store.base import TaskEvent, TaskQuery, TaskRecord
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
from a2a_serverless_aws.dynamodb import (
    DynamoDBStore,
    ItemTooLarge,
    StoreUnavailable,
    TransactionTooLarge,
    create_table,
    listing,
)
from a2a_serverless_aws.dynamodb.codec import (
    KEY_SK,
    TASK_SK,
    event_sk,
    item_size,
    key_pk,
    push_sk,
    task_pk,
)
from a2a_serverless_aws.dynamodb.errors import MAX_ITEM_BYTES
from a2a_serverless_aws.dynamodb.models import TableItem
from a2a_serverless_aws.dynamodb.writes import MAX_INLINE_EVENTS
from tests.aws.conftest import new_table_name

pytestmark = pytest.mark.aws


def raw(store: DynamoDBStore, pk: str, sk: str) -> TableItem:
    return store.item_class.get(pk, sk, consistent_read=True)


def ttl_of(store: DynamoDBStore, pk: str, sk: str) -> int | None:
    return raw(store, pk, sk).ttl


def seconds(ms: int) -> int:
    return -(-ms // 1000)


# --- the table -----------------------------------------------------------------------------------


def test_table_schema_is_the_documented_one(
    dynamodb_store: DynamoDBStore, dynamodb_endpoint: str
) -> None:
    # What README's "Table" section tells Terraform/serverless.yml to create.
    client = dynamodb_store.client
    table = client.describe_table(TableName=dynamodb_store.table_name)["Table"]
    assert sorted((k["AttributeName"], k["KeyType"]) for k in table["KeySchema"]) == [
        ("PK", "HASH"),
        ("SK", "RANGE"),
    ]
    assert sorted(
        (a["AttributeName"], a["AttributeType"]) for a in table["AttributeDefinitions"]
    ) == [
        ("PK", "S"),
        ("SK", "S"),
        ("order_key", "S"),
        ("owner", "S"),
        ("owner_ctx", "S"),
    ]
    assert table["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    indexes = {
        index["IndexName"]: (
            sorted((k["AttributeName"], k["KeyType"]) for k in index["KeySchema"]),
            index["Projection"]["ProjectionType"],
            sorted(index["Projection"].get("NonKeyAttributes", [])),
        )
        for index in table["GlobalSecondaryIndexes"]
    }
    assert indexes == {
        "by_owner": (
            [("order_key", "RANGE"), ("owner", "HASH")],
            "INCLUDE",
            ["expires_ms", "state"],
        ),
        # Keys only, and a key no task write changes: an entry is written once per task.
        "by_context_tasks": ([("owner_ctx", "HASH")], "KEYS_ONLY", []),
    }
    assert "LocalSecondaryIndexes" not in table
    ttl = client.describe_time_to_live(TableName=dynamodb_store.table_name)
    assert ttl["TimeToLiveDescription"] == {"TimeToLiveStatus": "ENABLED", "AttributeName": "ttl"}
    # Creating it again changes nothing.
    create_table(dynamodb_store.table_name, region="us-east-1", endpoint_url=dynamodb_endpoint)


async def test_a_table_of_the_first_layout_works_once_the_new_index_is_added(
    dynamodb_endpoint: str,
) -> None:
    """CHANGELOG's migration: a table made with `by_context` (owner_ctx, order_key) serves, lists
    by context with a clear 503 until `by_context_tasks` is added, then lists the old items."""
    table = new_table_name()
    store = DynamoDBStore(table, region="us-east-1", endpoint_url=dynamodb_endpoint)
    client = store.client
    strings = [{"AttributeName": n, "AttributeType": "S"} for n in ("owner_ctx", "order_key")]
    included = {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["state", "expires_ms"]}

    def by(name: str, partition: str) -> dict[str, Any]:
        keys = [(partition, "HASH"), ("order_key", "RANGE")]
        key_schema = [{"AttributeName": a, "KeyType": k} for a, k in keys]
        return {"IndexName": name, "KeySchema": key_schema, "Projection": included}

    client.create_table(
        TableName=table,
        BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[
            {"AttributeName": n, "AttributeType": "S"} for n in ("PK", "SK", "owner")
        ]
        + strings,
        KeySchema=[
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ],
        GlobalSecondaryIndexes=[by("by_owner", "owner"), by("by_context", "owner_ctx")],
    )
    record = make_record(owner="alice")
    await store.create_task(record)
    query = TaskQuery(owner="alice", context_id=record.context_id)
    assert [r.task_id for r in (await store.list_tasks(TaskQuery(owner="alice"))).records] == [
        record.task_id
    ]
    with pytest.raises(StoreUnavailable, match="does not have the specified index"):
        await store.list_tasks(query)

    client.update_table(
        TableName=table,
        AttributeDefinitions=strings[:1],
        GlobalSecondaryIndexUpdates=[
            {
                "Create": {
                    "IndexName": "by_context_tasks",
                    "KeySchema": [{"AttributeName": "owner_ctx", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "KEYS_ONLY"},
                }
            }
        ],
    )
    # The index is filled from the items already there (owner_ctx is on every task item).
    assert [r.task_id for r in (await store.list_tasks(query)).records] == [record.task_id]


async def test_a_missing_table_is_a_clear_error(dynamodb_endpoint: str) -> None:
    store = DynamoDBStore("a2a-no-such-table", region="us-east-1", endpoint_url=dynamodb_endpoint)
    with pytest.raises(StoreUnavailable, match=r"a2a-no-such-table.*ResourceNotFoundException"):
        await store.get_task(new_id("task"))


# --- TTL -----------------------------------------------------------------------------------------


async def test_live_tasks_have_no_ttl(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    key = new_id("key")
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)], idempotency_key=key)
    await store.put_push_config(push_config(record.task_id, "cfg"))
    pk = task_pk(record.task_id)
    task = raw(store, pk, TASK_SK)
    assert task.ttl is None
    assert len(task.events or []) == 1  # the event is inline, in the task item
    assert ttl_of(store, pk, push_sk("cfg")) is None
    assert ttl_of(store, key_pk(key), KEY_SK) is None


async def test_a_task_created_finished_carries_its_ttl_everywhere(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    key = new_id("key")
    expires = now_ms() + HOUR_MS + 1  # not a whole second: the ttl rounds up
    record = make_record(state=TaskState.COMPLETED, last_seq=1, expires_at_ms=expires)
    await store.create_task(record, [status_event(record, 1)], idempotency_key=key)
    pk = task_pk(record.task_id)
    task = raw(store, pk, TASK_SK)
    assert (task.ttl, task.expires_ms, task.swept) == (seconds(expires), expires, seconds(expires))
    assert len(task.events or []) == 1  # inline: it goes with the task item
    key_item = raw(store, key_pk(key), KEY_SK)
    assert (key_item.ttl, key_item.expires_ms) == (seconds(expires), expires)
    # A config set on a finished task gets the task's ttl.
    await store.put_push_config(push_config(record.task_id, "late"))
    assert ttl_of(store, pk, push_sk("late")) == seconds(expires)


async def test_finishing_a_task_gives_its_earlier_items_the_ttl(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    first_key, second_key = new_id("key"), new_id("key")
    # More events than a task item holds inline: they are event items, which the sweep stamps.
    first = MAX_INLINE_EVENTS + 1
    record = make_record(last_seq=first)
    created = [status_event(record, seq) for seq in range(1, first + 1)]
    await store.create_task(record, created, idempotency_key=first_key)
    await store.put_push_config(push_config(record.task_id, "cfg-a"))
    await store.put_push_config(push_config(record.task_id, "cfg-b"))
    working, events = step(record, 2, task=with_state(record, TaskState.WORKING))
    await store.update_task(working, events, idempotency_key=second_key)
    expires = now_ms() + HOUR_MS
    done, events = step(
        working, 1, task=with_state(working, TaskState.COMPLETED), expires_at_ms=expires
    )
    await store.update_task(done, events)

    ttl = seconds(expires)
    pk = task_pk(record.task_id)
    assert [ttl_of(store, pk, event_sk(seq)) for seq in range(1, first + 1)] == [ttl] * first
    assert len(raw(store, pk, TASK_SK).events or []) == 3  # the two later writes' events
    assert ttl_of(store, pk, push_sk("cfg-a")) == ttl_of(store, pk, push_sk("cfg-b")) == ttl
    for key in (first_key, second_key):
        key_item = raw(store, key_pk(key), KEY_SK)
        assert (key_item.ttl, key_item.expires_ms, key_item.task_id) == (
            ttl,
            expires,
            record.task_id,
        )
    task = raw(store, pk, TASK_SK)
    assert (task.ttl, task.swept, task.idempotency_keys) == (ttl, ttl, {first_key, second_key})
    # The events read back unchanged after being put again with their ttl.
    read = await store.read_events(record.task_id)
    assert [event.seq for event in read] == list(range(1, first + 4))
    assert await store.get_task(record.task_id) == done


async def test_a_failed_sweep_is_logged_and_the_next_write_finishes_it(
    dynamodb_store: DynamoDBStore,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = dynamodb_store
    # Event items (too many to go inline), which the sweep re-puts with a BatchWriteItem.
    record = make_record(last_seq=MAX_INLINE_EVENTS + 1)
    events = [status_event(record, seq) for seq in range(1, MAX_INLINE_EVENTS + 2)]
    await store.create_task(record, events)
    expires = now_ms() + HOUR_MS
    done, events = step(
        record, 1, task=with_state(record, TaskState.COMPLETED), expires_at_ms=expires
    )

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise PynamoDBException("batch writes are down")

    with monkeypatch.context() as patch, caplog.at_level(logging.WARNING):
        patch.setattr(store.item_class, "batch_write", broken)
        await store.update_task(done, events)  # the write itself succeeded
    assert "could not give the items of task" in caplog.text
    assert await store.get_task(record.task_id) == done
    pk = task_pk(record.task_id)
    assert ttl_of(store, pk, event_sk(1)) is None
    assert raw(store, pk, TASK_SK).swept is None

    bookkeeping, _ = step(done, 0, internal={"push": {"cfg": 2}})
    await store.update_task(bookkeeping)
    assert ttl_of(store, pk, event_sk(1)) == seconds(expires)
    assert raw(store, pk, TASK_SK).swept == seconds(expires)


async def test_an_expired_idempotency_key_is_free_again(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    key = new_id("key")
    gone = make_record(state=TaskState.COMPLETED, expires_at_ms=now_ms() - 1)
    await store.create_task(gone, idempotency_key=key)
    assert await store.find_idempotency_key(key) is None
    fresh = make_record()
    await store.create_task(fresh, idempotency_key=key)
    assert await store.find_idempotency_key(key) == fresh.task_id


# --- size limits ---------------------------------------------------------------------------------


def with_history(record: TaskRecord, text: str) -> TaskRecord:
    message = Message(role="user", message_id=new_id("m"), parts=[Part(text=text)])
    task = record.task.model_copy(update={"history": [message]})
    return replace(record, task=task)


def incompressible(size: int) -> str:
    """Text zlib cannot shrink much (base64 of random bytes: about 3/4 of its size)."""
    return base64.b64encode(os.urandom(size * 3 // 4)).decode()


def test_the_size_estimate_never_undercounts(dynamodb_store: DynamoDBStore) -> None:
    # An item the store estimates at exactly the limit is one DynamoDB still accepts.
    attributes: dict[str, dict[str, Any]] = {
        "PK": {"S": task_pk(new_id("task"))},
        "SK": {"S": TASK_SK},
        "owner": {"S": "ünïcödé owner"},
        "version": {"N": "1234567"},
        "keys": {"SS": ["one", "two"]},
        "body": {"B": b""},
    }
    attributes["body"] = {"B": os.urandom(MAX_ITEM_BYTES - item_size(attributes))}
    assert item_size(attributes) == MAX_ITEM_BYTES
    dynamodb_store.client.put_item(TableName=dynamodb_store.table_name, Item=attributes)


async def test_a_large_record_is_stored_compressed(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    text = "The same long paragraph, again and again. " * 25_000  # about 1 MB of JSON
    record = with_history(make_record(), text)
    await store.create_task(record)
    assert await store.get_task(record.task_id) == record
    body = raw(store, task_pk(record.task_id), TASK_SK).body
    assert body is not None and len(body) < 100_000


async def test_a_record_too_large_even_compressed_is_refused_whole(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    big = with_history(make_record(last_seq=1), incompressible(2 * MAX_ITEM_BYTES))
    key = new_id("key")
    with pytest.raises(ItemTooLarge) as raised:
        await store.create_task(big, [status_event(big, 1)], idempotency_key=key)
    assert raised.value.task_id == big.task_id and raised.value.what == "task"
    assert raised.value.size > MAX_ITEM_BYTES
    assert await store.get_task(big.task_id) is None
    assert await store.find_idempotency_key(key) is None

    small = make_record()
    await store.create_task(small)
    grown, events = step(small, 1)
    with pytest.raises(ItemTooLarge):
        await store.update_task(with_history(grown, incompressible(2 * MAX_ITEM_BYTES)), events)
    assert await store.get_task(small.task_id) == small
    assert await store.read_events(small.task_id) == []


async def test_one_write_holds_at_most_a_hundred_items(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    # 99 events and the task: 100 items, DynamoDB's limit for one transaction.
    record = make_record(last_seq=99)
    events = [status_event(record, seq) for seq in range(1, 100)]
    await store.create_task(record, events)
    assert len(await store.read_events(record.task_id)) == 99

    # With an idempotency key as well it would be 101.
    other = make_record(last_seq=99)
    with pytest.raises(TransactionTooLarge) as raised:
        await store.create_task(
            other, [status_event(other, seq) for seq in range(1, 100)], idempotency_key="k"
        )
    assert raised.value.items == 101
    assert await store.get_task(other.task_id) is None


async def test_one_write_holds_at_most_four_megabytes(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    # 20 events of about 225 KB each, compressed: each fits in an item, together they do not
    # fit in one transaction.
    record = make_record(last_seq=20)
    events = []
    for seq in range(1, 21):
        payload = status_event(record, seq).payload
        chunk = {"chunk": incompressible(300_000)}
        events.append(TaskEvent(seq=seq, payload=payload.model_copy(update={"metadata": chunk})))
    with pytest.raises(TransactionTooLarge) as raised:
        await store.create_task(record, events)
    assert raised.value.size > 4 * 1024 * 1024
    assert await store.get_task(record.task_id) is None


# --- listing while tasks change --------------------------------------------------------------


async def test_a_record_that_moved_after_its_entry_was_read_is_left_out(
    dynamodb_store: DynamoDBStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = dynamodb_store
    owner = new_id("owner")
    records = [make_record(owner=owner, updated_at_ms=1000 + i) for i in range(4)]
    for record in records:
        await store.create_task(record)
    newest = records[3]
    fetch = listing._fetch

    def fetch_after_a_concurrent_update(*args: Any) -> Any:
        # Another writer moves the newest task between the index Query and the record fetch.
        if store.item_class.get(task_pk(newest.task_id), TASK_SK).version == 1:
            moved, events = step(newest, 1, updated_at_ms=5000)
            store._writer.update_task(moved, events, None)
        return fetch(*args)

    monkeypatch.setattr(listing, "_fetch", fetch_after_a_concurrent_update)
    page = await store.list_tasks(TaskQuery(owner=owner, limit=2))
    # The page is filled from the entries after it, in order, and still knows there is more.
    assert [r.task_id for r in page.records] == [records[2].task_id, records[1].task_id]
    assert page.has_more and page.total_size == 4

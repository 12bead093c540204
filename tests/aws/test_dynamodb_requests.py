"""How many DynamoDB requests (and which) each Store method sends: the numbers in
adapters/aws/README.md ("DynamoDB store"), counted with a botocore event hook.

If a change makes one of these fail, the README's request tables must change with it.
"""

from __future__ import annotations

import pytest

from a2a_serverless.models import TaskState
from a2a_serverless.store.base import TaskQuery
from a2a_serverless.testing.store_contract import (
    make_record,
    new_id,
    now_ms,
    push_config,
    status_event,
    step,
    with_state,
)
from a2a_serverless_aws.dynamodb import DynamoDBStore, writes
from tests.aws.dynamodb_support import counting

pytestmark = pytest.mark.aws

QUERY_OWNER = "Query by_owner"
QUERY_CONTEXT = "Query by_context_tasks"
COUNT_OWNER = "Query by_owner COUNT"


async def test_task_writes(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    with counting(store) as calls:
        bare = make_record()
        await store.create_task(bare)
    assert calls == ["PutItem"]

    # Events go inline, in the task item: a write without a key is one single-item write.
    with counting(store) as calls:
        alone = make_record(last_seq=1)
        await store.create_task(alone, [status_event(alone, 1)])
    assert calls == ["PutItem"]

    # With a key: the task item and the key item in one transaction.
    with counting(store) as calls:
        record = make_record(last_seq=1)
        await store.create_task(record, [status_event(record, 1)], idempotency_key=new_id("k"))
    assert calls == ["TransactWriteItems"]

    # A key that must stay free (the service's legacy key) is a condition check in it.
    with counting(store) as calls:
        checked = make_record(last_seq=1)
        await store.create_task(
            checked, [status_event(checked, 1)], idempotency_key=new_id("k"), free_key="f"
        )
    assert calls == ["TransactWriteItems"]

    # A bookkeeping write (no events, no key): one conditional UpdateItem.
    with counting(store) as calls:
        claimed, _ = step(record, 0, internal={"claim": 1})
        await store.update_task(claimed)
    assert calls == ["UpdateItem"]

    with counting(store) as calls:
        working, events = step(claimed, 2, task=with_state(claimed, TaskState.WORKING))
        await store.update_task(working, events)
    assert calls == ["UpdateItem"]

    with counting(store) as calls:
        told, events = step(working, 1)
        await store.update_task(told, events, idempotency_key=new_id("k"))
    assert calls == ["TransactWriteItems"]

    # A refused write costs one request, and a read that tells a stale version from a bad log
    # (or from inline events in the way); a refused transaction returns the item instead.
    with counting(store) as calls, pytest.raises(Exception, match="version"):
        await store.update_task(*step(claimed, 1))
    assert calls == ["UpdateItem", "GetItem"]
    with counting(store) as calls, pytest.raises(Exception, match="version"):
        await store.update_task(step(claimed, 0)[0])
    assert calls == ["UpdateItem", "GetItem"]
    with counting(store) as calls, pytest.raises(Exception, match="version"):
        await store.update_task(*step(claimed, 1), idempotency_key=new_id("k"))
    assert calls == ["TransactWriteItems"]


async def test_a_full_task_item_spills_its_events_once(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    record = make_record(last_seq=writes.MAX_INLINE_EVENTS)
    events = [status_event(record, seq) for seq in range(1, writes.MAX_INLINE_EVENTS + 1)]
    await store.create_task(record, events)
    # The list is full: the write is refused, the item read, its events moved out to event
    # items (one transaction), and the write made again, inline.
    with counting(store) as calls:
        following, more = step(record, 1)
        await store.update_task(following, more)
    assert calls == ["UpdateItem", "GetItem", "TransactWriteItems", "UpdateItem"]
    # Then the log is read from the task item and the event items.
    with counting(store) as calls:
        read = await store.read_events(record.task_id)
    assert [e.seq for e in read] == list(range(1, writes.MAX_INLINE_EVENTS + 2))
    assert calls == ["GetItem", "Query"]
    # From the task item alone when the range starts inside it.
    with counting(store) as calls:
        assert [e.seq for e in await store.read_events(record.task_id, 25)] == [26]
    assert calls == ["GetItem"]


async def test_the_write_that_finishes_a_task_sweeps_its_items(
    dynamodb_store: DynamoDBStore,
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=1)
    await store.create_task(record, [status_event(record, 1)], idempotency_key=new_id("k"))
    await store.put_push_config(push_config(record.task_id, "cfg"))
    with counting(store) as calls:
        done, events = step(
            record,
            1,
            task=with_state(record, TaskState.COMPLETED),
            expires_at_ms=now_ms() + 3_600_000,
        )
        await store.update_task(done, events)
    # The write, then the sweep: read the partition, stamp the config and the key, mark the
    # task swept (the events are in the task item, which the write gave its ttl).
    assert calls == ["UpdateItem", "Query", "UpdateItem", "UpdateItem", "UpdateItem"]
    # Later bookkeeping writes see the task swept and send nothing more.
    with counting(store) as calls:
        await store.update_task(step(done, 0, internal={"push": 1})[0])
    assert calls == ["UpdateItem"]


async def test_reads_and_push_configs(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    key = new_id("k")
    record = make_record(last_seq=2)
    await store.create_task(
        record, [status_event(record, 1), status_event(record, 2)], idempotency_key=key
    )
    expected = {
        "get_task": ["GetItem"],
        "read_events": ["GetItem"],
        "find_idempotency_key": ["GetItem"],
        "put_push_config": ["GetItem", "PutItem"],
        "get_push_config": ["GetItem"],
        "list_push_configs": ["Query"],
        "delete_push_config": ["DeleteItem"],
    }
    measured: dict[str, list[str]] = {}
    with counting(store) as measured["get_task"]:
        assert await store.get_task(record.task_id) == record
    with counting(store) as measured["read_events"]:
        assert len(await store.read_events(record.task_id, 0)) == 2
    with counting(store) as measured["find_idempotency_key"]:
        assert await store.find_idempotency_key(key) == record.task_id
    with counting(store) as measured["put_push_config"]:
        await store.put_push_config(push_config(record.task_id, "cfg"))
    with counting(store) as measured["get_push_config"]:
        assert await store.get_push_config(record.task_id, "cfg") is not None
    with counting(store) as measured["list_push_configs"]:
        assert len(await store.list_push_configs(record.task_id)) == 1
    with counting(store) as measured["delete_push_config"]:
        assert await store.delete_push_config(record.task_id, "cfg")
    assert measured == expected

    with counting(store) as calls:
        assert await store.read_events(record.task_id, 0, limit=0) == []
    assert calls == []


async def test_list_tasks_queries_an_index_and_never_scans(dynamodb_store: DynamoDBStore) -> None:
    store = dynamodb_store
    owner, ctx = new_id("owner"), new_id("ctx")
    for i in range(7):
        state = TaskState.WORKING if i % 2 else TaskState.COMPLETED
        await store.create_task(
            make_record(owner=owner, context_id=ctx, state=state, updated_at_ms=1000 + i)
        )

    async def listing(**query: object) -> tuple[list[str], int, bool, int]:
        with counting(store) as calls:
            page = await store.list_tasks(TaskQuery(owner=owner, **query))  # type: ignore[arg-type]
        return calls, len(page.records), page.has_more, page.total_size

    # One page holds everything: the page's length is the total, no count needed.
    assert await listing() == ([QUERY_OWNER, "BatchGetItem"], 7, False, 7)
    assert await listing(context_id=ctx) == ([QUERY_CONTEXT, "BatchGetItem"], 7, False, 7)
    assert await listing(state="working") == ([QUERY_OWNER, "BatchGetItem"], 3, False, 3)
    # More pages: the total is a Select=COUNT query over the same index.
    assert await listing(limit=3) == ([QUERY_OWNER, "BatchGetItem", COUNT_OWNER], 3, True, 7)
    assert await listing(limit=3, after=(1004, "~")) == (
        [QUERY_OWNER, "BatchGetItem", COUNT_OWNER],
        3,
        True,
        7,
    )
    # Nothing matches: one Query.
    assert await listing(state="rejected") == ([QUERY_OWNER], 0, False, 0)
    with counting(store) as calls:
        await store.list_tasks(TaskQuery(owner=new_id("nobody")))
    assert calls == [QUERY_OWNER]

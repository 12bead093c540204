"""`DeadLetterScan` on DynamoDBStore (dynamodb/deadletters.py), on DynamoDB Local: the contract
suite on a table of its own (the scan sees the whole table), the `letters` attribute task
writes keep, task items written before it existed, and the requests a page sends."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from msgspec.structs import replace

from a2a_serverless.store.base import Store
from a2a_serverless.store.bookkeeping import stored_updates
from a2a_serverless.testing.store_contract import make_record, status_event
from a2a_serverless_aws.dynamodb import DynamoDBStore, codec, create_table
from tests.aws.conftest import DYNAMODB_TEST_REGION, new_table_name
from tests.aws.dynamodb_support import counting
from tests.contract.test_dead_letter_scan import NOW_MS, DeadLetterScanContract, letter

pytestmark = pytest.mark.aws


@pytest.fixture
async def own_table_store(dynamodb_endpoint: str) -> AsyncIterator[DynamoDBStore]:
    name = new_table_name()
    create_table(name, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint)
    store = DynamoDBStore(
        name, region=DYNAMODB_TEST_REGION, endpoint_url=dynamodb_endpoint, clock=lambda: NOW_MS
    )
    yield store
    await store.close()


class TestDynamoDBDeadLetterScan(DeadLetterScanContract):
    @pytest.fixture
    async def store(self, own_table_store: DynamoDBStore) -> AsyncIterator[Store]:
        yield own_table_store


def letters_attribute(store: DynamoDBStore, task_id: str) -> str | None:
    item = store.client.get_item(
        TableName=store.table_name,
        Key={"PK": {"S": codec.task_pk(task_id)}, "SK": {"S": codec.TASK_SK}},
        ConsistentRead=True,
    )["Item"]
    count: str | None = item.get("letters", {}).get("N")
    return count


def forget_letters_attribute(store: DynamoDBStore, task_id: str) -> None:
    """Make the task item what a version without `letters` wrote: the same item without it."""
    store.client.update_item(
        TableName=store.table_name,
        Key={"PK": {"S": codec.task_pk(task_id)}, "SK": {"S": codec.TASK_SK}},
        UpdateExpression="REMOVE letters",
    )


async def test_task_writes_keep_the_count_of_dead_letters(own_table_store: DynamoDBStore) -> None:
    store = own_table_store
    record = make_record("c-1", owner="a", last_seq=1)
    await store.create_task(record, [status_event(record, 1)])
    assert letters_attribute(store, "c-1") == "0"
    two = stored_updates({}, dead_letters=[letter(1), letter(2)])
    await store.update_task(replace(record, version=2, internal=two))
    assert letters_attribute(store, "c-1") == "2"


async def test_task_items_written_before_the_attribute_are_found(
    own_table_store: DynamoDBStore,
) -> None:
    store = own_table_store
    with_letters = stored_updates({}, dead_letters=[letter(1)])
    for task_id, internal in [("o-1", with_letters), ("o-2", {}), ("o-3", with_letters)]:
        record = make_record(task_id, owner=task_id, last_seq=1, internal=internal)
        await store.create_task(record, [status_event(record, 1)])
        forget_letters_attribute(store, task_id)
        assert letters_attribute(store, task_id) is None
    fresh = make_record("o-4", owner="b", last_seq=1, internal=with_letters)
    await store.create_task(fresh, [status_event(fresh, 1)])
    found = await store.scan_dead_letters(None, 10)
    assert [(r.task_id, r.dead_letters) for r in found] == [
        ("o-1", [letter(1)]),
        ("o-3", [letter(1)]),
        ("o-4", [letter(1)]),
    ]
    assert [r.task_id for r in await store.scan_dead_letters("o-1", 1)] == ["o-3"]


async def test_a_page_is_one_scan_and_the_reads_of_its_records(
    own_table_store: DynamoDBStore,
) -> None:
    store = own_table_store
    with_letters = stored_updates({}, dead_letters=[letter(1)])
    for n in range(30):
        record = make_record(
            f"p-{n:02d}", owner="a", last_seq=1, internal=with_letters if n % 3 == 0 else {}
        )
        await store.create_task(record, [status_event(record, 1)])
    with counting(store) as calls:
        found = await store.scan_dead_letters("p-00", 4)
    assert [r.task_id for r in found] == ["p-03", "p-06", "p-09", "p-12"]
    # Task items without dead letters are filtered out by DynamoDB: one read of the four.
    assert calls == ["Scan", "BatchGetItem"]

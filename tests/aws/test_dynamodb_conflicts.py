"""Transactions DynamoDB cancels because another transaction held an item (TransactionConflict)
are retried. DynamoDB Local runs transactions one at a time and never reports such a conflict, so
these tests make the first attempts fail the way DynamoDB does, then let the real write through.
Also: the sort keys' string order is the Store protocol's order.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from pynamodb.exceptions import CancellationReason, TransactWriteError, VerboseClientError
from pynamodb.transactions import TransactWrite

from a2a_serverless.store.base import VersionConflict
from a2a_serverless.testing.store_contract import make_record, new_id, status_event, step
from a2a_serverless_aws.dynamodb import DynamoDBStore, DynamoDBUnavailable, codec, writes

pytestmark = pytest.mark.aws


def conflict() -> TransactWriteError:
    cause = VerboseClientError(
        {"Error": {"Code": "TransactionCanceledException", "Message": "conflict"}},
        "TransactWriteItems",
        cancellation_reasons=[CancellationReason(code="TransactionConflict"), None],
    )
    return TransactWriteError("Failed to write transaction items", cause)


class ConflictingFirst(TransactWrite):
    """A TransactWrite whose first `failures` commits are cancelled as conflicting."""

    failures = 0
    attempts = 0

    def _commit(self) -> Any:
        type(self).attempts += 1
        if type(self).attempts <= type(self).failures:
            raise conflict()
        return super()._commit()


@pytest.fixture
def conflicting(monkeypatch: pytest.MonkeyPatch) -> type[ConflictingFirst]:
    monkeypatch.setattr(writes, "TransactWrite", ConflictingFirst)
    ConflictingFirst.attempts = 0
    return ConflictingFirst


async def test_a_conflicting_transaction_is_retried(
    dynamodb_store: DynamoDBStore, conflicting: type[ConflictingFirst]
) -> None:
    store = dynamodb_store
    record = make_record(last_seq=1)
    conflicting.failures = 2
    await store.create_task(record, [status_event(record, 1)], idempotency_key=new_id("k"))
    assert conflicting.attempts == 3
    assert await store.get_task(record.task_id) == record

    # The retry meets the real conditions: here the version another writer already moved on.
    # (Writes with a key are transactions; without one they are single-item writes.)
    following, events = step(record, 1)
    await store.update_task(following, events)
    conflicting.attempts, conflicting.failures = 0, 1
    with pytest.raises(VersionConflict):
        await store.update_task(*step(record, 1), idempotency_key=new_id("k"))
    assert conflicting.attempts == 2


async def test_endless_conflicts_give_up_with_a_clear_error(
    dynamodb_store: DynamoDBStore, conflicting: type[ConflictingFirst]
) -> None:
    record = make_record(last_seq=1)
    conflicting.failures = 1000
    with pytest.raises(DynamoDBUnavailable, match="concurrent transactions kept conflicting"):
        await dynamodb_store.create_task(
            record, [status_event(record, 1)], idempotency_key=new_id("k")
        )
    assert conflicting.attempts == writes.CONFLICT_ATTEMPTS
    assert await dynamodb_store.get_task(record.task_id) is None


def test_sort_keys_order_as_the_protocol_does() -> None:
    rng = random.Random(7)
    alphabet = ["a", "b", "-", "#", "0", "z", "é", "中", "\U0001f600", "~"]
    pairs = [
        (
            rng.choice([0, 1, 9, 10, 99, 1_700_000_000_000, 10**15 - 1]),
            "".join(rng.choices(alphabet, k=rng.randint(1, 4))),
        )
        for _ in range(500)
    ]
    # DynamoDB compares strings by their UTF-8 bytes.
    by_key = sorted(pairs, key=lambda p: codec.order_key(*p).encode())
    assert by_key == sorted(pairs)
    seqs = rng.sample(range(codec.MAX_SEQ), 200)
    assert sorted(seqs, key=lambda s: codec.event_sk(s).encode()) == sorted(seqs)
    with pytest.raises(ValueError):
        codec.order_key(-1, "t")
    with pytest.raises(ValueError):
        codec.event_sk(codec.MAX_SEQ + 1)

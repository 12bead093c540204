"""Races on DynamoDB Local: two app instances, each with its own DynamoDBStore and botocore
client on one table.

The scenarios and their checks are in tests/reliability/races.py; docs/RELIABILITY.md ("Races")
has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete rounds, `A2A_RACE_TASKS` the
tasks of the concurrent-messages scenario. `-s` prints a summary line per scenario, with the
transactions the store retried because DynamoDB cancelled them for a concurrent transaction
(TransactionConflict) on top of the version conflicts the journal retried.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pynamodb.exceptions import PynamoDBException

from a2a_serverless_aws.dynamodb import DynamoDBStore, writes
from tests.aws.conftest import DYNAMODB_TEST_REGION
from tests.reliability.races import cancel_vs_complete, concurrent_messages, env_int, threads

pytestmark = pytest.mark.aws

ROUNDS = env_int("A2A_RACE_ROUNDS", 250)
TASKS = env_int("A2A_RACE_TASKS", 25)


class ConflictCounter:
    """Counts the writes DynamoDB cancelled for a concurrent transaction (the store retries
    each after a short pause)."""

    def __init__(self) -> None:
        self.retried = 0

    def wrap(self, write: Callable[[], Any]) -> Callable[[], Any]:
        def counted() -> Any:
            try:
                return write()
            except writes._Conflicted:
                self.retried += 1
                raise
            except PynamoDBException as error:
                if error.cause_response_code == "TransactionConflictException":
                    self.retried += 1
                raise

        return counted


@pytest.fixture
def transaction_conflicts(monkeypatch: pytest.MonkeyPatch) -> Iterator[ConflictCounter]:
    counter = ConflictCounter()
    retry = writes._retry_conflicts
    monkeypatch.setattr(writes, "_retry_conflicts", lambda write: retry(counter.wrap(write)))
    yield counter


@pytest.fixture
def open_store(dynamodb_endpoint: str, dynamodb_table: str) -> Callable[[int], DynamoDBStore]:
    # The store's pynamodb model and botocore client are made once per process, table and
    # endpoint: spelling the endpoint differently gives each instance its own, as two Lambda
    # containers have.
    endpoints = (dynamodb_endpoint, dynamodb_endpoint.replace("127.0.0.1", "localhost"))

    def open_instance_store(instance: int) -> DynamoDBStore:
        return DynamoDBStore(
            dynamodb_table, region=DYNAMODB_TEST_REGION, endpoint_url=endpoints[instance]
        )

    return open_instance_store


async def test_cancel_racing_completion(
    open_store: Callable[[int], DynamoDBStore], transaction_conflicts: ConflictCounter
) -> None:
    result = await cancel_vs_complete(threads(open_store), store="dynamodb-local", rounds=ROUNDS)
    result.extra["transactions retried in the store"] = transaction_conflicts.retried
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(
    open_store: Callable[[int], DynamoDBStore], transaction_conflicts: ConflictCounter
) -> None:
    result = await concurrent_messages(threads(open_store), store="dynamodb-local", tasks=TASKS)
    result.extra["transactions retried in the store"] = transaction_conflicts.retried
    print(result.summary())
    assert result.problems == []

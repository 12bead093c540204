"""Races on the Firestore emulator: two app instances, each with its own FirestoreStore (and
so its own AsyncClient and gRPC channel) on the same database and collection prefix.

The scenarios and their checks are in tests/reliability/races.py; docs/RELIABILITY.md ("Races")
has the figures. `A2A_RACE_ROUNDS` sets the cancel-vs-complete rounds, `A2A_RACE_TASKS` the
tasks of the concurrent-messages scenario. `-s` prints a summary line per scenario.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from a2a_serverless_gcp.firestore import FirestoreStore, open_firestore_store
from tests.reliability.races import cancel_vs_complete, concurrent_messages, env_int, threads

pytestmark = pytest.mark.gcp

ROUNDS = env_int("A2A_RACE_ROUNDS", 250)
TASKS = env_int("A2A_RACE_TASKS", 25)


@pytest.fixture
def open_store(firestore_store_url: str) -> Callable[[int], FirestoreStore]:
    return lambda _instance: open_firestore_store(firestore_store_url)


async def test_cancel_racing_completion(open_store: Callable[[int], FirestoreStore]) -> None:
    result = await cancel_vs_complete(
        threads(open_store), store="firestore-emulator", rounds=ROUNDS
    )
    print(result.summary())
    assert result.problems == []
    assert result.outcomes["canceled"] > 0 and result.outcomes["completed"] > 0, result.outcomes


async def test_concurrent_messages_to_one_task(
    open_store: Callable[[int], FirestoreStore],
) -> None:
    result = await concurrent_messages(threads(open_store), store="firestore-emulator", tasks=TASKS)
    print(result.summary())
    assert result.problems == []

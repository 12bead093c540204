"""MemoryStore's bound on the tasks it keeps (`max_tasks`) and its removal of expired tasks:
which task goes first, that nothing of it is left behind, the refusal when none may go, and
the ``memory://?max_tasks=N`` option."""

from __future__ import annotations

import pytest

from a2a_serverless.models import TaskState
from a2a_serverless.store import StoreFull, StoreLimitExceeded, open_store
from a2a_serverless.store.base import TaskRecord
from a2a_serverless.store.memory import DEFAULT_MAX_TASKS, MemoryStore
from a2a_serverless.testing.store_contract import (
    BASE_MS,
    artifact_event,
    make_record,
    push_config,
    status_event,
    step,
    with_state,
)


class Clock:
    def __init__(self) -> None:
        self.now_ms = BASE_MS

    def __call__(self) -> int:
        return self.now_ms


async def create(store: MemoryStore, key: str | None = None, **fields: object) -> TaskRecord:
    record = make_record(last_seq=1, **fields)  # type: ignore[arg-type]
    await store.create_task(record, [status_event(record, 1)], idempotency_key=key)
    return record


async def finish(store: MemoryStore, record: TaskRecord, **changes: object) -> TaskRecord:
    following, events = step(record, task=with_state(record, TaskState.COMPLETED), **changes)
    await store.update_task(following, events)
    return following


async def test_a_new_task_past_the_bound_removes_the_finished_task_written_least_recently() -> None:
    store = MemoryStore(max_tasks=3)
    first = await finish(store, await create(store))
    active = await create(store)
    second = await finish(store, await create(store))
    # Written again after it finished (a push cursor, say): now the most recent.
    first, events = step(first)
    await store.update_task(first, events)

    await create(store)

    assert await store.get_task(second.task_id) is None
    assert await store.get_task(first.task_id) is not None
    assert await store.get_task(active.task_id) is not None


async def test_everything_of_a_removed_task_goes_with_it() -> None:
    store = MemoryStore(max_tasks=1)
    gone = await create(store, key="key-gone")
    following, events = step(gone)
    await store.update_task(following, events, idempotency_key="key-continued")
    await store.put_push_config(push_config(gone.task_id, "hook"))
    await finish(store, following)

    kept = await create(store, key="key-kept")

    assert await store.get_task(gone.task_id) is None
    assert await store.read_events(gone.task_id) == []
    assert await store.list_push_configs(gone.task_id) == []
    assert await store.find_idempotency_key("key-gone") is None
    assert await store.find_idempotency_key("key-continued") is None
    assert await store.find_idempotency_key("key-kept") == kept.task_id
    # No index entry is left behind either.
    assert set(store._tasks) == {kept.task_id}
    assert store._push == {} and set(store._keys) == {"key-kept"} and not store._finished


async def test_a_new_task_is_refused_when_every_kept_task_is_active() -> None:
    store = MemoryStore(max_tasks=2)
    kept = [await create(store), await create(store)]

    with pytest.raises(StoreFull) as refused:
        await create(store, key="refused")

    assert isinstance(refused.value, StoreLimitExceeded)
    assert refused.value.maximum == 2 and "max_tasks" in refused.value.store_limit
    assert "at most 2 tasks" in str(refused.value)
    assert await store.find_idempotency_key("refused") is None
    assert [await store.get_task(r.task_id) is not None for r in kept] == [True, True]
    # Once one finishes, there is room again.
    await finish(store, kept[0])
    await create(store)
    assert await store.get_task(kept[0].task_id) is None


async def test_expired_tasks_are_removed_not_just_hidden() -> None:
    clock = Clock()
    store = MemoryStore(clock=clock)
    old = await finish(store, await create(store), expires_at_ms=BASE_MS + 1000)
    older_read = await finish(store, await create(store), expires_at_ms=BASE_MS + 1000)
    live = await finish(store, await create(store), expires_at_ms=BASE_MS + 5000)
    clock.now_ms = BASE_MS + 2000

    # Read: removed at once.
    assert await store.get_task(older_read.task_id) is None
    assert older_read.task_id not in store._tasks
    # Not read: removed by the next write.
    await create(store)
    assert old.task_id not in store._tasks and old.task_id not in store._finished
    assert live.task_id in store._tasks


async def test_expired_tasks_are_removed_a_few_per_write() -> None:
    clock = Clock()
    store = MemoryStore(clock=clock)
    expired = [
        await finish(store, await create(store), expires_at_ms=BASE_MS + 1) for _ in range(5)
    ]
    clock.now_ms = BASE_MS + 10

    await create(store)
    assert len([r for r in expired if r.task_id in store._tasks]) == 3
    await create(store)
    await create(store)
    assert not [r for r in expired if r.task_id in store._tasks]


def test_the_default_bound() -> None:
    store = open_store("memory://")
    assert isinstance(store, MemoryStore) and store.max_tasks == DEFAULT_MAX_TASKS == 10_000


def test_the_bound_is_an_option_of_the_url() -> None:
    store = open_store("memory://?max_tasks=25")
    assert isinstance(store, MemoryStore) and store.max_tasks == 25


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("memory://?max_tasks=0", "at least 1"),
        ("memory://?max_tasks=-3", "at least 1"),
        ("memory://?max_tasks=ten", "whole number"),
        ("memory://?max_tasks=1e3", "whole number"),
        ("memory://?max_tasks=", "whole number"),
        ("memory://?max_tasks", "malformed options"),
        ("memory://?maxtasks=5", r"unknown option\(s\) maxtasks"),
        ("memory://?max_tasks=5&ttl=3", r"unknown option\(s\) ttl"),
        ("memory://?max_tasks=5&max_tasks=6", "given 2 times"),
        ("memory://tasks", "only options"),
    ],
)
def test_a_bad_option_is_refused_naming_it(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        open_store(url)


def test_the_bound_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_tasks must be at least 1"):
        MemoryStore(max_tasks=0)


async def test_a_finished_tasks_events_read_back_whole_and_take_more() -> None:
    store = MemoryStore()
    record = await create(store, key="one")
    following, _ = step(record)
    await store.update_task(following, [artifact_event(following, 2, "line\nbreak\u2028")])
    done = await finish(store, following)
    assert isinstance(store._tasks[done.task_id].events, bytes)

    read = await store.read_events(done.task_id)
    assert [event.seq for event in read] == [1, 2, 3]
    assert read[1].payload.artifact.parts[0].text == "line\nbreak\u2028"  # type: ignore[union-attr]
    assert [event.seq for event in await store.read_events(done.task_id, 1, 1)] == [2]

    # An event after the end (rare) is logged after the others.
    later, more = step(done)
    await store.update_task(later, more, idempotency_key="two")
    assert [event.seq for event in await store.read_events(done.task_id)] == [1, 2, 3, 4]
    assert store._tasks[done.task_id].keys == ("one", "two")

"""The task bus: wake-ups carry the committed record and the events a write logged, so waiters
need not read the store after a write made in their own process (bus.py)."""

from __future__ import annotations

import asyncio

import pytest

from a2a_serverless.bus import TaskBus
from a2a_serverless.journal import Change, Journal
from a2a_serverless.lifecycle import status_event
from a2a_serverless.models import Task, TaskState, TaskStatus
from a2a_serverless.store.base import TaskEvent, TaskRecord
from a2a_serverless.store.memory import MemoryStore

S = TaskState


def record(version: int, state: TaskState = S.WORKING) -> TaskRecord:
    task = Task(id="t1", context_id="c1", status=TaskStatus(state=state))
    return TaskRecord(
        task=task,
        owner="o",
        version=version,
        last_seq=version,
        created_at_ms=1,
        updated_at_ms=1,
    )


def events(*seqs: int) -> list[TaskEvent]:
    task = record(1).task
    return [TaskEvent(seq=seq, payload=status_event(task, S.WORKING)) for seq in seqs]


async def test_a_write_hands_over_its_record() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        bus.notify("t1", record(2))
        assert await subscription.wait(0.01) is True
        latest = subscription.latest()
        assert latest is not None and latest.version == 2
        assert subscription.latest() is None  # taken
        assert await subscription.wait(0.01) is False


async def test_writes_announced_out_of_order_keep_the_newest_record() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        bus.notify("t1", record(4))
        bus.notify("t1", record(3))
        assert await subscription.wait(0.01) is True
        latest = subscription.latest()
        assert latest is not None and latest.version == 4


async def test_a_write_that_does_not_say_what_it_wrote_sends_readers_to_the_store() -> None:
    bus = TaskBus()
    with bus.subscribe("t1", events=True) as subscription:
        bus.notify("t1", record(2), events(2))
        bus.notify("t1")
        assert await subscription.wait(0.01) is True
        assert subscription.latest() is None
        bus.notify("t1", record(3), events(3))
        bus.notify("t1")
        assert subscription.events_after(2) is None


def test_events_after_a_position_in_order() -> None:
    bus = TaskBus()
    with bus.subscribe("t1", events=True) as subscription:
        bus.notify("t1", record(4), events(4))
        bus.notify("t1", record(3), events(2, 3))  # announced late: sorted back in place
        delivered = subscription.events_after(1)
        assert delivered is not None and [e.seq for e in delivered] == [2, 3, 4]
        assert subscription.events_after(4) == []  # nothing since


def test_events_already_seen_are_dropped() -> None:
    bus = TaskBus()
    with bus.subscribe("t1", events=True) as subscription:
        bus.notify("t1", record(3), events(2, 3))
        delivered = subscription.events_after(2)
        assert delivered is not None and [e.seq for e in delivered] == [3]


def test_a_gap_means_another_process_wrote_in_between() -> None:
    bus = TaskBus()
    with bus.subscribe("t1", events=True) as subscription:
        # seq 3 was written elsewhere: the reader must read the store, not skip it.
        bus.notify("t1", record(4), events(4))
        assert subscription.events_after(2) is None


def test_a_subscription_without_events_keeps_none() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        bus.notify("t1", record(2), events(2))
        assert subscription.events_after(1) == []


def test_closed_subscriptions_get_nothing() -> None:
    bus = TaskBus()
    subscription = bus.subscribe("t1", events=True)
    subscription.close()
    bus.notify("t1", record(2), events(2))
    assert subscription.latest() is None
    assert bus._subscriptions == {}


@pytest.mark.parametrize("state", [S.WORKING, S.COMPLETED])
async def test_the_journal_announces_what_it_committed(state: TaskState) -> None:
    store = MemoryStore()
    bus = TaskBus()
    journal = Journal(store, bus)
    task = record(1, S.SUBMITTED).task
    with bus.subscribe("t1", events=True) as subscription:
        created = await journal.create(task, owner="o", events=[status_event(task, S.SUBMITTED)])
        assert subscription.latest() is created
        written = await journal.write("t1", lambda r: Change(events=[status_event(r.task, state)]))
        assert await subscription.wait(0.01) is True
        delivered = subscription.events_after(1)
        assert delivered is not None and [e.seq for e in delivered] == [2]
        assert delivered[0].payload.status.state == state  # type: ignore[union-attr]
        bus.notify("t1", written)
        assert subscription.latest() is written
        stored = await store.get_task("t1")
        assert stored is not None and stored.version == written.version == 2


async def test_a_write_wakes_a_waiter_before_its_timeout() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        waiting = asyncio.create_task(subscription.wait(30))
        await asyncio.sleep(0)
        assert not waiting.done()
        bus.notify("t1", record(2))
        assert await asyncio.wait_for(waiting, 5) is True
        latest = subscription.latest()
        assert latest is not None and latest.version == 2


async def test_a_write_before_the_wait_is_not_missed_and_counts_once() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        bus.notify("t1", record(2))
        bus.notify("t1", record(3))
        assert await subscription.wait(30) is True  # returns at once
        assert await subscription.wait(0.01) is False


async def test_a_canceled_wait_leaves_the_subscription_usable() -> None:
    bus = TaskBus()
    with bus.subscribe("t1") as subscription:
        waiting = asyncio.create_task(subscription.wait(30))
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        bus.notify("t1", record(2))  # nobody waiting: kept for the next wait
        assert await subscription.wait(30) is True
        assert await subscription.wait(0.01) is False


def test_on_write_is_handed_each_write_and_may_close_its_subscription() -> None:
    bus = TaskBus()
    seen: list[int | None] = []
    others: list[int | None] = []

    def first(written: TaskRecord | None) -> None:
        seen.append(None if written is None else written.version)
        watching.close()  # while the bus delivers: the other subscriber still gets it

    watching = bus.subscribe("t1", on_write=first)
    with bus.subscribe("t1", on_write=lambda r: others.append(None if r is None else r.version)):
        bus.notify("t1", record(2))
        bus.notify("t1")
        assert seen == [2]
        assert others == [2, None]
    assert bus._subscriptions == {}

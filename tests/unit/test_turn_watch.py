"""A turn's end watch (`TaskUpdater.watch_end`, executor.py): told of its own end, of a cancel
made in this process or refused to one of its writes at once, of one made in another process
at its poll; and a turn shorter than its poll never reads the store for it."""

from __future__ import annotations

import asyncio

import pytest

from a2a_serverless.bus import TaskBus
from a2a_serverless.executor import TaskEnded, TaskUpdater
from a2a_serverless.journal import Change, Journal, now_ms
from a2a_serverless.lifecycle import status_event
from a2a_serverless.models import Task, TaskState, TaskStatus
from a2a_serverless.store.base import TaskRecord, WorkerClaim
from a2a_serverless.store.memory import MemoryStore

S = TaskState
WAIT_S = 5.0  # how long a test waits for something that happens at once on a working machine


class CountingStore(MemoryStore):
    """The memory store, counting its task reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def get_task(self, task_id: str) -> TaskRecord | None:
        self.reads += 1
        return await super().get_task(task_id)


async def turn(store: MemoryStore, bus: TaskBus) -> TaskUpdater:
    """A task whose turn "s1" is claimed by worker "w1", and that turn's updater."""
    journal = Journal(store, bus)
    task = Task(id="t1", context_id="c1", status=TaskStatus(state=S.SUBMITTED))
    await journal.create(task, owner="o", events=[status_event(task, S.SUBMITTED)])
    claim = WorkerClaim("s1", "w1", now_ms() + 60_000, 1)
    claimed = await journal.write("t1", lambda r: Change(claim=claim))
    if isinstance(store, CountingStore):
        store.reads = 0  # the journal's own, setting up
    return TaskUpdater(journal, claimed, worker_id="w1", step="s1", lease_s=60)


async def cancel(journal: Journal) -> None:
    await journal.write(
        "t1", lambda r: Change(events=[status_event(r.task, S.CANCELED)], claim=None)
    )


async def test_a_turn_that_ends_itself_is_told_none_and_reads_nothing() -> None:
    store = CountingStore()
    updater = await turn(store, TaskBus())
    ended: list[str | None] = []
    with updater.watch_end(poll_s=3600, on_end=ended.append) as watch:
        await updater.start_work("working")
        assert ended == [] and watch.watching
        await updater.complete("done")
        assert ended == [None]
        assert not watch.watching
    assert store.reads == 0


async def test_a_cancel_in_this_process_is_told_at_once() -> None:
    store = CountingStore()
    bus = TaskBus()
    updater = await turn(store, bus)
    ended: list[str | None] = []
    with updater.watch_end(poll_s=3600, on_end=ended.append):
        await cancel(Journal(store, bus))
        assert ended == ["task is canceled"]  # in the canceler's own write
    assert updater.canceled_elsewhere


async def test_a_cancel_elsewhere_is_told_by_a_refused_write_before_the_poll() -> None:
    store = CountingStore()
    updater = await turn(store, TaskBus())
    ended: list[str | None] = []
    with updater.watch_end(poll_s=3600, on_end=ended.append):
        await cancel(Journal(store, TaskBus()))  # another process: its own bus
        assert ended == []
        with pytest.raises(TaskEnded):
            await updater.add_artifact("late")
        assert ended == ["task is canceled"]


async def test_a_cancel_elsewhere_is_told_at_the_poll() -> None:
    store = CountingStore()
    updater = await turn(store, TaskBus())
    told = asyncio.Event()
    ended: list[str | None] = []

    def on_end(reason: str | None) -> None:
        ended.append(reason)
        told.set()

    with updater.watch_end(poll_s=0.01, on_end=on_end):
        await cancel(Journal(store, TaskBus()))
        await asyncio.wait_for(told.wait(), WAIT_S)
    assert ended == ["task is canceled"]
    assert store.reads >= 1


async def test_wait_ended_says_why_or_none() -> None:
    store = CountingStore()
    bus = TaskBus()
    updater = await turn(store, bus)
    waiting = asyncio.create_task(updater.wait_ended(poll_s=3600))
    await asyncio.sleep(0)
    await cancel(Journal(store, bus))
    assert await asyncio.wait_for(waiting, WAIT_S) == "task is canceled"

    finished = await turn(CountingStore(), TaskBus())
    waiting = asyncio.create_task(finished.wait_ended(poll_s=3600))
    await asyncio.sleep(0)
    await finished.complete("done")
    assert await asyncio.wait_for(waiting, WAIT_S) is None
    assert await finished.wait_ended(poll_s=3600) is None  # over already

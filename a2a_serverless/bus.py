"""Wake-ups for readers of a task's event log within one process, with what was written.

The Store is the only source of truth; this bus tells a waiting reader (an SSE stream, a
blocking `message/send`) that a task it follows was written *by this process*, and hands it the
record as committed and the events that write logged, so the reader goes on without reading the
store again. A watcher that needs no task to wait in (a turn's cancel watch) is handed each
write as it is made instead (`on_write`). Writers in other processes are seen by polling: a
reader that times out re-reads the store.

A committed record is a consistent snapshot of the task (each write is conditional on the
version it read, so it includes every earlier write, whichever process made it), and the journal
never changes a record after committing it (copy-on-write), so readers may share it.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .store.base import TaskEvent, TaskRecord


class TaskBus:
    def __init__(self) -> None:
        self._subscriptions: defaultdict[str, set[Subscription]] = defaultdict(set)

    def notify(
        self, task_id: str, record: TaskRecord | None = None, events: Sequence[TaskEvent] = ()
    ) -> None:
        """A write of `task_id` committed `record` (None: unknown, readers re-read the store)
        and logged `events`."""
        # A copy: an `on_write` may close its subscription.
        for subscription in tuple(self._subscriptions.get(task_id, ())):
            subscription._deliver(record, events)

    def subscribe(
        self,
        task_id: str,
        *,
        events: bool = False,
        on_write: Callable[[TaskRecord | None], None] | None = None,
    ) -> Subscription:
        """Subscribe *before* reading the store, so no write between read and wait is missed.

        With `events`, the subscription also keeps the events each write logged, for
        `events_after` (a reader of the log); otherwise only the newest record. With
        `on_write`, each write is handed to it instead, synchronously, in the writer's task
        (None: a write that did not say what it committed): for a watcher that needs no task
        of its own to wait in. It must not raise, and must be quick.
        """
        return Subscription(self, task_id, keep_events=events, on_write=on_write)

    def _add(self, task_id: str, subscription: Subscription) -> None:
        self._subscriptions[task_id].add(subscription)

    def _remove(self, task_id: str, subscription: Subscription) -> None:
        subscriptions = self._subscriptions.get(task_id)
        if subscriptions is not None:
            subscriptions.discard(subscription)
            if not subscriptions:
                del self._subscriptions[task_id]


class Subscription:
    def __init__(
        self,
        bus: TaskBus,
        task_id: str,
        *,
        keep_events: bool = False,
        on_write: Callable[[TaskRecord | None], None] | None = None,
    ) -> None:
        self._bus = bus
        self._task_id = task_id
        self._on_write = on_write
        # Set by a write since the last `wait` returned; `_waiter` is the pending `wait`'s future.
        self._woken = False
        self._waiter: asyncio.Future[None] | None = None
        self._keep_events = keep_events
        self._record: TaskRecord | None = None
        self._events: list[TaskEvent] = []
        # A write was announced without its record or events: the store must be read.
        self._unknown = False
        bus._add(task_id, self)

    def _deliver(self, record: TaskRecord | None, events: Sequence[TaskEvent]) -> None:
        if self._on_write is not None:
            self._on_write(record)
            return
        if record is None:
            self._unknown = True
        else:
            # Two writes may announce themselves out of order: keep the newest record.
            if self._record is None or record.version > self._record.version:
                self._record = record
            if self._keep_events:
                self._events.extend(events)
        self._woken = True
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def wait(self, timeout: float) -> bool:
        """Wait for a write in this process or `timeout` seconds; True if woken by a write."""
        if self._woken:
            self._woken = False
            return True
        # A bare future and a timer handle, not `asyncio.wait_for`, which wraps the wait in a
        # task of its own (a blocking send wakes here once per turn: that task was most of it).
        loop = asyncio.get_running_loop()
        waiter = loop.create_future()
        self._waiter = waiter
        timer = loop.call_later(timeout, _time_up, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self._waiter = None
        woken, self._woken = self._woken, False
        return woken

    def latest(self) -> TaskRecord | None:
        """The newest record written in this process since the last call, or None when there
        is none or a write did not say (then read the store)."""
        record, unknown = self._record, self._unknown
        self._record, self._unknown = None, False
        return None if unknown else record

    def events_after(self, seq: int) -> list[TaskEvent] | None:
        """The events logged in this process since the last call that come after `seq`, in
        order; None when they may not be all of them — a gap (another process wrote in
        between) or a write that did not say — so the reader must read the store."""
        events, unknown = self._events, self._unknown
        self._events, self._record, self._unknown = [], None, False
        if unknown:
            return None
        fresh = sorted((e for e in events if e.seq > seq), key=lambda e: e.seq)
        expected = seq + 1
        for event in fresh:
            if event.seq != expected:
                return None
            expected += 1
        return fresh

    def close(self) -> None:
        self._bus._remove(self._task_id, self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def _time_up(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)

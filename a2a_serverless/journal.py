"""The one write path for tasks: read, decide, write conditionally, retry on conflict.

Every change to a task — a new message, the worker's progress, a cancel — goes through
`Journal.write(task_id, decide)`. `decide` looks at the freshly read record and says what
should change (or raises to refuse); the journal applies the events to the Task with the
lifecycle rules, numbers them after the log's last sequence number, and writes task + events in
one conditional Store call. If another writer got there first, it re-reads and asks `decide`
again, so decisions are always made on current state and no update is ever lost.

A task is bounded (`max_task_bytes`, its JSON as stored): a change that adds content (a
message, an artifact, a status message) and would take the task over the bound is not written
but raises `TaskTooLarge`, which the writer turns into its own answer (the service refuses the
client's message; the updater fails the task saying why). A change marked `bounded=False`, the
short failure written then, passes: it ends the task, which never grows again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import msgspec

from .bus import TaskBus
from .codec import ENCODER
from .exceptions import A2AServerlessError, LimitError, UnavailableError
from .handoff import TurnHandoff
from .lifecycle import add_to_history, apply_event
from .models import Message, Task, TaskStatusUpdateEvent
from .store.base import (
    Store,
    TaskEvent,
    TaskEventPayload,
    TaskRecord,
    VersionConflict,
    WorkerClaim,
)
from .store.bookkeeping import (
    DeadLetteredNotification,
    DurableTurn,
    PushCursor,
    TurnInfo,
    stored_updates,
)


class _Keep:
    """Marker: leave the claim as it is."""


KEEP = _Keep()


class TaskGone(A2AServerlessError):
    """The task disappeared (expired or deleted) while it was being written."""

    def __init__(self, task_id: str) -> None:
        super().__init__(f"task {task_id!r} does not exist")
        self.task_id = task_id


class TooMuchContention(UnavailableError):
    """A write lost the race too many times in a row; the caller may retry later."""


class TaskTooLarge(LimitError):
    """A change would make the task `actual` bytes, over the bound of `maximum`: not written."""

    def __init__(self, task_id: str, maximum: int, actual: int) -> None:
        super().__init__(f"task {task_id!r} would be {actual} bytes, over {maximum}")
        self.task_id = task_id
        self.maximum = maximum
        self.actual = actual


class Change(msgspec.Struct):
    """What one write does: messages join the history, then events apply in order; the rest
    is bookkeeping the client never sees (store/bookkeeping.py)."""

    events: Sequence[TaskEventPayload] = ()
    messages: Sequence[Message] = ()
    claim: WorkerClaim | _Keep | None = KEEP
    # A new turn begins.
    turn: TurnInfo | None = None
    # The turn of this step has ended.
    turn_done: str | None = None
    # Push configs' new cursors, by config id (None forgets the config's).
    push: Mapping[str, PushCursor | None] | None = None
    # The task's dead letters as they now are.
    dead_letters: Sequence[DeadLetteredNotification] | None = None
    # The turn's durable operations as they now are (durable/session.py).
    durable: DurableTurn | None = None
    # Stored entries merged as they are: keys no typed field above covers (the kit's own
    # bookkeeping goes through those).
    internal: dict[str, Any] = msgspec.field(default_factory=dict)
    # Held to the journal's `max_task_bytes`; False only for the kit's own short messages that
    # end a task (a failure saying why), which must be written even at the bound.
    bounded: bool = True

    def stored_updates(self, internal: Mapping[str, Any]) -> dict[str, Any]:
        """The entries this change merges into a record's stored `internal`."""
        if (
            self.turn is None
            and self.turn_done is None
            and not self.push
            and self.dead_letters is None
            and self.durable is None
        ):
            return self.internal
        typed = stored_updates(
            internal,
            turn=self.turn,
            turn_done=self.turn_done,
            push=self.push,
            dead_letters=self.dead_letters,
            durable=self.durable,
        )
        return {**self.internal, **typed}


Decide = Callable[[TaskRecord], Change | None]

# Called after every write that logged events, with the record as written and those events:
# how push notifications learn about status changes, whoever made them. It returns what is
# left to wait for, or None: a hook that mostly has nothing to wait for (a metric counted, a
# check that finds nothing to do) is a plain function, and no coroutine is made for it on every
# commit.
CommitHook = Callable[[TaskRecord, Sequence[TaskEvent]], Awaitable[None] | None]
# Called by `Journal.catch_up` with the task as it is now: what the commit hooks of its earlier
# writes owe, if a writer died between a write and its hooks (push: queue again what is not
# delivered yet).
CatchUpHook = Callable[[TaskRecord], Awaitable[None]]


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Journal:
    def __init__(
        self,
        store: Store,
        bus: TaskBus | None = None,
        *,
        finished_task_ttl_s: float | None = None,
        max_attempts: int = 100,
        max_task_bytes: int | None = None,
        commit_hooks: Sequence[CommitHook] = (),
        catch_up_hooks: Sequence[CatchUpHook] = (),
        handoff: TurnHandoff | None = None,
    ) -> None:
        """`commit_hooks` run after every write that logged events, in order, each awaited
        before the next when it returns an awaitable (a hook that raises fails the writer; the
        write itself is done); `catch_up_hooks` when a writer's
        job comes again after its work is over (`catch_up`); `handoff` is given the record of
        each commit that begins a turn, for a worker in this process to claim it from
        (handoff.py)."""
        self.store = store
        self.bus = bus or TaskBus()
        self._ttl_ms = None if finished_task_ttl_s is None else int(finished_task_ttl_s * 1000)
        self._max_attempts = max_attempts
        self.max_task_bytes = max_task_bytes
        self.commit_hooks: list[CommitHook] = list(commit_hooks)
        self.catch_up_hooks: list[CatchUpHook] = list(catch_up_hooks)
        self.handoff = handoff

    async def create(
        self,
        task: Task,
        *,
        owner: str,
        events: Sequence[TaskEventPayload] = (),
        turn: TurnInfo | None = None,
        internal: dict[str, Any] | None = None,
        idempotency_key: str | None = None,
        free_key: str | None = None,
    ) -> TaskRecord:
        """Store a new task. `events` are applied to `task` and logged from sequence 1;
        `turn` is the turn its message begins; `internal`, stored entries as they are;
        `free_key`, a key that must be free as well (`Store.create_task`: `KeyHeld`)."""
        stamp = now_ms()
        for payload in events:
            task = apply_event(task, payload)
        self._check_size(task)
        updates = stored_updates({}, turn=turn)
        record = TaskRecord(
            task=task,
            owner=owner,
            version=1,
            last_seq=len(events),
            created_at_ms=stamp,
            updated_at_ms=stamp,
            expires_at_ms=self._expiry(task, stamp, None),
            internal={**internal, **updates} if internal else updates,
        )
        logged = [TaskEvent(seq=i, payload=p) for i, p in enumerate(events, start=1)]
        await self.store.create_task(
            record, logged, idempotency_key=idempotency_key, free_key=free_key
        )
        if turn is not None and self.handoff is not None:
            self.handoff.put(record)
        self.bus.notify(task.id, record, logged)
        if logged:
            for hook in self.commit_hooks:
                if (pending := hook(record, logged)) is not None:
                    await pending
        return record

    async def write(
        self,
        task_id: str,
        decide: Decide,
        *,
        record: TaskRecord | None = None,
        idempotency_key: str | None = None,
    ) -> TaskRecord:
        """Apply `decide`'s change to the current record; returns the record as written.

        `record` is a recent read to start from (saves a read when it is still current).
        When `decide` returns None nothing is written and the current record is returned.
        """
        for _ in range(self._max_attempts):
            if record is None:
                record = await self.store.get_task(task_id)
                if record is None:
                    raise TaskGone(task_id)
            change = decide(record)
            if change is None:
                return record
            new_record, logged = self._build(record, change)
            try:
                await self.store.update_task(new_record, logged, idempotency_key=idempotency_key)
            except VersionConflict:
                record = None
                continue
            if change.turn is not None and self.handoff is not None:
                self.handoff.put(new_record)
            self.bus.notify(task_id, new_record, logged)
            if logged:  # a claim or other bookkeeping logs nothing: no hook is told
                # The hooks run here, not in a coroutine of their own: three writes a send.
                for hook in self.commit_hooks:
                    if (pending := hook(new_record, logged)) is not None:
                        await pending
            return new_record
        raise TooMuchContention(f"task {task_id!r}: gave up after {self._max_attempts} conflicts")

    async def catch_up(self, task_id: str) -> None:
        """Run the catch-up hooks on the task as it is now. For a writer whose job came again
        after its work was done (a redelivered turn): the writer that did it may have died
        between a write and its commit hooks, so what they owe is done again (duplicates are
        the hooks' to bear: a notification keeps its id)."""
        if not self.catch_up_hooks:
            return
        record = await self.store.get_task(task_id)
        if record is None:
            return
        for hook in self.catch_up_hooks:
            await hook(record)

    def _check_size(self, task: Task) -> None:
        """TaskTooLarge if `task`'s JSON is over `max_task_bytes`. Encoding it costs what the
        store's own serialisation of the record costs, once per write that adds content."""
        if self.max_task_bytes is None:
            return
        size = len(ENCODER.encode(task))
        if size > self.max_task_bytes:
            raise TaskTooLarge(task.id, self.max_task_bytes, size)

    def _expiry(self, task: Task, stamp: int, current: int | None) -> int | None:
        if current is None and self._ttl_ms is not None and task.status.state.is_terminal:
            return stamp + self._ttl_ms
        return current

    def _build(self, record: TaskRecord, change: Change) -> tuple[TaskRecord, list[TaskEvent]]:
        task = record.task
        for message in change.messages:
            task = add_to_history(task, message)
        logged = []
        seq = record.last_seq
        # `grows`: a message, an artifact or a status message joins the task, which is then
        # held to `max_task_bytes`. `visible`: the write changes the task's status time,
        # `updated_at_ms`, what `tasks/list` orders by and `lastUpdatedAfter` filters on (A2A
        # 1.0: "sorted by their status timestamp"). A status event or a message (which comes with
        # its status change) advances it; an artifact or a bookkeeping write (a claim, a delivery
        # cursor) leaves it alone, so it does not move the task in a store's listing index.
        grows = visible = bool(change.messages)
        for payload in change.events:
            task = apply_event(task, payload)
            seq += 1
            logged.append(TaskEvent(seq=seq, payload=payload))
            if isinstance(payload, TaskStatusUpdateEvent):
                visible = True
                grows = grows or payload.status.message is not None
            else:
                grows = True
        if change.bounded and grows:
            self._check_size(task)
        stamp = max(now_ms(), record.updated_at_ms) if visible else record.updated_at_ms
        expires = self._expiry(task, stamp, record.expires_at_ms)
        updates = change.stored_updates(record.internal)
        internal = {**record.internal, **updates} if updates else record.internal
        claim = record.claim if isinstance(change.claim, _Keep) else change.claim
        new_record = record.next(
            task=task,
            last_seq=seq,
            updated_at_ms=stamp,
            claim=claim,
            expires_at_ms=expires,
            internal=internal,
        )
        return new_record, logged
